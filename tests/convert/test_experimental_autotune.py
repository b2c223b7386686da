"""cuda.tile_experimental.autotune_launch: cuTile's first host autotuner (deprecated for
cuda.tile.tune.exhaustive_search, still in public code).

It samples up to max_iter configurations of the search space, times each launch
(grid_fn(cfg), the kernel with hints_fn(cfg), args_fn(cfg)), launches the fastest with
launch_args_fn(cfg) (else args_fn(cfg)) and keeps the choice per kernel and key (by
default the arguments' shapes, dtypes and strides); clear_autotune_cache forgets it. The
converted module does the same with the converted kernels (tune_helpers.py:
_autotune_launch); under TRITON_INTERPRET=1 nothing is timed and the first configuration
that runs wins, so the timing path is simulated here. The module used to keep the import of
cuda.tile_experimental and hand it a Triton kernel: exit 0, broken at the first call.
"""

from types import SimpleNamespace

import pytest
import torch
import triton

KERNEL = '''
import torch
import cuda.tile as ct
{imports}
from types import SimpleNamespace


@ct.kernel
def scale(x, y, TILE: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)) * 2)
'''

RUN = '''

def run(x, y, scratch, **search):
{local}    return {tuner}(
        torch.cuda.current_stream(),
        grid_fn=lambda cfg: (ct.cdiv(x.shape[0], cfg.tile),),
        kernel=scale,
        args_fn=lambda cfg: (x, scratch, cfg.tile),
        launch_args_fn=lambda cfg: (x, y, cfg.tile),
        hints_fn=lambda cfg: {{"occupancy": cfg.occupancy}},
        search_space=[SimpleNamespace(tile=t, occupancy=o) for t in (16, 32) for o in (1, 2)],
        **search,
    )


def forget(**which):
    {clear}(**which)
'''

FORMS = {
    "module alias": ("import cuda.tile_experimental as ct_experimental", "",
                     "ct_experimental.autotune_launch", "ct_experimental.clear_autotune_cache"),
    "names": ("from cuda.tile_experimental import autotune_launch, clear_autotune_cache", "",
              "autotune_launch", "clear_autotune_cache"),
    "from cuda": ("from cuda import tile_experimental as cte", "", "cte.autotune_launch",
                  "cte.clear_autotune_cache"),
    "dotted": ("import cuda.tile_experimental", "", "cuda.tile_experimental.autotune_launch",
               "cuda.tile_experimental.clear_autotune_cache"),
    "in the function": ("", "    import cuda.tile_experimental as ct_experimental\n",
                        "ct_experimental.autotune_launch", "_forget_all"),
    "guarded": ("try:\n    import cuda.tile_experimental as ct_experimental\nexcept ImportError:\n"
                "    ct_experimental = None", "", "ct_experimental.autotune_launch",
                "ct_experimental.clear_autotune_cache"),
}


def _source(form):
    imports, local, tuner, clear = FORMS[form]
    source = KERNEL.format(imports=imports) + RUN.format(local=local, tuner=tuner, clear=clear)
    if clear == "_forget_all":
        source += '''

def _forget_all(**which):
    from cuda.tile_experimental import clear_autotune_cache
    clear_autotune_cache(**which)
'''
    return source


