"""Host-side autotuning of the generated module (src/lower/launch.c):
cuda.tile.tune.exhaustive_search, run with the converted kernels, and the
launch options (num_warps, num_stages) of kernels that have no tuning of their
own: @triton.autotune over a few candidates ordered by the size of the tiles.

On the GPU each configuration is launched and timed with CUDA events; the
fastest mean wins, ties going to the first. Under TRITON_INTERPRET=1 (the CPU)
nothing is timed: the first configuration that runs wins, so the choice is the
same on every run.

The lines above the first `# helper:` marker are not generated; they make the
file importable (tests/helpers). See tools/gen_helpers.py for the format.
"""
import contextlib
import os
import random

import torch
import triton
import triton.language as tl

from host_helpers import INTERPRETED, ct_launch  # noqa: F401  (the generated module has them)


# helper: _TuningResult
class _Measurement:
    """One configuration's time (cuda.tile.tune.Measurement)."""

    def __init__(self, config, mean_us, num_samples):
        self.config = config
        self.mean_us = mean_us
        self.num_samples = num_samples
        self.error_margin_us = 0.0

    def __repr__(self):
        return f"Measurement(config={self.config!r}, mean_us={self.mean_us:.1f})"


class _TuningResult:
    """What exhaustive_search returns (cuda.tile.tune.TuningResult)."""

    def __init__(self, best, successes, failures):
        self.best = best
        self.successes = tuple(successes)
        self.failures = tuple(failures)

    def summary(self, **unused):
        lines = [f"{len(self.successes)} succeeded, {len(self.failures)} failed"]
        for measure in sorted(self.successes, key=lambda m: m.mean_us):
            marker = "*" if measure is self.best else " "
            time = f"{measure.mean_us:.1f} us ({measure.num_samples} samples)"
            lines.append(f"{marker} {measure.config}: {time}")
        for config, error_type, message in self.failures:
            first_line = message.splitlines()[0] if message else ""
            lines.append(f"    {config}: {error_type.__name__}: {first_line}")
        return "\n".join(lines)

    def __str__(self):
        return self.summary()


# helper: _launch_time_us needs ct_launch
def _launch_time_us(stream, grid, kernel, get_args, flush_l2, warmup=3, repeats=20):
    """Mean time in microseconds of one launch on the GPU, measured with CUDA events after
    `warmup` launches; the L2 cache is flushed before each launch when flush_l2. Before each
    launch after the first (which compiles) the GPU is kept waiting (torch.cuda._sleep) for
    twice the host time the previous launch took, so the kernel is queued before its start
    event is reached and the events time the kernel alone, not the launcher's Python: measured
    on an H100, TileGym's attention with sinks at 128 queries, a 3.3 us kernel, timed 50-110
    us per configuration without the wait (the host's time, which grew from the first
    configurations to the last), so the search chose a configuration that ran 11 us."""
    from time import perf_counter  # here: the module may bind `time` to something else

    scratch = None
    if flush_l2:  # larger than the L2 cache
        scratch = torch.empty(256 * 1024 * 1024, dtype=torch.int8, device="cuda")
    on_stream = contextlib.nullcontext()
    if isinstance(stream, torch.cuda.Stream):
        on_stream = torch.cuda.stream(stream)
    total_ms = 0.0
    host_s = None  # the previous launch's host time; none for the first, which compiles
    with on_stream:
        for i in range(warmup + repeats):
            args = get_args()
            if scratch is not None:
                scratch.zero_()
            if host_s is not None:
                torch.cuda._sleep(int(2 * host_s * _GPU_CYCLES_PER_S))
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            began = perf_counter()
            ct_launch(stream, grid, kernel, args)
            host_s = min(perf_counter() - began, _LAUNCH_WAIT_LIMIT_S)
            end.record()
            end.synchronize()
            if i >= warmup:
                total_ms += start.elapsed_time(end)
    return total_ms * 1000.0 / repeats


_GPU_CYCLES_PER_S = 2.0e9  # about the H100's and H200's SM clock; a slower clock waits longer
_LAUNCH_WAIT_LIMIT_S = 0.01  # a launch's host time longer than this waits no longer


