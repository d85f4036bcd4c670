#!/usr/bin/env python3
"""A small transformer-style block in PyTorch, with tilec's fused kernels.

    residual + RMSNorm  ->  up projection (matmul)  ->  bias + GELU

`--tilec LIB` swaps in torch.ops.tilec.{rmsnorm, matmul, bias_gelu} from
LIB, the extension that scripts/gpu-torch.sh builds from examples/*.tile
(tilec --emit=torch, docs/pytorch.md), checks the output against eager
PyTorch and prints the end-to-end time of eager, torch.compile and tilec.
Attention joins once tilec has it.
"""

import argparse
import time

import torch
import torch.nn.functional as F


def block_eager(x, r, w, w1, b1, eps):
    h = x + r
    hf = h.float()
    y = (hf * torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + eps) * w.float())
    c = y.to(torch.bfloat16) @ w1
    return h, F.gelu(c.float() + b1.float()).to(torch.bfloat16)


def block_tilec(x, r, w, w1, b1, eps):
    ops = torch.ops.tilec
    rows, cols = x.shape
    n = w1.shape[1]
    h, y = torch.empty_like(x), torch.empty_like(x)
    ops.rmsnorm(x, r, w, h, y, cols, eps, [rows])       # one row per program
    a = y.to(torch.bfloat16)
    c = torch.empty(rows, n, device=x.device, dtype=torch.bfloat16)
    ops.matmul(a, w1, c, rows, n, cols, cols, n, n)      # grid from tile.grid
    out = torch.empty_like(c)
    ops.bias_gelu(c, b1, out, rows * n, n)
    return h, out


def ms_per_call(fn, args, calls=50):
    fn(*args)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn(*args)
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls * 1e3


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
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