@pytest.mark.parametrize("form", sorted(FORMS))
def test_autotune_launch_launches_the_kernel_and_keeps_its_choice(convert, convert_text, form):
    text = convert_text(_source(form))
    assert "tile_experimental" not in text.split("@triton.jit")[0].replace("ct_experimental = None", "")
    assert "fixed launch options, not autotuned: the module times its kernels " \
           "(cuda.tile_experimental.autotune_launch)" in text
    mod = convert(_source(form))
    x, y, scratch = torch.randn(64), torch.zeros(64), torch.zeros(64)
    first = mod.run(x, y, scratch, seed=0)
    assert torch.equal(y, x * 2)  # launch_args_fn's arrays: the launch that counts
    assert torch.equal(scratch, x * 2)  # args_fn's: the timed launch
    assert first.cache_hit is False and first.tuned_config.tile in (16, 32)
    assert first.grid == (64 // first.tuned_config.tile,)
    assert [config for config, _ in first.tuning_record] == [first.tuned_config]  # the CPU: first that runs
    y.zero_()
    again = mod.run(x, y, scratch)
    assert again.cache_hit is True and again.tuned_config is first.tuned_config and torch.equal(y, x * 2)
    x2, y2, scratch2 = torch.randn(128), torch.zeros(128), torch.zeros(128)
    assert mod.run(x2, y2, scratch2).cache_hit is False and torch.equal(y2, x2 * 2)  # another shape
    assert mod.run(x, y, scratch, force_retune=True).cache_hit is False
    mod.forget(kernel=mod.scale)
    assert mod.run(x, y, scratch).cache_hit is False
    mod.forget()
    assert mod.run(x2, y2, scratch2).cache_hit is False
    with pytest.raises(ValueError, match="key must be None when kernel is None"):
        mod.forget(key=1)


def test_autotune_launch_times_a_sample_and_launches_the_fastest(convert, capsys):
    """On the GPU: max_iter configurations of the space, each timed with the kernel's fixed
    options; the two fastest also with its other launch candidates; the fastest launched.
    A configuration Triton cannot compile is skipped. The GPU's timing is simulated: each
    configuration has a cost, None for one that does not compile."""
    mod = convert(KERNEL.format(imports="import cuda.tile_experimental as ct_experimental") + '''

def run(x, args_fn, space, **search):
    return ct_experimental.autotune_launch(
        0, lambda cfg: (ct.cdiv(x.shape[0], cfg.tile),), scale, args_fn, search_space=space, **search)
''')
    mod.INTERPRETED = False
    x, y = torch.randn(64), torch.zeros(64)
    asked, timed = [], []

    def args_fn(cfg):
        asked.append(cfg)
        return x, y, cfg.tile

    def launch_time_us(stream, grid, kernel, get_args, flush_l2, warmup, repeats):
        assert (flush_l2, warmup, repeats) == (False, 2, 10)  # as cuTile's autotune_launch times
        args = get_args()
        config = asked[-1]
        if config.cost is None:
            raise triton.runtime.errors.OutOfResources(300000, 232448, "shared memory")
        mod.ct_launch(stream, grid, kernel, args)
        timed.append(config)
        return float(config.cost)

    mod._launch_time_us = launch_time_us
    space = [SimpleNamespace(tile=16 if i % 2 else 32, cost=100 - i) for i in range(40)]
    space.append(SimpleNamespace(tile=16, cost=None))
    result = mod.run(x, args_fn, space, max_iter=8, seed=5)
    sampled = [config for config, _ in result.tuning_record]
    assert len(sampled) <= 8 and len(set(map(id, sampled))) == len(sampled)
    assert all(any(c is s for s in space) for c in sampled)
    assert len(timed) > len(sampled)  # the two fastest again, with the other launch candidates
    assert result.tuned_config is min(sampled, key=lambda c: c.cost)
    assert result.tuning_record[sampled.index(result.tuned_config)][1] == result.tuned_config.cost / 1000.0
    assert asked[-1] is result.tuned_config and torch.equal(y, x * 2)  # the launch after the search
    # a small space is timed whole (in a random order); the configuration that fails is skipped
    small = space[:3] + space[-1:]
    result = mod.run(x, args_fn, lambda: iter(small), seed=1, force_retune=True)
    assert sorted(c.cost for c, _ in result.tuning_record) == [98, 99, 100]
    assert result.tuned_config is space[2]
    with pytest.raises(ValueError, match="No valid config found"):
        mod.run(x, args_fn, space[-1:], force_retune=True)
    with pytest.raises(ValueError, match="at least 1 configuration"):
        mod.run(x, args_fn, [])
    capsys.readouterr()


@pytest.mark.parametrize("use, named", [
    ("ct_experimental.compiler_timeout(10)", "cuda.tile_experimental.compiler_timeout"),
    ("ct_experimental._autotuner.logger", "cuda.tile_experimental._autotuner.logger"),
    ("ct_experimental", "the cuda.tile_experimental module itself"),
    ("[ct_experimental] is None", "the cuda.tile_experimental module itself"),
])
def test_other_uses_of_the_experimental_package_are_located_errors(convert_error, use, named):
    message = convert_error(KERNEL.format(imports="import cuda.tile_experimental as ct_experimental") +
                            f"\n\ndef f():\n    return {use}\n")
    assert message.startswith("C2T403: host code uses ") and named in message


def test_an_optional_import_of_the_experimental_package(convert, convert_text):
    """NVIDIA's AttentionFMHA sample (January 2026): `try: import cuda.tile_experimental as
    ct_experimental` / `except ImportError: ct_experimental = None`, then `if ct_experimental is
    None:` before autotuning. The converted module has autotune_launch, so the import counts as
    made: the test is False (a comment says what it was) and the try statement goes, with the
    comments inside it."""
    source = KERNEL.format(imports='''try:
    import cuda.tile_experimental as ct_experimental
except ImportError:  # an older cuTile
    ct_experimental = None''') + '''

def run(x, y):
    if ct_experimental is None:
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), scale, (x, y, 16))
        return None
    return ct_experimental.autotune_launch(
        torch.cuda.current_stream(),
        grid_fn=lambda cfg: (ct.cdiv(x.shape[0], cfg.tile),),
        kernel=scale,
        args_fn=lambda cfg: (x, y, cfg.tile),
        search_space=[SimpleNamespace(tile=t) for t in (16, 32)],
    )
'''
    text = convert_text(source)
    assert "\ntry:" not in text and "an older cuTile" not in text and "ct_experimental = None" not in text
    assert "    if False:  # was `ct_experimental is None`: the converted module has what the import gave\n" in text
    mod = convert(source)
    x, y = torch.randn(64), torch.zeros(64)
    tuned = mod.run(x, y)
    assert tuned is not None and tuned.tuned_config.tile in (16, 32) and torch.equal(y, x * 2)
