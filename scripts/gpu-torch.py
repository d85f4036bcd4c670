#!/usr/bin/env python3
"""tilec's generated PyTorch operators on the GPU (scripts/gpu-torch.sh runs it).

Builds one extension from every SOURCES/*_torch.cpp (tilec --emit=torch),
then checks, printing one PASS/FAIL line each:
  - every example operator against its PyTorch equivalent on random ragged
    inputs (outputs poisoned with NaN first);
  - bad arguments raise RuntimeError with the generated message;
  - a descriptor operator's refusals (dtype, rank, the TMA's stride and
    alignment rules), on CUDA and on meta tensors;
  - examples/torch/block.py's block (residual + RMSNorm with bf16 rows ->
    GEMM + bias + GELU through descriptors) gives the same results eagerly,
    replayed from a CUDA graph and under torch.compile(fullgraph=True);
  - examples/torch/attention.py's flash attention with autograd (the
    forward operator, the three backward kernels) against an f32
    reference's output and gradients, eagerly and under
    torch.compile(fullgraph=True);
  - the kernels above the backends: with grad mode on, a tensor that
    requires grad is refused (no backward), under no_grad and inference
    mode it is not; the version counter of the written tensor, and only
    its, is bumped;
  - torch.compile(fullgraph=True, dynamic=True) of an operator call on
    several sizes;
  - host microseconds per call of a tiny operator beside torch.add (and a
    Triton kernel when Triton imports), the two timed in interleaved rounds.
Exits 1 on any failure.

--meta-only: on a machine without a GPU (PyTorch installed, no CUDA device),
build the extension and run only what needs no device, on meta and CPU
tensors: the dispatch checks above, the refusal of a CPU tensor, and
torch.compile (backend aot_eager) on meta tensors, static and dynamic.
"""

import argparse
import glob
import importlib
import os
import sys
import time

import torch
import torch.nn.functional as F
from torch.utils.cpp_extension import load

results = []


def report(name, ok, detail=""):
    results.append((name, ok))
    print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}",
          flush=True)


def close(name, got, want, rtol):
    """Norm-wise relative error, and every element written (finite)."""
    got = got.float()
    want = want.float()
    if not torch.isfinite(got).all():
        bad = (~torch.isfinite(got)).sum().item()
        report(name, False, f"{bad} of {got.numel()} elements not finite "
                            "(unwritten or wrong)")
        return
    err = ((got - want).norm() / max(want.norm().item(), 1e-30)).item()
    report(name, err <= rtol, f"norm rel err {err:.3g} (tolerance {rtol:g})")


def poisoned(*shape, dtype, device="cuda"):
    return torch.full(shape, float("nan"), dtype=dtype, device=device)


def build(args):
    sources = sorted(glob.glob(os.path.join(args.sources, "*_torch.cpp")))
    if not sources:
        report("build", False, f"no *_torch.cpp in {args.sources}")
        sys.exit(1)
    os.makedirs(args.build, exist_ok=True)
    start = time.time()
    try:
        load(name="tilec_ops", sources=sources,
             extra_include_paths=[args.include],
             extra_cflags=["-O2", "-std=c++20"],
             extra_ldflags=[f"-L{args.lib}", "-lTilecRuntime",
                            "-lTilecSupport", "-lTilecChip", "-ldl"],
             with_cuda=True, is_python_module=False,
             build_directory=args.build, verbose=False)
    except Exception as e:  # the compiler's output is in the exception
        report("build", False, str(e)[-3000:])
        sys.exit(1)
    report("build", True, f"{len(sources)} sources in {time.time() - start:.1f} s")
    return [os.path.basename(s)[:-len("_torch.cpp")] for s in sources]


def attention_f32(q, k, v, causal):
    """SDPA with grouped-query heads (k and v repeated over each group) in
    the tensors' precision at head_dim 128: (output, scaled scores)."""
    g = q.shape[1] // k.shape[1]
    kr, vr = k.repeat_interleave(g, 1), v.repeat_interleave(g, 1)
    scores = (q @ kr.transpose(-1, -2)) * 128 ** -0.5
    if causal:
        s = q.shape[2]
        mask = torch.ones(s, s, device=q.device, dtype=torch.bool).tril()
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, -1) @ vr, scores


