#!/usr/bin/env python3
"""A small transformer-style block in PyTorch, with tilec's fused kernels.

    residual + RMSNorm  ->  up projection + bias + GELU

`--tilec LIB` swaps in torch.ops.tilec.{rmsnorm, matmul_tma_bias_gelu} from
LIB, the extension that scripts/gpu-torch.sh builds from examples/*.tile
(tilec --emit=torch, docs/pytorch.md): rmsnorm (f16, one program per row),
PyTorch's cast of its output to bf16, then one kernel for GEMM + bias + GELU
(A and B through TMA descriptors, the bias and GELU on the f32 accumulator).
It checks the output against eager PyTorch and prints the end-to-end time of
eager, torch.compile and tilec. Attention joins once tilec has it.
"""

import argparse
import time

import torch
import torch.nn.functional as F

# matmul_tma_bias_gelu's tile: 128 rows by BLOCK_N (256 unless compiled with
# --param BLOCK_N=128) columns of C per program; the kernel declares no grid
# rule (its BLOCK_N is a tile.params value), so the caller gives the grid.
BLOCK_M, BLOCK_N = 128, 256


def cdiv(a, b):
    return (a + b - 1) // b


def block_eager(x, r, w, w1, b1, eps):
    """The same computation as block_tilec: the normed rows rounded to bf16,
    then gelu(y @ w1 + b1) with the bias added before rounding (addmm)."""
    h = x + r
    hf = h.float()
    y = hf * torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + eps) * w.float()
    return h, F.gelu(torch.addmm(b1, y.to(torch.bfloat16), w1))


def block_tilec(x, r, w, w1, b1, eps):
    ops = torch.ops.tilec
    rows, cols = x.shape
    n = w1.shape[1]
    h, y = torch.empty_like(x), torch.empty_like(x)
    ops.rmsnorm(x, r, w, h, y, cols, eps, [rows])       # one row per program
    # The one cast: rmsnorm writes f16 (its example's type), the GEMM reads
    # bf16.
    a = y.to(torch.bfloat16)
    out = torch.empty(rows, n, device=x.device, dtype=torch.bfloat16)
    ops.matmul_tma_bias_gelu(a, w1, out, b1, rows, n, cols, n,
                             [cdiv(rows, BLOCK_M), cdiv(n, BLOCK_N)])
    return h, out


def ms_per_call(fn, args, calls=50, rounds=5):
    """Milliseconds per call, the best of `rounds` runs of `calls` calls each
    (the GPU kept busy: a synchronize only around each run)."""
    fn(*args)
    best = float("inf")
    for _ in range(rounds):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - start) / calls * 1e3)
    return best


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tilec", metavar="LIB", help="the built extension (.so)")
    p.add_argument("--rows", type=int, default=4096)
    p.add_argument("--cols", type=int, default=1024)
    p.add_argument("--hidden", type=int, default=4096)
    a = p.parse_args()
    torch.manual_seed(0)
    dev, eps = "cuda", 1e-6
    x = torch.randn(a.rows, a.cols, device=dev, dtype=torch.float16)
    r = torch.randn_like(x)
    w = torch.randn(a.cols, device=dev, dtype=torch.float16)
    w1 = (torch.randn(a.cols, a.hidden, device=dev) / a.cols ** 0.5).to(torch.bfloat16)
    b1 = torch.randn(a.hidden, device=dev, dtype=torch.bfloat16)
    args = (x, r, w, w1, b1, eps)
    times = {"eager": ms_per_call(block_eager, args),
             "torch.compile": ms_per_call(torch.compile(block_eager), args)}
    ok = True
    if a.tilec:
        torch.ops.load_library(a.tilec)
        h, out = block_tilec(*args)
        th, tout = block_eager(*args)
        err = ((out.float() - tout.float()).norm() / tout.float().norm()).item()
        ok = torch.equal(h, th) and err < 2e-2
        print(f"{'PASS' if ok else 'FAIL'} block {a.rows}x{a.cols}->{a.hidden}: "
              f"residual {'equal' if torch.equal(h, th) else 'differs'}, "
              f"norm rel err {err:.3g}")
        times["tilec"] = ms_per_call(block_tilec, args)
    for name, ms in times.items():
        print(f"block end to end: {name}: {ms:.3f} ms")
    if "tilec" in times:
        # The target, reported but not an error: the exit status is
        # the numerical check's.
        met = times["tilec"] <= times["torch.compile"]
        print(f"target {'met' if met else 'missed'}: tilec "
              f"{times['tilec']:.3f} ms vs torch.compile "
              f"{times['torch.compile']:.3f} ms "
              f"({times['tilec'] / times['torch.compile']:.2f}x)")
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
