"""The peers of the non-power-of-two rows (issue 16), on the GPU machine.

    python3 bench/peers_nonpow2.py PEERS_PY

Times, with PEERS_PY's helpers (../shared/bench/peers.py: do_bench medians,
the same row format and bytes), PyTorch eager, torch.compile and Triton on
the two workloads tilec-bench's softmax5000 and layernorm3072 rows time:
softmax fp32 16384x5000 and layernorm bf16 32768x3072. Triton's tiles are
powers of two, so its kernels (peers.py's own) take the next one, masked:
8192 and 4096. Rows go to stdout and $OUT/peers_nonpow2.json.
"""
import importlib.util
import json
import os
import sys

import torch


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: peers_nonpow2.py PEERS_PY")
    spec = importlib.util.spec_from_file_location("peers", sys.argv[1])
    p = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(p)
    dev = "cuda"

    def peers(work, nb, f, triton_fn, note):
        # torch eager, torch.compile and Triton on one workload.
        p.row(work, "torch eager", p.bench(f), nbytes=nb)
        cf = p.comp(f)
        if cf:
            cf()
            p.row(work, "torch.compile", p.bench(cf), nbytes=nb)
        p.row(work, "triton", p.bench(triton_fn), nbytes=nb, note=note)

    M, N = 16384, 5000
    x = torch.randn(M, N, device=dev)
    o = torch.empty_like(x)
    peers(f"softmax fp32 {M}x{N}", 2 * 4 * M * N,
          lambda: torch.softmax(x, dim=-1),
          lambda: p.k_softmax[(M,)](x, o, N, BLOCK=8192, num_warps=16),
          "8192-wide masked tile")
    del x, o

    M, N = 32768, 3072
    x = torch.randn(M, N, device=dev, dtype=torch.bfloat16)
    w = torch.randn(N, device=dev, dtype=torch.bfloat16)
    b = torch.randn(N, device=dev, dtype=torch.bfloat16)
    o = torch.empty_like(x)
    peers(f"layernorm bf16 {M}x{N}", 2 * 2 * M * N,
          lambda: torch.nn.functional.layer_norm(x, (N,), w, b, 1e-5),
          lambda: p.k_layernorm[(M,)](x, w, b, o, N, 1e-5, BLOCK=4096,
                                      num_warps=8),
          "4096-wide masked tile")

    out = os.environ.get("OUT", "/tmp/out")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "peers_nonpow2.json"), "w") as fh:
        json.dump(p.ROWS, fh, indent=1)


if __name__ == "__main__":
    main()