# helper: _OptionTrial
class _OptionTrial:
    """The launch options the module's exhaustive search tries for one configuration, for
    kernels whose launch options are otherwise fixed. `current` is the trial being timed,
    else None. A launch during it takes candidate `index` of its kernel's launch candidates,
    0 being the fixed launch's own options; `launched` keeps, of each kernel and key
    launched, its candidates, and `count` the most any of them has."""

    current = None

    def __init__(self):
        self.index = 0
        self.launched = {}
        self.count = 1

    def candidate(self, kernel, key, candidates):
        """The options this trial's launch of `kernel` under `key` takes, None for its own."""
        made = self.launched.get((kernel, key))
        if made is None:
            made = self.launched[(kernel, key)] = candidates()
            self.count = max(self.count, len(made))
        return made[self.index] if 0 < self.index < len(made) else None

    def keep(self, index):
        """The launches after the search take candidate `index` under the trial's keys;
        returns what they take, as text (for TRITON_PRINT_AUTOTUNING=1)."""
        taken = []
        for (kernel, key), made in self.launched.items():
            chosen = kernel.__dict__.setdefault("_c2t_chosen", {})
            if 0 < index < len(made):
                chosen[key] = made[index]
                taken.append(f"{getattr(kernel, '__name__', kernel)}: {made[index]}")
            else:
                chosen.pop(key, None)
                taken.append(f"{getattr(kernel, '__name__', kernel)}: its fixed options")
        return "; ".join(taken)


# helper: _trial_timer needs _launch_time_us _OptionTrial
def _trial_timer(stream, grid_fn, args_fn, flush_l2, *counts):
    """timed(config, variant, trial) of the module's own searches: the GPU time of a launch of
    `variant` for `config` (_launch_time_us, with its warmup and repeat `counts` if given),
    `trial` choosing the launch options of the kernels it launches meanwhile."""

    def timed(config, variant, trial):
        _OptionTrial.current = trial
        try:
            get_args = lambda: args_fn(config)  # noqa: E731
            return _launch_time_us(stream, grid_fn(config), variant, get_args, flush_l2, *counts)
        finally:
            _OptionTrial.current = None

    return timed


# helper: _search_launch_options
def _search_launch_options(trials, timed, search):
    """The second round of the module's own search (exhaustive_search, autotune_launch):
    `trials` holds, for each configuration timed with its kernels' fixed options, the list
    [time in us, configuration, kernel variant, option trial, ...]. The two fastest, where
    within 25% of the fastest, are timed again (`timed(config, variant, trial)`) with each
    of their kernels' other launch candidates (warps, stages, the store path; each a
    compile); their time becomes their fastest, whose options later launches take."""
    if not trials:
        return
    limit = 1.25 * min(entry[0] for entry in trials)
    for entry in sorted(trials, key=lambda tried: tried[0])[:2]:  # stable: ties keep the order
        time_us, config, variant, trial = entry[:4]
        if time_us > limit:
            continue
        fastest, chosen = time_us, 0
        for index in range(1, trial.count):
            trial.index = index
            try:
                candidate_us = timed(config, variant, trial)
            except Exception:  # a candidate Triton cannot compile (shared memory, registers)
                continue
            if candidate_us < fastest:
                fastest, chosen = candidate_us, index
        taken = trial.keep(chosen)
        if os.environ.get("TRITON_PRINT_AUTOTUNING") == "1":
            print(f"{search}: {config!r} {fastest:.1f} us with {taken}")
        entry[0] = fastest