def check_operators(ops, have):
    dev = "cuda"
    if "add" in have:
        n = 3001
        x, y = torch.randn(n, device=dev), torch.randn(n, device=dev)
        # The default overload allocates z (tile.shape "n"), the out
        # overload writes the one given.
        z = ops.add(x, y, n)
        close("add 3001 (z allocated)", z, x + y, 1e-6)
        report("add allocates z: n float32 elements, contiguous, on x's device",
               z.shape == (n,) and z.dtype == torch.float32 and
               z.device == x.device and z.is_contiguous(),
               f"{tuple(z.shape)} {z.dtype} {z.device}")
        zo = poisoned(n, dtype=torch.float32)
        ops.add.out(x, y, zo, n)
        close("add.out 3001", zo, x + y, 1e-6)
        guarded = poisoned(n + 7, dtype=torch.float32)
        ops.add.out(x[:n], y, guarded[:n], n)
        report("add.out into a view leaves the rest",
               bool(torch.isnan(guarded[n:]).all()))
        empty = torch.empty(0, device=dev)
        # no programs: nothing launched
        report("add of 0 elements", ops.add(empty, empty, 0).shape == (0,))
        ops.add.out(empty, empty, empty, 0)
        report("add.out of 0 elements", True)
    for name, ref in (("cos", torch.cos), ("coscos", lambda t: torch.cos(torch.cos(t)))):
        if name in have:
            n = 5000
            x = torch.randn(n, device=dev) * 10
            y = getattr(ops, name)(x, n)  # allocated: tile.shape "n"
            close(f"{name} {n}", y, ref(x), 1e-5)
    for name, act in (("bias_gelu", F.gelu), ("bias_relu", F.relu)):
        if name in have:
            m, n = 37, 400
            x = torch.randn(m, n, device=dev, dtype=torch.bfloat16)
            b = torch.randn(n, device=dev, dtype=torch.bfloat16)
            y = poisoned(m, n, dtype=torch.bfloat16)
            getattr(ops, name)(x, b, y, m * n, n)
            close(f"{name} {m}x{n}", y, act(x.float() + b.float()), 1e-2)
    if "softmax" in have:
        rows, cols = 37, 400
        x = torch.randn(rows, cols, device=dev)
        y = poisoned(rows, cols, dtype=torch.float32)
        ops.softmax(x, y, cols, [rows])
        close(f"softmax {rows}x{cols}", y, torch.softmax(x, -1), 1e-5)
    if "layernorm" in have:
        rows, cols, eps = 33, 1008, 1e-5
        x = torch.randn(rows, cols, device=dev, dtype=torch.float16)
        w = torch.randn(cols, device=dev, dtype=torch.float16)
        b = torch.randn(cols, device=dev, dtype=torch.float16)
        y = poisoned(rows, cols, dtype=torch.float16)
        ops.layernorm(x, w, b, y, cols, eps, [rows])
        want = F.layer_norm(x.float(), (cols,), w.float(), b.float(), eps)
        close(f"layernorm {rows}x{cols}", y, want, 2e-3)
    # rmsnorm writes its normed rows as f16, rmsnorm_bf16 as bf16.
    for name, ydtype, tol in (("rmsnorm", torch.float16, 2e-3),
                              ("rmsnorm_bf16", torch.bfloat16, 1e-2)):
        if name not in have:
            continue
        rows, cols, eps = 33, 1008, 1e-6
        x = torch.randn(rows, cols, device=dev, dtype=torch.float16)
        r = torch.randn(rows, cols, device=dev, dtype=torch.float16)
        w = torch.randn(cols, device=dev, dtype=torch.float16)
        h = poisoned(rows, cols, dtype=torch.float16)
        y = poisoned(rows, cols, dtype=ydtype)
        getattr(ops, name)(x, r, w, h, y, cols, eps, [rows])
        hf = (x + r).float()
        want = hf * torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + eps) * w.float()
        report(f"{name} residual", torch.equal(h, x + r))
        close(f"{name} {rows}x{cols}", y, want, tol)
    if "matmul" in have:
        # Ragged sizes; row strides padded to the kernel's 16-element hint.
        m, n, k = 200, 130, 77
        lda, ldb, ldc = 80, 144, 144
        a = torch.randn(m, lda, device=dev, dtype=torch.bfloat16)
        b = torch.randn(k, ldb, device=dev, dtype=torch.bfloat16)
        c = poisoned(m, ldc, dtype=torch.bfloat16)
        # Views with dense rows: sizes and row strides from the tensors.
        ops.matmul.out(a[:, :k], b[:, :n], c[:, :n])
        want = a[:, :k].float() @ b[:, :n].float()
        close(f"matmul {m}x{n}x{k} (views, tile.from)", c[:, :n], want, 1e-2)
        report(f"matmul {m}x{n}x{k} leaves C's padding",
               bool(torch.isnan(c[:, n:].float()).all()))
        made = ops.matmul(a[:, :k], b)  # allocated: m x ldb, rows of 144
        close(f"matmul {m}x{ldb}x{k} (allocating)", made,
              a[:, :k].float() @ b.float(), 1e-2)
    if "matmul_tma_bias_gelu" in have:
        # Descriptors: A and B are any 2-D bf16 tensors the TMA can read
        # (here A a column slice of a wider tensor, rows 128 elements
        # apart); M and N ragged against the 128 x 256 tile, K against 64.
        # C is a row-padded M x ldc tensor, bias N elements.
        for m, n, k, lda, ldc in ((333, 400, 120, 128, 400), (77, 48, 520, 520, 64),
                                  (1000, 1040, 64, 64, 1040)):
            a = torch.randn(m, lda, device=dev, dtype=torch.bfloat16)[:, :k]
            b = torch.randn(k, n, device=dev, dtype=torch.bfloat16)
            bias = torch.randn(n, device=dev, dtype=torch.bfloat16)
            c = poisoned(m, ldc, dtype=torch.bfloat16)
            # The grid is the kernel's rule (cdiv(M, 128), cdiv(N, BLOCK_N)).
            ops.matmul_tma_bias_gelu.out(a, b, c[:, :n], bias)
            want = F.gelu(a.float() @ b.float() + bias.float())
            close(f"matmul_tma_bias_gelu {m}x{n}x{k} (A strided, C padded)",
                  c[:, :n], want, 1e-2)
            close(f"matmul_tma_bias_gelu {m}x{n}x{k} (allocating)",
                  ops.matmul_tma_bias_gelu(a, b, bias), want, 1e-2)
            if ldc > n:
                report(f"matmul_tma_bias_gelu {m}x{n}x{k} leaves C's padding",
                       bool(torch.isnan(c[:, n:].float()).all()))
    if "attention_tma_d128_n128" in have:
        # Flash attention through descriptors, every integer from the
        # tensors (tile.from; group = q.size(1) / k.size(1)), o and lse
        # allocated; ragged seq, grouped-query heads, causal and not; then
        # .out into a [batch, seq, heads * 128] layout, and a head count
        # that does not divide.
        op = ops.attention_tma_d128_n128
        for bsz, h, hkv, s in ((2, 4, 2, 1000), (1, 3, 3, 129)):
            q = torch.randn(bsz, h, s, 128, device=dev, dtype=torch.bfloat16)
            k = torch.randn(bsz, hkv, s, 128, device=dev, dtype=torch.bfloat16)
            v = torch.randn(bsz, hkv, s, 128, device=dev, dtype=torch.bfloat16)
            for causal in (False, True):
                what = f"attention B{bsz} H{h} Hkv{hkv} S{s} causal={causal}"
                want, scores = attention_f32(q.float(), k.float(), v.float(),
                                             causal)
                o, lse = op(q, k, v, 128 ** -0.5, causal)
                close(f"{what} (o allocated)", o, want, 1e-2)
                close(f"{what} lse", lse, torch.logsumexp(scores, -1), 1e-4)
                report(f"{what}: o and lse allocated as [B, H, S, 128] bf16 "
                       "and [B, H, S] f32",
                       o.shape == q.shape and o.dtype == q.dtype and
                       lse.shape == (bsz, h, s) and lse.dtype == torch.float32,
                       f"{tuple(o.shape)} {o.dtype} {tuple(lse.shape)} {lse.dtype}")
            rows = poisoned(bsz, s, h * 128, dtype=torch.bfloat16)
            lse = poisoned(bsz, h, s, dtype=torch.float32)
            op.out(q, k, v, rows.view(bsz, s, h, 128).transpose(1, 2), lse,
                   128 ** -0.5, True)
            close(f"attention B{bsz} H{h} S{s} .out into [B, S, H * 128] rows",
                  rows.view(bsz, s, h, 128).transpose(1, 2), want, 1e-2)
        q = torch.randn(1, 4, 64, 128, device=dev, dtype=torch.bfloat16)
        k3 = torch.randn(1, 3, 64, 128, device=dev, dtype=torch.bfloat16)
        expect_error("attention refuses heads that do not divide",
                     lambda: op(q, k3, k3, 1.0, False),
                     'group is tile.from "q.size(1) / k.size(1)", which needs '
                     'a whole quotient, but 4 / 3 is not one')


