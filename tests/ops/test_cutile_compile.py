"""Compile every corpus module with the real cuda.tile front end and tileiras, no GPU needed.

Each case runs the module's host function on CPU tensors with ct.launch replaced
by cuda.tile.compilation.export_kernel (see cutile_check.py), for sm_90 and
sm_100.  Skipped when cuda.tile or its tileiras back end is not installed
(`pip install cuda-tile nvidia-cuda-tileiras`).  Not selected by
-k "test_op and triton".
"""

import importlib.util

import pytest

from cutile_cases import COMPILE_CASES


def _skip_reason():
    if importlib.util.find_spec("cuda") is None or importlib.util.find_spec("cuda.tile") is None:
        return "cuda.tile not installed"
    try:
        from cuda.tile._compile import _find_compiler_bin
        _find_compiler_bin()
    except Exception as e:
        return f"tileiras not available: {e}"
    return None


@pytest.mark.parametrize("case_id", list(COMPILE_CASES))
def test_cutile_compiles(case_id):
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    from cutile_check import compile_host_call, load_module
    mod_name, fn_name, make_args = COMPILE_CASES[case_id]
    args, kwargs = make_args()
    launches = compile_host_call(getattr(load_module(mod_name), fn_name), *args, **kwargs)
    assert launches, "host function launched nothing"
    for launch in launches:
        assert all(size > 0 for size in launch.outputs.values())