# helper: _exhaustive_search needs _TuningResult _trial_timer _OptionTrial _search_launch_options
def _exhaustive_search(
    search_space,
    stream,
    grid_fn,
    kernel,
    args_fn,
    hints_fn=None,
    *,
    quiet=False,
    single_run_timeout_sec=None,
    flush_l2=True,
):
    """cuda.tile.tune.exhaustive_search: the configuration of search_space whose launch
    (grid_fn(cfg), kernel or kernel(cfg) with the hints hints_fn(cfg), args_fn(cfg)) is
    fastest on the GPU, ties to the first; configurations that raise are failures. Under
    TRITON_INTERPRET=1 nothing is timed: the first configuration that runs wins.
    single_run_timeout_sec is not enforced (no subprocess).
    On the GPU Triton's launch options are searched too: each configuration is timed with
    the kernel's fixed options first; the two fastest, where within 25% of the fastest, are
    then timed with each of the kernel's other launch candidates (warps, stages, the store
    path; each a compile), and a configuration's time is its fastest. The launches after
    the search take the options that won for their configuration, arrays' shapes and dtypes.
    Measured on the H200, TileGym's float16 matmul 4096^3: its 128x128x32 configuration took
    537 TFLOP/s with the fixed options (8 warps, 3 stages), 587 with 4 warps, 4 stages and
    the output tile stored through pointers; its persistent 128x128x64 one 524 and 631 (8
    warps, 4 stages)."""
    configs = list(search_space)
    if not configs:
        raise ValueError("Search space is empty.")
    successes, failures, best, trials = [], [], None, []

    timed = _trial_timer(stream, grid_fn, args_fn, flush_l2)
    for config in configs:
        base = kernel if hasattr(kernel, "launch_tile_kernel") else kernel(config)
        variant = base.replace_hints(**(hints_fn(config) if hints_fn is not None else {}))
        try:
            if INTERPRETED:
                ct_launch(stream, grid_fn(config), variant, args_fn(config))
                measure = _Measurement(config, 0.0, 1)
            else:
                trial = _OptionTrial()
                measure = _Measurement(config, timed(config, variant, trial), 20)
                trials.append([measure.mean_us, config, variant, trial, measure])
        except Exception as error:
            failures.append((config, type(error), str(error)))
            continue
        successes.append(measure)
        if best is None or measure.mean_us < best.mean_us:
            best = measure
        if INTERPRETED:
            break
    _search_launch_options(trials, timed, "exhaustive_search")
    for entry in trials:
        entry[4].mean_us = entry[0]
    for measure in successes:
        if measure.mean_us < best.mean_us:
            best = measure
    if best is None:
        config, error_type, message = failures[0]
        why = f"{error_type.__name__}: {message}"
        raise ValueError(f"No valid config found in search space.\nConfig: {config}\n{why}")
    result = _TuningResult(best, successes, failures)
    if not quiet:
        print(result)
    return result


# helper: _AUTOTUNED
_AUTOTUNED = {}  # autotune_launch's choices: kernel launcher -> {key -> (config, grid, variant, record)}


# helper: _autotune_launch needs _trial_timer _OptionTrial _search_launch_options _AUTOTUNED
class _TunedResult:
    """What autotune_launch returns (cuda.tile_experimental's TunedResult)."""

    def __init__(self, tuned_config, grid, kernel, tuning_record, cache_hit):
        self.tuned_config = tuned_config
        self.grid = grid
        self.kernel = kernel
        self.tuning_record = tuning_record
        self.cache_hit = cache_hit


def _autotune_key(args):
    """autotune_launch's default key: each array's shape, dtype and strides, else the type
    name of the argument."""
    return tuple(
        (tuple(arg.shape), arg.dtype, tuple(arg.stride())) if isinstance(arg, torch.Tensor)
        else type(arg).__name__
        for arg in args
    )