def expect_error(name, fn, text):
    try:
        fn()
    except RuntimeError as e:
        message = str(e).splitlines()[0]
        report(name, text in message, message)
        return
    report(name, False, "no RuntimeError")


def check_refusals(ops, have):
    if "add" not in have:
        return
    dev = "cuda"
    n = 1000
    x, y, z = (torch.randn(n, device=dev) for _ in range(3))
    expect_error("refuses a wrong dtype",
                 lambda: ops.add.out(x.half(), y, z, n), "x must be torch.float32")
    expect_error("refuses a wrong dtype before allocating",
                 lambda: ops.add(x.half(), y, n), "x must be torch.float32")
    expect_error("refuses a CPU tensor",
                 lambda: ops.add.out(x.cpu(), y.cpu(), z.cpu(), n),
                 "x must be a CUDA tensor")
    expect_error("refuses CPU inputs before allocating",
                 lambda: ops.add(x.cpu(), y.cpu(), n), "x must be a CUDA tensor")
    expect_error("refuses a mix of devices",
                 lambda: ops.add.out(x, y.cpu(), z, n), "y must be a CUDA tensor")
    expect_error("refuses a short input",
                 lambda: ops.add(x, y[: n - 1], n),
                 "y has 999 elements but the kernel reaches 1000")
    expect_error("refuses an output of the wrong shape (tile.shape)",
                 lambda: ops.add.out(x, y, torch.empty(n - 1, device=dev), n),
                 'z must have shape [1000] (tile.shape ["n"]), got [999]')
    expect_error("refuses an output of the wrong rank (tile.shape)",
                 lambda: ops.add.out(x, y, torch.empty(1, n, device=dev), n),
                 'z must have shape [1000] (tile.shape ["n"]), got [1, 1000]')
    expect_error("refuses a negative size to allocate",
                 lambda: ops.add(x, y, -5),
                 'cannot allocate z: size 0 of its tile.shape ["n"] is -5')
    wide = torch.randn(2 * n, device=dev)
    expect_error("refuses a non-contiguous tensor",
                 lambda: ops.add.out(wide[::2], y, z, n), "x must be contiguous")
    expect_error("refuses a misaligned tensor",
                 lambda: ops.add(wide[1 : n + 1], y, n),
                 "x's data must be 16-byte aligned")
    if "softmax" in have:
        t = torch.randn(4, 100, device=dev)
        expect_error("refuses a broken divisibility hint",
                     lambda: ops.softmax(t, torch.empty_like(t), 100, [4]),
                     "value 100 is not a multiple of 16")
        expect_error("refuses an i32 out of range (the runtime's check)",
                     lambda: ops.softmax(t, torch.empty_like(t), 1 << 40, [4]),
                     "value 1099511627776 does not fit in i32")
        expect_error("refuses a bad grid",
                     lambda: ops.softmax(t, torch.empty_like(t), 96, [1, 2, 3, 4]),
                     "grid must list 1 to 3 program counts")


