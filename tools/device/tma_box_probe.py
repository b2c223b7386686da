#!/usr/bin/env python3
"""Tensor-descriptor tiles wider than TMA's box (256 elements a dimension) on the GPU.

Triton 3.6 compiles a descriptor block over 256 elements a dimension as several boxes
(a 128 x 512 float16 block: boxes of 128 x 64). The converter takes descriptors for such
tiles; this checks, on the GPU, that loads and stores through them (made on the host, as
the launcher makes them, and in the kernel) move the same elements as torch, edges and
out-of-bounds rows included, and times a loop of loads both ways (descriptor, pointers).

    python3 tools/device/tma_box_probe.py     # prints one line a case; exit 1 on a mismatch
"""
import sys

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


@triton.jit
def _copy_host(src_desc, dst_desc, BM: tl.constexpr, BN: tl.constexpr):
    m, n = tl.program_id(0), tl.program_id(1)
    tile = src_desc.load([m * BM, n * BN])
    dst_desc.store([m * BM, n * BN], tile + 1)


@triton.jit
def _copy_device(src, dst, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src_desc = tl.make_tensor_descriptor(src, [M, N], [N, 1], [BM, BN])
    dst_desc = tl.make_tensor_descriptor(dst, [M, N], [N, 1], [BM, BN])
    m, n = tl.program_id(0), tl.program_id(1)
    tile = src_desc.load([m * BM, n * BN])
    dst_desc.store([m * BM, n * BN], tile + 1)


@triton.jit
def _row_sums(src, out, M, N, BM: tl.constexpr, BN: tl.constexpr, USE_TMA: tl.constexpr):
    m = tl.program_id(0)
    acc = tl.zeros([BM, BN], tl.float32)
    if USE_TMA:
        desc = tl.make_tensor_descriptor(src, [M, N], [N, 1], [BM, BN])
        for n in range(0, tl.cdiv(N, BN)):
            acc += desc.load([m * BM, n * BN]).to(tl.float32)
    else:
        rows = m * BM + tl.arange(0, BM)
        for n in range(0, tl.cdiv(N, BN)):
            cols = n * BN + tl.arange(0, BN)
            mask = (rows[:, None] < M) & (cols[None, :] < N)
            acc += tl.load(src + rows[:, None] * N + cols[None, :], mask=mask, other=0).to(tl.float32)
    rows = m * BM + tl.arange(0, BM)
    tl.store(out + rows, tl.sum(acc, 1), mask=rows < M)


def _alloc(size, alignment, stream):
    return torch.empty(size, dtype=torch.int8, device="cuda")


def main():
    triton.set_allocator(_alloc)
    failures = 0
    cases = [((300, 1000), torch.float16, (128, 512)), ((1000, 100), torch.float32, (512, 32)),
             ((96, 3000), torch.bfloat16, (16, 1024)), ((700, 704), torch.float16, (512, 256))]
    for shape, dtype, (bm, bn) in cases:
        src = torch.randn(shape, device="cuda").to(dtype)
        want = src + 1
        grid = (triton.cdiv(shape[0], bm), triton.cdiv(shape[1], bn))
        for way in ("host", "device"):
            dst = torch.zeros_like(src)
            if way == "host":
                _copy_host[grid](TensorDescriptor.from_tensor(src, [bm, bn]), TensorDescriptor.from_tensor(dst, [bm, bn]),
                                 bm, bn)
            else:
                _copy_device[grid](src, dst, shape[0], shape[1], bm, bn)
            torch.cuda.synchronize()
            same = torch.equal(dst, want)
            failures += not same
            print(f"{way:6} {str(dtype):14} {shape} block {bm}x{bn}: {'same' if same else 'DIFFERENT'}")
    src = torch.randn(4096, 8192, device="cuda", dtype=torch.float16)
    want = src.float().sum(1)
    for tma in (True, False):
        out = torch.empty(4096, device="cuda")
        run = lambda: _row_sums[(4096 // 128,)](src, out, 4096, 8192, 128, 512, tma, num_warps=8, num_stages=1)
        run()
        close = torch.allclose(out, want, rtol=1e-3, atol=1e-2)
        failures += not close
        ms = triton.testing.do_bench(run)
        print(f"row sums 4096x8192 f16, 128x512 tiles, {'descriptor' if tma else 'pointers  '}: "
              f"{'same' if close else 'DIFFERENT'}, {ms * 1e3:.1f} us, {src.numel() * 2 / ms / 1e6:.0f} GB/s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