def _autotune_launch(stream, grid_fn, kernel, args_fn, launch_args_fn=None, hints_fn=None, *,
                     search_space, key=None, max_iter=60, compiler_time_limit_sec=10, seed=None,
                     force_retune=False):
    """cuda.tile_experimental.autotune_launch (which cuTile deprecated for exhaustive_search):
    launches `kernel` with the fastest of up to max_iter configurations sampled from
    search_space (with `seed`), in a random order: grid_fn(cfg), the hints hints_fn(cfg),
    the arguments args_fn(cfg) when timed and launch_args_fn(cfg), if given, for the launch
    that counts. The choice is kept per kernel and key (by default the arguments' shapes,
    dtypes and strides) unless force_retune. A configuration Triton cannot compile is skipped;
    compiler_time_limit_sec is not enforced. On the GPU, as in exhaustive_search, the two
    fastest are also timed with the kernel's other launch options. Under TRITON_INTERPRET=1
    nothing is timed: the first configuration that runs wins."""
    if callable(search_space):
        search_space = search_space()
    rng = random.Random(seed)
    configs = []
    for seen, config in enumerate(search_space, 1):  # a uniform sample of the first 10,000
        if seen > 10_000:
            break
        if len(configs) < max_iter:
            configs.append(config)
        elif (slot := rng.randint(0, seen - 1)) < max_iter:
            configs[slot] = config
    if not configs:
        raise ValueError("Search space must contain at least 1 configuration")
    tuned = _AUTOTUNED.setdefault(getattr(kernel._pyfunc, "launcher", kernel), {})
    if key is None:
        key = _autotune_key(args_fn(configs[0]))
    cache_hit = not force_retune and key in tuned
    if not cache_hit:
        rng.shuffle(configs)
        trials = []
        timed = _trial_timer(stream, grid_fn, args_fn, False, 2, 10)  # as cuTile's autotune_launch times
        for config in configs:
            hints = hints_fn(config) if hints_fn is not None else {}
            variant = kernel.replace_hints(**hints)
            trial = _OptionTrial()
            try:
                if INTERPRETED:
                    ct_launch(stream, grid_fn(config), variant, args_fn(config))
                    time_us = 0.0
                else:
                    time_us = timed(config, variant, trial)
            except (triton.CompilationError, triton.runtime.errors.OutOfResources):
                continue  # cuTile skips a configuration its compiler fails on
            trials.append([time_us, config, variant, trial])
            if INTERPRETED:
                break
        if not trials:
            raise ValueError("No valid config found")
        _search_launch_options(trials, timed, "autotune_launch")
        record = [(config, time_us / 1000.0) for time_us, config, variant, trial in trials]
        _, config, variant, _ = min(trials, key=lambda entry: entry[0])
        tuned[key] = (config, grid_fn(config), variant, record)
    config, grid, variant, record = tuned[key]
    args = launch_args_fn(config) if launch_args_fn is not None else args_fn(config)
    ct_launch(stream, grid, variant, args)
    return _TunedResult(config, grid, variant, record, cache_hit)


# helper: _clear_autotune_cache needs _AUTOTUNED
def _clear_autotune_cache(*, kernel=None, key=None):
    """cuda.tile_experimental.clear_autotune_cache: forgets autotune_launch's choices, of
    every kernel or of `kernel`, for every key or for `key`."""
    if kernel is None:
        if key is not None:
            raise ValueError("key must be None when kernel is None")
        _AUTOTUNED.clear()
        return
    tuned = _AUTOTUNED.get(getattr(kernel._pyfunc, "launcher", kernel), {})
    if key is None:
        tuned.clear()
    else:
        tuned.pop(key, None)


# helper: _launch_warps
def _launch_warps(elements, dot=False):
    """num_warps for a kernel whose largest tile has `elements` elements, as one picks it by
    hand: 4 below 2048 elements, 8 below 8192, 16 from there (wide rows: softmax, layer norm,
    argmax over a long row), so that each thread keeps a few hundred bytes of the tile. A
    kernel that multiplies matrices (`dot`) as GEMMs are tuned by hand: 8 warps (two warp
    groups of wgmma) from a 128x128 tile up, else 4 (measured on the H200, TileGym's float32
    matmul at 4096^3 with 128x128x32 tiles: 760 us with 8 warps, 1018 with 16, 1050 with 4)."""
    if dot:
        return 8 if elements >= 128 * 128 else 4
    return 4 if elements < 2048 else 8 if elements < 8192 else 16


# helper: _pipeliner_failed
def _pipeliner_failed(error):
    """Whether `error`, raised compiling a kernel with more than one stage, is Triton's MLIR
    pass pipeline failing (its RuntimeError "PassManager::run failed"), which a pipelined
    compile hits where an unpipelined one (num_stages=1) does not."""
    return isinstance(error, RuntimeError) and "PassManager::run failed" in str(error)


