"""Flash attention with a backward pass, from tilec's kernels.

`attention(q, k, v, causal=False, scale=None)` is
`torch.nn.functional.scaled_dot_product_attention(q, k, v,
is_causal=causal, scale=scale, enable_gqa=True)` for bf16 q of
[batch, heads, seq, 128] and k, v of [batch, heads / group, seq, 128] (the
last dim contiguous, the other strides multiples of 8 elements: the TMA's
16 bytes), differentiable: a `torch.autograd.Function` whose forward is the
builder's ping-pong kernel (`torch.ops.tilec.attention_tma_d128_n128_
overlap_pingpong`, or `attention_tma_d128_n128`; o and lse allocated) and
whose backward runs FlashAttention-2's three kernels (docs/attention.md,
"The backward"):

    delta = rowsum(dO * O)           attention_bwd_pre_d128
    dK, dV                           attention_tma_bwd_dkdv_d128
    dQ                               attention_tma_bwd_dq_d128

recomputing P block by block from the saved lse (no seq x seq tensor). Each
backward kernel, like the forward, declares its tensors' shapes, takes its
integers from them (tile.from) and its grid from its rule (tile.grid), and
allocates what it writes (delta; dk, dv; dq): the operators take tensors
only, and torch.compile sees their inputs as read only.

The operators come from an extension built with these kernels
(scripts/s9/prep-torch.sh lists them); scripts/gpu-torch.py checks the
gradients against PyTorch's, eagerly and under torch.compile.
"""
import torch

BACKWARD_OPS = {"attention_bwd_pre_d128", "attention_tma_bwd_dkdv_d128",
                "attention_tma_bwd_dq_d128"}


def _forward_op():
    """The ping-pong forward when the extension has it, else the plain
    one; None when neither is loaded."""
    for name in ("attention_tma_d128_n128_overlap_pingpong",
                 "attention_tma_d128_n128"):
        try:
            return getattr(torch.ops.tilec, name)
        except (AttributeError, RuntimeError):
            continue
    return None


# Chosen once, at import (the extension loaded first), so that what
# torch.compile traces is a plain operator call.
FORWARD = _forward_op()


class _Attention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, scale, causal):
        o, lse = FORWARD(q, k, v, scale, causal)
        ctx.save_for_backward(q, k, v, o, lse)
        ctx.scale, ctx.causal = scale, causal
        return o

    @staticmethod
    def backward(ctx, do):
        q, k, v, o, lse = ctx.saved_tensors
        ops = torch.ops.tilec
        # dO is read through a descriptor beside q: its last dim contiguous
        # (autograd may hand in an expanded or strided gradient).
        do = do.contiguous()
        delta = ops.attention_bwd_pre_d128(o, do)
        dk, dv = ops.attention_tma_bwd_dkdv_d128(q, k, v, do, lse, delta,
                                                 ctx.scale, ctx.causal)
        dq = ops.attention_tma_bwd_dq_d128(q, k, v, do, lse, delta, ctx.scale,
                                           ctx.causal)
        return dq, dk, dv, None, None


def attention(q, k, v, causal=False, scale=None):
    """SDPA (enable_gqa) through tilec, with autograd; see the module. The
    forward operator refuses heads that do not divide (tile.from's whole
    quotient) before any backward exists."""
    if FORWARD is None:
        raise RuntimeError("attention: no tilec attention forward operator "
                           "is loaded (load the extension before importing "
                           "this module)")
    scale = q.shape[-1] ** -0.5 if scale is None else float(scale)
    return _Attention.apply(q, k, v, scale, bool(causal))