def check_descriptor_refusals(ops, have):
    """A descriptor operator's refusals: the generated TORCH_CHECKs (dtype,
    rank), then the runtime's checkTensorDesc, on CUDA tensors (the launch)
    and on meta tensors (the Meta implementation's checkLaunch), with the
    same message."""
    if "matmul_tma_bias_gelu" not in have:
        return
    dev = "cuda"
    m, n, k = 200, 256, 128
    a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=dev, dtype=torch.bfloat16)
    c = torch.empty(m, n, device=dev, dtype=torch.bfloat16)
    bias = torch.randn(n, device=dev, dtype=torch.bfloat16)
    op = ops.matmul_tma_bias_gelu

    def call(a=a, b=b, c=c, bias=bias):
        return lambda: op.out(a, b, c, bias)

    expect_error("descriptor: refuses a wrong dtype", call(a=a.half()),
                 "a must be torch.bfloat16 (the kernel's tensor_desc<128x64xbf16>)")
    expect_error("descriptor: refuses a wrong rank", call(a=a.reshape(-1)),
                 "a must have at least 2 dimensions (the kernel takes K from it")
    expect_error("descriptor: refuses a CPU tensor", call(b=b.cpu()),
                 "b must be a CUDA tensor")
    # N = 77: B's rows 154 bytes apart (C's and bias's sizes follow).
    odd = torch.randn(k, 77, device=dev, dtype=torch.bfloat16)
    c77 = torch.empty(m, 77, device=dev, dtype=torch.bfloat16)
    bias77 = torch.randn(77, device=dev, dtype=torch.bfloat16)
    expect_error("descriptor: refuses a row stride of 154 bytes (the runtime's check)",
                 call(b=odd, c=c77, bias=bias77),
                 "parameter 'b' (#1): strides[0] is 77 elements (154 bytes), "
                 "not a multiple of 16 bytes")
    expect_error("descriptor: refuses B of another K (tile.shape)",
                 call(b=torch.randn(k + 16, n, device=dev, dtype=torch.bfloat16)),
                 'b must have shape [128, 256] (tile.shape ["K", "N"])')
    expect_error("descriptor: refuses a non-unit innermost stride",
                 call(b=torch.randn(n, k, device=dev, dtype=torch.bfloat16).t()),
                 "parameter 'b' (#1): strides[1] is 128: the innermost "
                 "dimension must be contiguous")
    wide = torch.randn(m, k + 8, device=dev, dtype=torch.bfloat16)
    expect_error("descriptor: refuses a misaligned base",
                 call(a=wide[:, 1:k + 1]),
                 "is not a multiple of 16 bytes (the TMA needs a 16-byte aligned tensor)")
    # The Meta implementation (torch.compile's tracing) refuses the same.
    meta = lambda t: t.to("meta")
    expect_error("descriptor on meta tensors: the runtime's check without a GPU",
                 lambda: op.out(meta(a), meta(odd), meta(c77), meta(bias77)),
                 "parameter 'b' (#1): strides[0] is 77 elements (154 bytes)")
    try:
        op.out(meta(a), meta(b), meta(c), meta(bias))
        report("descriptor on meta tensors: a good call passes", True)
    except RuntimeError as e:
        report("descriptor on meta tensors: a good call passes", False, str(e)[:500])