# helper: _fitting_stages needs _pipeliner_failed
def _fitting_stages(kernel, key, launch, stages=3):
    """launch(num_stages) with `stages` software-pipeline stages, or fewer when Triton finds
    the kernel's shared memory larger than the GPU's (cuTile fits its pipelining to the GPU;
    a fixed Triton stage count may not, e.g. 256x256 matrix tiles). A kernel with descriptor
    paths (a _use_tma parameter) that does not fit at 1 stage is launched through its
    pointers, launch(num_stages, _use_tma=False), again from `stages` down: a descriptor's
    tile lands in shared memory (up to 128 KiB each), a pointer load's goes to registers.
    What fits is remembered on the kernel per key (the launch's constexpr values and dtypes),
    so a larger count is compiled once per key, not at every launch. A kernel Triton's
    software pipeliner cannot compile (_pipeliner_failed: Triton 3.6 stops with
    "PassManager::run failed" on a descriptor load in a loop whose result addresses pipelined
    loads, 'pipeliner doesn't know how to predicate this op') is compiled unpipelined, with 1
    stage: cuTile compiles it."""
    fitted = kernel.__dict__.setdefault("_c2t_fitting_stages", {})
    num_stages, choice = fitted.get(key, (stages, {}))
    while True:
        try:
            return launch(num_stages, **choice)
        except triton.runtime.errors.OutOfResources:
            if num_stages > 1:
                num_stages -= 1
            elif not choice and "_use_tma" in getattr(kernel, "arg_names", ()):
                num_stages, choice = stages, {"_use_tma": False}
            else:
                raise
            fitted[key] = (num_stages, choice)
        except RuntimeError as error:
            if num_stages <= 1 or not _pipeliner_failed(error):
                raise
            num_stages = 1
            fitted[key] = (num_stages, choice)


