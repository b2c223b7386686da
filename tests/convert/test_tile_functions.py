"""Tile functions and kernels as real modules write them: extra decorators on
kernels, tile functions imported from sibling modules, helper-library modules
without a kernel, one specialization per call signature, keyword arguments
and parameter defaults."""

import torch

# ------------------------------------------------------------- decorators

TAGGED = '''
import torch
import cuda.tile as ct

REGISTRY = {}


def register(name):
    def put(kernel):
        REGISTRY[name] = kernel
        return kernel
    return put


def tag(kernel):
    kernel.tagged_note = "tagged"
    return kernel


@register("triple")
@tag
@ct.kernel
def triple_kernel(x, y, T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=t * 3)


def triple(x):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), triple_kernel, (x, y, 16))
    return y
'''


def test_decorators_above_a_kernel_keep_their_effect(convert, device):
    mod = convert(TAGGED)
    assert mod.REGISTRY["triple"] is mod.triple_kernel
    assert mod.triple_kernel.tagged_note == "tagged"
    x = torch.randn(40, device=device)
    torch.testing.assert_close(mod.triple(x), x * 3)


def test_decorators_above_a_kernel_stay_in_order(convert_text):
    text = convert_text(TAGGED)
    assert '@register("triple")\n@tag\n@triton.jit' in text


def test_decorator_below_ct_kernel_is_refused(convert_error):
    message = convert_error('''
import cuda.tile as ct


def tag(fn):
    return fn


@ct.kernel
@tag
def k(x, T: ct.Constant[int]):
    ct.store(x, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(T,)))
''')
    assert "a decorator below @ct.kernel cannot be converted" in message


def test_decorator_using_cuda_tile_names_is_refused(convert_error):
    message = convert_error('''
import cuda.tile as ct


def typed(dtype):
    return lambda k: k


@typed(ct.float16)
@ct.kernel
def k(x, T: ct.Constant[int]):
    ct.store(x, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(T,)))
''')
    assert "uses cuda.tile names" in message