def check_short_view(ops, have):
    """Last, because it crashed the process on 2026-12-01 (a view shorter
    than the extent as the mutable output): the same refusal as above, and
    the descriptor operator's."""
    if "add" not in have:
        return
    n = 1000
    x, y, z = (torch.randn(n, device="cuda") for _ in range(3))
    expect_error("refuses a short view",
                 lambda: ops.add.out(x, y, z[: n - 1], n),
                 'z must have shape [1000] (tile.shape ["n"]), got [999]')
    if "matmul_tma_bias_gelu" in have:
        m, k = 200, 128
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, 256, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(m, 256, device="cuda", dtype=torch.bfloat16)
        bias = torch.randn(256, device="cuda", dtype=torch.bfloat16)
        expect_error("descriptor operator: refuses a short output view (tile.shape)",
                     lambda: ops.matmul_tma_bias_gelu.out(a, b, c[: m - 1], bias),
                     'c must have shape [200, 256] (tile.shape ["M", "N"]), got [199, 256]')


def example_module(name):
    """examples/torch/<name>.py, imported after the extension is loaded:
    block.py (the block the example times, so that its eager, CUDA-graph
    and torch.compile runs are checked here) and attention.py."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.path.join(root, "examples", "torch")
    if path not in sys.path:
        sys.path.insert(0, path)
    return importlib.import_module(name)


def block_torch(x, r, w, w1, b1, eps):
    """The tilec block's arithmetic in f32, with its roundings: h to f16
    (rmsnorm_bf16's first store), the normed rows to bf16 (its second)."""
    h = x + r
    hf = h.float()
    y = (hf * torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + eps) * w.float())
    a = y.to(torch.bfloat16).float()
    return h, F.gelu(a @ w1.float() + b1.float())


def check_block(ops, have):
    if not {"rmsnorm_bf16", "matmul_tma_bias_gelu"} <= set(have):
        report("block", False, "needs rmsnorm_bf16 and matmul_tma_bias_gelu")
        return
    block = example_module("block").block_tilec
    dev = "cuda"
    # Ragged against the GEMM's 128 x 256 tile and its K step of 64.
    rows, cols, n, eps = 77, 528, 384, 1e-6
    x = torch.randn(rows, cols, device=dev, dtype=torch.float16)
    r = torch.randn(rows, cols, device=dev, dtype=torch.float16)
    w = torch.randn(cols, device=dev, dtype=torch.float16)
    w1 = (torch.randn(cols, n, device=dev) / cols ** 0.5).to(torch.bfloat16)
    b1 = torch.randn(n, device=dev, dtype=torch.bfloat16)
    h, out = block(x, r, w, w1, b1, eps)
    th, tout = block_torch(x, r, w, w1, b1, eps)
    report("block residual", torch.equal(h, th))
    close("block vs PyTorch", out, tout, 1e-2)

    # CUDA graph: capture on a side stream after a warm-up (modules load on
    # first use; the tensor maps of the static tensors are encoded on the
    # host then and at capture), then replay on new inputs copied into the
    # static ones.
    sx, sr = x.clone(), r.clone()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        block(sx, sr, w, w1, b1, eps)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        gh, gout = block(sx, sr, w, w1, b1, eps)
    x2 = torch.randn_like(x)
    sx.copy_(x2)
    g.replay()
    torch.cuda.synchronize()
    eh, eout = block(x2, r, w, w1, b1, eps)
    report("CUDA graph replay", torch.equal(gh, eh) and torch.equal(gout, eout))

    try:
        compiled = torch.compile(block, fullgraph=True)
        ch, cout = compiled(x2, r, w, w1, b1, eps)
        report("torch.compile(fullgraph=True)",
               torch.equal(ch, eh) and torch.equal(cout, eout))
    except Exception as e:
        report("torch.compile(fullgraph=True)", False,
               f"{type(e).__name__}: {str(e)[:2000]}")