# helper: _launch_candidates needs _launch_warps
def _launch_candidates(configs, elements, tma=False, dot=False, loops=False, stores=False, spread=False):
    """The candidates @triton.autotune times (its early_config_prune) for a kernel whose
    largest tile has `elements` elements, from the warp counts of `configs` (the decorator's):
    the hand pick first (_launch_warps, or the nearest allowed count; 3 stages), the other
    warp counts at 3 stages, nearest first, then the hand pick at 2 stages, and at 1 stage
    last (its shared memory fits where pipelined candidates do not). With `tma` (the kernel
    has descriptor paths) each of the first two warp counts is also tried with _use_tma=False:
    pointer loads go straight to registers, which is faster for tiles that do not feed
    tl.dot (measured on the H200: elementwise kernels 1.5-3x). A kernel that multiplies
    matrices (`dot`) keeps its descriptors (tl.dot reads its operands from shared memory)
    and tries the hand pick (8 warps from a 128x128 accumulator up, as GEMMs are tuned by
    hand, else 4) and the other count at 3 stages, the hand pick at 4, then:
    for tiles of at most 64x64 elements, 6 stages (a stage is small; more loads in flight
    are what a long loop over few output tiles needs: H200, split-K 256x256x32768 with
    64x64x64 tiles, 15.4 us at 6 stages, 17.2 at 4, 23.2 at 3); for larger ones, with
    `stores` (the kernel's stores after the product may go through pointers,
    _store_tma=False), storing through pointers the hand pick at 3 stages, the other count
    at 4 and the hand pick at 2 (the output tile then needs no shared memory: H200, float32
    GEMM 4096^3, 128x128x64 tiles, 0.64 ms against 0.70 at best through the descriptor;
    float16 4096^3, 128x128x32 tiles, 587 TFLOP/s with 4 warps and 4 stages against 567 at
    best through the descriptor), else the other count at 4 stages;
    then the hand pick at 2 stages and 1. A kernel that multiplies matrices and has descriptor
    paths (`dot` and `tma`) also tries the hand pick with _use_tma=False at 3 stages, before
    the hand pick at 2, and at 1 stage last: each program makes its descriptors
    (each is written to global memory and fenced before its first use), which a short
    program pays in full (H200, a decode step, 128 programs of one 128x128 K/V tile each:
    7.3 us through descriptors, 3.9 through pointers; TileGym's split-K reduce 4.3 against
    1.8, its attention decode 7.4 against 4.7), while a long loop of wgmma products keeps the
    descriptors (TileGym's BMM at 8192^3). With `loops` (the kernel has loops Triton may
    software-pipeline, tl.range(..., num_stages=_loop_stages)) each candidate's loops take
    its own stage count, so the 1-stage candidate runs them unpipelined; a kernel without
    matrix products whose tiles have at most 8192 elements also tries the hand pick at 4
    stages (small loads need more of them in flight: H200, TileGym's persistent layer norm,
    bfloat16 128000x256 in 32x256 tiles, 8 warps, one program per SM, 43.2 us at 4 stages
    against 47.3 at 3 with the L2 flushed before each run; with 16x1024 tiles and 4 warps 4
    stages took 75 us against 51, so larger tiles do not try it); such a kernel also tries the
    next two warp counts at 1 stage where each thread keeps 4 elements of the tile or more: a
    row streamed through a loop by plain loads, each thread holding fewer elements, can beat
    any pipelined candidate (H100, TileGym's RMSNorm of
    65536x8192 float16 rows in 2048-element tiles, one program a row: 720 us with 16 warps
    at 1 stage, 817 at 3, 859 with 8 warps at 3; real cuTile 710). With `spread` (a kernel whose
    programs share one grid-stride loop, its launch spreading the grid) the first two warp counts
    at 1 and 3 stages are also tried on 16 times the host's programs (_grid_spread; through
    pointers where the kernel has descriptor paths): on an H100 the converting skill's
    softmax, float16, one row a tile, launched on 528 programs, at the best warps and stages of
    each factor 1 / 4 / 8 / 16 / 32: 32768x1024 1909 / 2376 / 2451 / 2537 / 2430 GB/s,
    16384x4096 2521 / 2595 / 2668 / 2757 / 2780, 8192x8192 2560 / 2660 / 2740 / 2795 / 2794;
    4096x32768, two programs an SM at most, is fastest unspread (2407 against 2206 at 4))."""
    allowed = sorted({config.num_warps for config in configs})
    by_hand = _launch_warps(elements, dot)
    first = min(allowed, key=lambda w: abs(w.bit_length() - by_hand.bit_length()))
    order = sorted(allowed, key=lambda w: abs(w.bit_length() - first.bit_length()))
    if dot:
        other = order[1] if len(order) > 1 else first
        picks = [(first, 3, ()), (other, 3, ()), (first, 4, ())]
        if elements <= 64 * 64:
            picks.append((first, 6, ()))
        elif stores:
            by_pointers = (("_store_tma", False),)
            picks += [(first, 3, by_pointers), (other, 4, by_pointers), (first, 2, by_pointers)]
        else:
            picks.append((other, 4, ()))
        if tma:
            picks.append((first, 3, (("_use_tma", False),)))
        picks.append((first, 2, ()))
    elif tma:
        both = ((("_use_tma", True),), (("_use_tma", False),))
        picks = [(w, 3, use) for w in order[:2] for use in both][:4] + [(first, 2, ())]
    else:
        picks = [(w, 3, ()) for w in order][:4] + [(first, 2, ())]
    if loops and not dot and elements <= 8192:
        picks.insert(len(picks) - 1, (first, 4, ()))
    picks.append((first, 1, ()))
    if loops and not dot:
        picks += [(w, 1, ()) for w in order[1:3] if elements >= w * 32 * 4]
    if dot and tma:
        picks.append((first, 1, (("_use_tma", False),)))
    if spread and not dot:
        wide = (("_grid_spread", 16), ("_use_tma", False)) if tma else (("_grid_spread", 16),)
        picks += [(w, s, wide) for w in order[:2] for s in (1, 3)]
    configs = []
    for w, s, chosen in dict.fromkeys(picks):
        chosen = dict(chosen)
        if loops:
            chosen["_loop_stages"] = s
        configs.append(triton.Config(chosen, num_warps=w, num_stages=s, num_ctas=None))
    return configs


# helper: _searched_launch needs _OptionTrial _fitting_stages
def _searched_launch(kernel, key, launch, shapes, candidates, warps=None):
    """launch(num_stages, num_warps, **constants) of a kernel whose launch options are fixed
    in a module that tunes with exhaustive_search: while the search times a configuration's
    options (_OptionTrial), the trial's candidate of candidates(configs) (configs: the warp
    counts it may take, `warps` alone when the kernel's hints fix them); after it, the
    options that won for the kernel's key and the arrays' shapes (shapes()); else
    _fitting_stages with the fixed options (launch(num_stages))."""
    trial = _OptionTrial.current
    chosen = kernel.__dict__.get("_c2t_chosen")
    if trial is None and not chosen:
        return _fitting_stages(kernel, key, launch)
    full_key = (key, shapes())
    if trial is not None:
        allowed = (warps,) if warps else (4, 8, 16)
        configs = [triton.Config({}, num_warps=w) for w in allowed]
        config = trial.candidate(kernel, full_key, lambda: candidates(configs))
    else:
        config = chosen.get(full_key)
    if config is None:
        return _fitting_stages(kernel, key, launch)
    constants = {name: value for name, value in config.kwargs.items() if name != "_loop_stages"}
    return launch(config.num_stages, config.num_warps, **constants)


