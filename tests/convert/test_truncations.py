"""Silent truncations in the lowering (issue 7, brief H5).

* A number literal was copied into a 128-byte buffer: a longer literal was
  read cut (`0x` + 200 zeros + `10` read as 0, a float with 200 zeros after
  the point read as 0.0), giving a wrong shape or constant.
* A known tile dimension was stored with `(int)value`: 2**32 became 0. Past
  C2T_MAX_TILE_DIM (2**30) it is now a located error naming the limit.
* Errors raised on nodes the lowering built itself (a folded shape) or with
  no node were reported at 1:1; they are now located at the statement, or
  at the call.
"""

import torch

ZEROS = "0" * 200
TILE_DIM_LIMIT = 2**30

SHAPE_KERNEL = """
import cuda.tile as ct

N = 3

@ct.kernel
def k(x, y):
    t = ct.load(x, index=(ct.bid(0),), shape=({shape},))
    ct.store(y, index=(ct.bid(0),), tile=t)
"""


def copy_kernel_runs(mod, device, size=16):
    x = torch.arange(64, dtype=torch.float32, device=device)
    y = torch.zeros_like(x)
    mod.launch_k(0, (64 // size,), (x, y))
    assert torch.equal(x, y)


def test_long_hex_literal_is_read_whole(convert, device):
    copy_kernel_runs(convert(SHAPE_KERNEL.format(shape=f"0x{ZEROS}10")), device)


def test_long_float_literal_is_read_whole(convert, device):
    # 0.(200 zeros)16e202 == 16.0; cut at 128 bytes it read as 0.0
    copy_kernel_runs(convert(SHAPE_KERNEL.format(shape=f"int(0.{ZEROS}16e202)")), device)


def test_tile_dimension_at_the_limit_is_kept(convert_text):
    assert f"{TILE_DIM_LIMIT}" in convert_text(SHAPE_KERNEL.format(shape=f"{TILE_DIM_LIMIT}"))


def test_tile_dimension_past_32_bits_is_a_located_error(convert_error):
    for shape in (2**31, 2**32, 2**40):
        message = convert_error(SHAPE_KERNEL.format(shape=shape))
        assert message == f"C2T002: too many elements in one tile dimension: {shape} (limit is {TILE_DIM_LIMIT})", message


def located(stderr):
    import re
    found = re.search(r"^\S+:(\d+):(\d+): error: (.+)$", stderr, re.M)
    assert found, stderr
    return int(found.group(1)), int(found.group(2)), found.group(3)


def test_folded_shape_error_is_at_its_statement(tmp_path):
    import subprocess
    import ops_common
    src = tmp_path / "folded.py"
    src.write_text(SHAPE_KERNEL.format(shape="N * 2"))
    proc = subprocess.run([str(ops_common.CONVERTER), str(src)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    line, col, message = located(proc.stderr)
    assert "tile dimensions must be powers of two, not 6" in message
    assert (line, col) == (8, 5), proc.stderr  # the `t = ct.load(...)` statement, not 1:1


def test_float_constant_to_int_error_is_at_the_call(tmp_path):
    import subprocess
    import ops_common
    src = tmp_path / "astype.py"
    src.write_text("import cuda.tile as ct\n\n@ct.kernel\ndef k(x, y):\n"
                   "    t = ct.load(x, index=(ct.bid(0),), shape=(16,))\n"
                   "    ct.store(y, index=(ct.bid(0),), tile=t + ct.astype(1e300, ct.int32))\n")
    proc = subprocess.run([str(ops_common.CONVERTER), str(src)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    line, col, message = located(proc.stderr)
    assert "a float constant outside the integer range" in message
    assert (line, col) == (6, 46), proc.stderr


ACCESSES_LIMIT = 64


def many_loads(count):
    loads = " + ".join(["ct.load(x, index=(ct.bid(0),), shape=(16,))"] * count)
    return ("import cuda.tile as ct\n\n@ct.kernel\ndef k(x, y):\n"
            f"    t = {loads}\n    ct.store(y, index=(ct.bid(0),), tile=t)\n")


def test_memory_accesses_in_one_statement_at_the_limit_convert(convert_text):
    assert "@triton.jit" in convert_text(many_loads(ACCESSES_LIMIT))


def test_memory_accesses_past_the_limit_are_a_located_error(convert_error):
    # they were dropped silently from the ordering pass (no barrier for them)
    message = convert_error(many_loads(ACCESSES_LIMIT + 1))
    assert message == f"C2T002: too many memory accesses in one statement (limit is {ACCESSES_LIMIT})", message