def check_attention_backward(ops, have):
    """examples/torch/attention.py: flash attention through tilec with
    autograd (the forward operator, then the three backward kernels)
    against the f32 reference's gradients, on ragged seq, grouped-query
    heads, causal and not; then the same under torch.compile(fullgraph=
    True), forward and backward."""
    example = example_module("attention")
    needs = {"attention_tma_d128_n128"} | example.BACKWARD_OPS
    if not needs <= set(have):
        report("attention backward", False,
               f"needs {', '.join(sorted(needs - set(have)))}")
        return
    dev = "cuda"

    def inputs(bsz, h, hkv, s):
        q = torch.randn(bsz, h, s, 128, device=dev, dtype=torch.bfloat16)
        k = torch.randn(bsz, hkv, s, 128, device=dev, dtype=torch.bfloat16)
        v = torch.randn(bsz, hkv, s, 128, device=dev, dtype=torch.bfloat16)
        do = torch.randn(bsz, h, s, 128, device=dev, dtype=torch.bfloat16)
        return q, k, v, do

    def reference(q, k, v, do, causal):
        q, k, v = (t.float().requires_grad_() for t in (q, k, v))
        o, _ = attention_f32(q, k, v, causal)
        o.backward(do.float())
        return o.detach(), q.grad, k.grad, v.grad

    def run(fn, q, k, v, do, causal):
        q, k, v = (t.detach().clone().requires_grad_() for t in (q, k, v))
        o = fn(q, k, v, causal)
        o.backward(do)
        return o.detach(), q.grad, k.grad, v.grad

    def eager(q, k, v, causal):
        return example.attention(q, k, v, causal=causal)

    for bsz, h, hkv, s, causal in ((2, 4, 2, 1000, True), (1, 3, 3, 129, False),
                                   (1, 2, 1, 1, True), (1, 2, 2, 4097, False)):
        what = f"attention backward B{bsz} H{h} Hkv{hkv} S{s} causal={causal}"
        q, k, v, do = inputs(bsz, h, hkv, s)
        got = run(eager, q, k, v, do, causal)
        want = reference(q, k, v, do, causal)
        for name, g, w in zip(("o", "dq", "dk", "dv"), got, want):
            close(f"{what}: {name}", g, w, 1e-2)
            if name != "o":
                report(f"{what}: {name} has its input's shape and dtype",
                       g.shape == w.shape and g.dtype == torch.bfloat16,
                       f"{tuple(g.shape)} {g.dtype}")
    q, k, v, do = inputs(2, 4, 2, 1000)
    eager_out = run(eager, q, k, v, do, True)
    try:
        compiled = torch.compile(eager, fullgraph=True)
        compiled_out = run(compiled, q, k, v, do, True)
        for name, g, w in zip(("o", "dq", "dk", "dv"), compiled_out, eager_out):
            close(f"attention under torch.compile(fullgraph=True): {name} "
                  "as eager", g, w, 1e-3)
    except Exception as e:
        report("attention backward under torch.compile(fullgraph=True)", False,
               f"{type(e).__name__}: {str(e)[:2000]}")


def check_autograd(ops, have, dev="cuda"):
    """The generated Autograd and ADInplaceOrView kernels: the operators have
    no backward, so with grad mode on a tensor that requires grad is refused
    with the message; under torch.no_grad() and torch.inference_mode() the
    call runs. The written tensor's version counter (autograd's check that
    a saved tensor was not overwritten) is bumped once per call, the read
    ones' not."""
    if "add" not in have:
        return
    n = 1000
    x, y, z = (torch.randn(n, device=dev) for _ in range(3))
    xg = x.clone().requires_grad_()
    expect_error("refuses an input that requires grad (no backward)",
                 lambda: ops.add.out(xg, y, z, n),
                 "tilec.add: x requires grad, but the operator has no backward")
    expect_error("allocating: refuses an input that requires grad",
                 lambda: ops.add(x, y.clone().requires_grad_(), n),
                 "tilec.add: y requires grad, but the operator has no backward")
    zg = z.clone().requires_grad_()
    expect_error("refuses an output that requires grad",
                 lambda: ops.add.out(x, y, zg, n), "tilec.add: z requires grad")
    for name, mode in (("torch.no_grad()", torch.no_grad),
                       ("torch.inference_mode()", torch.inference_mode)):
        try:
            with mode():
                ops.add.out(xg, y, z, n)
                made = ops.add(xg, y, n)
            ok = dev != "cuda" or (torch.equal(z, x + y) and torch.equal(made, z))
            ok = ok and made.shape == (n,) and not made.requires_grad
            report(f"requires_grad input under {name} runs", ok)
        except RuntimeError as e:
            report(f"requires_grad input under {name} runs", False,
                   str(e).splitlines()[0])
    before = (x._version, y._version, z._version)
    ops.add.out(x, y, z, n)
    ops.add.out(x, y, z, n)
    ops.add(x, y, n)
    after = (x._version, y._version, z._version)
    report("the written tensor's version counter is bumped, the read ones' not",
           after == (before[0], before[1], before[2] + 2),
           f"versions (x, y, z) {before} -> {after}")