# helper: _time_launch needs _pipeliner_failed
def _time_launch(launch, quantiles):
    """How @triton.autotune times one candidate (its do_bench): on the GPU, replays of a CUDA
    graph of the candidate's launches (Triton's do_bench_cudagraph), which leave the host's
    time per launch out. Timed one launch at a time (Triton's do_bench), a kernel of 10-60 us
    is bound by the 40-70 us of host time of the autotuner's launches, and every candidate
    takes about as long (on the H200: candidates 2x apart on the GPU timed within 10%, and the
    choice changed from run to run). The graph runs on a stream of its own, after everything
    queued before it (an atomic histogram counted some timed runs twice when its copies raced
    the launch before). Where capturing fails, do_bench. Under TRITON_INTERPRET=1,
    or with CUTILE2TRITON_AUTOTUNE=0 in the environment, nothing runs and every candidate takes
    0 ms, so the first one (the hand pick) is chosen. A pipelined candidate that Triton cannot
    compile (_pipeliner_failed) takes forever, as Triton's autotuner times a candidate that
    runs out of resources; the last candidate has 1 stage."""
    if INTERPRETED or os.environ.get("CUTILE2TRITON_AUTOTUNE", "1") == "0":
        return [0.0 for _ in quantiles]
    try:
        launch()  # compiles it: Triton's errors (out of resources, the pipeliner) come from here
        if not torch.cuda.is_current_stream_capturing():
            # the graph runs on a stream of its own: what this stream has queued (the launch
            # above, the copies of its arrays) must be done before it copies them again
            torch.cuda.synchronize()
            try:
                return triton.testing.do_bench_cudagraph(launch, rep=10, quantiles=quantiles)
            except RuntimeError:
                torch.cuda.synchronize()
        return triton.testing.do_bench(launch, quantiles=quantiles)
    except RuntimeError as error:
        if not _pipeliner_failed(error):
            raise
        return [float("inf") for _ in quantiles]


# helper: _tuning_copies
def _tuning_copies(nargs, reset_only, kept, written):
    """The pre_hook of @triton.autotune for a kernel that writes arrays (`kept` and `written`
    name its parameters; nargs holds the arguments of the launch being timed). Timing runs each
    candidate many times: the arrays it reads and writes (`kept`) are copied before each timed
    run and put back after (by the post_hook), as restore_value does. The arrays it only writes
    (`written`) are not, since each run writes them the same (copies of outputs were most of
    what each candidate of a 20 us layer norm took on the H200, so the fastest could not be
    told), unless one shares memory with another array argument (an in-place launch: then it
    is read too). A number given for an array parameter (one only a constexpr branch uses) is
    left as it is. Nothing is copied for the launch after tuning (reset_only)."""
    if reset_only:
        return

    def storages(value):
        if isinstance(value, torch.Tensor):
            yield value.untyped_storage().data_ptr()
        elif isinstance(value, (tuple, list)):
            for item in value:
                yield from storages(item)

    names = [name for name in kept if isinstance(nargs[name], torch.Tensor)]  # not a number given
    for name in written:
        if not isinstance(nargs[name], torch.Tensor):
            continue
        mine = nargs[name].untyped_storage().data_ptr()
        others = (ptr for other, value in nargs.items() if other != name for ptr in storages(value))
        if mine in others:
            names.append(name)
    # kept in nargs, the timed launch's own dict (the kernel is not given it)
    nargs["_copies_made"] = {name: nargs[name].clone() for name in names}


# helper: _restore_copies
def _restore_copies(nargs):
    """The post_hook of @triton.autotune that goes with the pre_hook that copies arrays: what
    it copied is put back after each timed run."""
    for name, copy in nargs.pop("_copies_made", {}).items():
        nargs[name].copy_(copy)