def check_dynamic(ops, have, dev="cuda"):
    """torch.compile(fullgraph=True, dynamic=True) of an operator call: the
    Meta implementation sees symbolic sizes (its checks decide them through
    guards); the integer arguments, `int` in the schema, are specialized.
    On meta tensors (--meta-only) through the aot_eager backend."""
    if "add" not in have:
        return

    def f_out(x, y, z):
        ops.add.out(x, y, z, x.numel())
        return z

    def f_alloc(x, y):
        return ops.add(x, y, x.numel()) * 2

    base = "inductor" if dev == "cuda" else "aot_eager"
    for form, f in (("add.out", f_out), ("add (allocating)", f_alloc)):
        graphs = []

        def backend(gm, example_inputs):
            # Counts the graphs: n is a SymInt in the schema, so one graph
            # serves every size (an `int` would be specialized, a graph each).
            graphs.append(gm)
            from torch._dynamo.backends.registry import lookup_backend
            return lookup_backend(base)(gm, example_inputs)

        try:
            compiled = torch.compile(f, fullgraph=True, dynamic=True,
                                     backend=backend)
            ok, detail = True, []
            for n in (1000, 3001, 5000):
                x, y = torch.randn(n, device=dev), torch.randn(n, device=dev)
                if f is f_out:
                    z, want = compiled(x, y, torch.empty(n, device=dev)), x + y
                else:
                    z, want = compiled(x, y), (x + y) * 2
                if z.shape != (n,) or (dev == "cuda" and not torch.equal(z, want)):
                    ok = False
                    detail.append(f"n = {n} differs")
            report(f"torch.compile(dynamic=True) of tilec.{form} on {dev} "
                   "tensors, n = 1000, 3001, 5000", ok, ", ".join(detail))
            report(f"... one graph for the three sizes (n stays symbolic)",
                   len(graphs) == 1, f"{len(graphs)} graphs compiled")
        except Exception as e:
            report(f"torch.compile(dynamic=True) of tilec.{form} on {dev} tensors",
                   False, f"{type(e).__name__}: {str(e)[:2000]}")


def check_meta_compile(ops, have):
    """--meta-only: torch.compile(fullgraph=True) (aot_eager) of an operator
    call on meta tensors, and the refusal of a CPU tensor."""
    if "add" not in have:
        return
    n = 1000

    def f(x, y, z):
        ops.add.out(x, y, z, n)
        return z

    try:
        compiled = torch.compile(f, fullgraph=True, backend="aot_eager")
        compiled(*(torch.empty(n, device="meta") for _ in range(3)))
        report("torch.compile(fullgraph=True) of tilec.add.out on meta tensors",
               True)
    except Exception as e:
        report("torch.compile(fullgraph=True) of tilec.add.out on meta tensors",
               False, f"{type(e).__name__}: {str(e)[:2000]}")
    try:
        compiled = torch.compile(lambda x, y: ops.add(x, y, n), fullgraph=True,
                                 backend="aot_eager")
        z = compiled(*(torch.empty(n, device="meta") for _ in range(2)))
        report("torch.compile(fullgraph=True) of tilec.add (allocating) on "
               "meta tensors: a meta result of n elements",
               z.device.type == "meta" and z.shape == (n,),
               f"{z.device} {tuple(z.shape)}")
    except Exception as e:
        report("torch.compile(fullgraph=True) of tilec.add (allocating) on "
               "meta tensors", False, f"{type(e).__name__}: {str(e)[:2000]}")
    if {"rmsnorm_bf16", "matmul_tma_bias_gelu"} <= set(have):
        # The block with dynamic shapes: the GEMM's descriptors see symbolic
        # sizes, which its Meta implementation specializes.
        block = example_module("block").block_tilec
        try:
            compiled = torch.compile(block, fullgraph=True, dynamic=True,
                                     backend="aot_eager")
            for rows in (77, 300):
                meta = lambda *s, dtype=torch.float16: torch.empty(
                    *s, device="meta", dtype=dtype)
                compiled(meta(rows, 528), meta(rows, 528), meta(528),
                         meta(528, 384, dtype=torch.bfloat16),
                         meta(384, dtype=torch.bfloat16), 1e-6)
            report("torch.compile(dynamic=True) of the block on meta tensors",
                   True)
        except Exception as e:
            report("torch.compile(dynamic=True) of the block on meta tensors",
                   False, f"{type(e).__name__}: {str(e)[:2000]}")
    expect_error("refuses a CPU tensor",
                 lambda: ops.add.out(*(torch.ones(n) for _ in range(3)), n),
                 "x must be a CUDA tensor")
    expect_error("allocating: refuses a CPU tensor",
                 lambda: ops.add(torch.ones(n), torch.ones(n), n),
                 "x must be a CUDA tensor")
    expect_error("refuses a short meta tensor",
                 lambda: ops.add.out(*(torch.empty(n, device="meta") for _ in range(2)),
                                     torch.empty(n - 1, device="meta"), n),
                 'z must have shape [1000] (tile.shape ["n"]), got [999]')


def host_rounds(fns, calls=2000, rounds=15):
    """Microseconds per call of each of `fns`, in `rounds` interleaved rounds
    (each round times every callable once, in an order that alternates, so
    that a slow stretch of the machine falls on all of them); per callable
    the median over the rounds and the best round."""
    times = [[] for _ in fns]
    for r in range(rounds):
        order = range(len(fns)) if r % 2 == 0 else reversed(range(len(fns)))
        for i in order:
            fn = fns[i]
            torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            torch.cuda.synchronize()
            times[i].append((time.perf_counter() - start) / calls * 1e6)
    return [(sorted(t)[len(t) // 2], min(t)) for t in times]


def check_overhead(ops, have):
    if "add" not in have:
        return
    n = 4096
    x, y, z = (torch.randn(n, device="cuda") for _ in range(3))
    # For the record (not the check): the overload itself, as torch.compile's
    # graphs call it, skips the packet's Python-side overload resolution.
    # The allocating overload called as such (ops.add.default) is timed
    # beside the packet (ops.add) for the same reason.
    overload, alloc = ops.add.out, ops.add.default
    names = ["torch.ops.tilec.add.out", "torch.add(out=)",
             "torch.ops.tilec.add (allocating)", "torch.add (allocating)",
             "torch.ops.tilec.add.default (allocating, for the record)"]
    fns = [lambda: overload(x, y, z, n), lambda: torch.add(x, y, out=z),
           lambda: ops.add(x, y, n), lambda: torch.add(x, y),
           lambda: alloc(x, y, n)]
    for fn in fns:  # warm up (modules load on the first call)
        fn()
    measured = host_rounds(fns)
    rows = [(name, median, best)
            for name, (median, best) in zip(names, measured)]
    try:
        import triton
        import triton.language as tl

        @triton.jit
        def add_kernel(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            mask = offs < n
            tl.store(z_ptr + offs, tl.load(x_ptr + offs, mask=mask) +
                     tl.load(y_ptr + offs, mask=mask), mask=mask)

        def triton_add():
            add_kernel[(triton.cdiv(n, 1024),)](x, y, z, n, BLOCK=1024)

        triton_add()
        median, best = host_rounds([triton_add], rounds=5)[0]
        rows.append(("Triton add", median, best))
    except Exception as e:
        print(f"note: no Triton row ({type(e).__name__}: {str(e)[:200]})")
    for name, median, best in rows:
        print(f"host us per call, tiny add (n = {n}): {name}: median "
              f"{median:.2f}, best {best:.2f}")
    # The checks: the medians over the interleaved rounds, no margin.
    for ours, theirs, what in ((0, 1, "out="), (2, 3, "allocating")):
        tilec_us, torch_us = rows[ours][1], rows[theirs][1]
        report(f"tilec op's host time at most torch.add's ({what}; medians "
               "of 15 interleaved rounds)", tilec_us <= torch_us,
               f"{tilec_us:.2f} vs {torch_us:.2f} us")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--sources", required=True)
    p.add_argument("--include", required=True)
    p.add_argument("--lib", required=True)
    p.add_argument("--build", required=True)
    p.add_argument("--meta-only", action="store_true",
                   help="no GPU: only the checks on meta and CPU tensors")
    p.add_argument("--build-only", action="store_true",
                   help="only build the extension (another build of a "
                        "kernel for examples/torch/block.py)")
    args = p.parse_args()
    if args.build_only:
        build(args)
        return
    torch.manual_seed(int(os.environ.get("SEED", "1234")))
    if args.meta_only:
        # cpp_extension asks for the architectures of its (absent) CUDA
        # sources when no device says them.
        os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0")
        print(f"torch {torch.__version__}, meta and CPU tensors only, seed "
              f"{torch.initial_seed()}")
        steps = (lambda ops, have: check_autograd(ops, have, "meta"),
                 lambda ops, have: check_dynamic(ops, have, "meta"),
                 check_meta_compile)
    else:
        if not torch.cuda.is_available():
            report("cuda", False, "torch.cuda.is_available() is False")
            sys.exit(1)
        print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, seed "
              f"{torch.initial_seed()}")
        steps = (check_operators, check_refusals, check_descriptor_refusals,
                 check_block, check_attention_backward, check_autograd,
                 check_dynamic, check_overhead, check_short_view)
    have = build(args)
    ops = torch.ops.tilec
    for step in steps:
        try:
            step(ops, have)
        except Exception as e:
            report(step.__name__, False, f"{type(e).__name__}: {str(e)[:2000]}")
    failed = [n for n, ok in results if not ok]
    print(f"gpu-torch: {len(results) - len(failed)}/{len(results)} passed"
          + (f"; failed: {', '.join(failed)}" if failed else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
