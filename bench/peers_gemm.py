"""GEMM peer rows that shared/bench/peers.py lacks, in its row format.

    OUT=dir PEERS=path/to/peers.py python3 bench/peers_gemm.py [WORK...]

WORK: matmul_ragged, matmul_wave, matmul_tf32, matmul_cube (default: all). Imports peers.py (its do_bench timing,
row format and autotuned Triton tutorial kernel) from $PEERS, times the
rows here and appends them to $OUT/peers.json (peers.py writes that file
first; scripts/gpu-bench.sh runs this after it), so bench/compare.py sees
them beside tilec-bench's rows.
  matmul_ragged: bf16 4000x4096x4096 (issue 12's ragged-M target): torch
  (cuBLAS) and Triton, "matmul bf16 4000x4096x4096" as tilec-bench's row.
  matmul_wave: bf16 1408x2304x8192 (issue 16's shape where 128x192 tiles
  fill one wave of 132 SMs), the same two peers.
  matmul_cube: bf16 8192^3, the same two peers alone (peers.py's matmul
  also times gelu(A@B+b) in eager and torch.compile), "matmul bf16 8192^3".
  matmul_tf32: f32 8192^3 with TF32 tensor cores allowed (torch's
  allow_tf32, cuBLAS) and the Triton tutorial kernel on f32 (tl.dot's
  default input_precision is tf32), "matmul tf32 8192^3".
"""
import importlib.util, json, os, sys

spec = importlib.util.spec_from_file_location("peers", os.environ["PEERS"])
peers = importlib.util.module_from_spec(spec)
spec.loader.exec_module(peers)  # its main() runs only as __main__
torch, triton = peers.torch, peers.triton


def matmul_rows(M, N, K, dtype=torch.bfloat16, w=None):
    a = torch.randn(M, K, device="cuda", dtype=dtype)
    b = torch.randn(K, N, device="cuda", dtype=dtype)
    c = torch.empty(M, N, device="cuda", dtype=dtype)
    fl = 2 * M * N * K
    w = w or f"matmul bf16 {M}x{N}x{K}"
    peers.row(w, "torch (cuBLAS)", peers.bench(lambda: torch.matmul(a, b, out=c)), flops=fl)
    g = lambda META: (triton.cdiv(M, META["BM"]) * triton.cdiv(N, META["BN"]),)
    tm = lambda: peers.k_matmul[g](a, b, c, M, N, K, a.stride(0), a.stride(1),
                                   b.stride(0), b.stride(1), c.stride(0), c.stride(1))
    tm()
    peers.row(w, "triton (tutorial, autotuned 4 cfgs)", peers.bench(tm), flops=fl,
              note=str(peers.k_matmul.best_config))


def matmul_tf32():
    torch.backends.cuda.matmul.allow_tf32 = True
    matmul_rows(8192, 8192, 8192, torch.float32, "matmul tf32 8192^3")


WORK = {"matmul_ragged": lambda: matmul_rows(4000, 4096, 4096),
        "matmul_wave": lambda: matmul_rows(1408, 2304, 8192),
        "matmul_tf32": matmul_tf32,
        "matmul_cube": lambda: matmul_rows(8192, 8192, 8192, w="matmul bf16 8192^3")}

if __name__ == "__main__":
    only = sys.argv[1:] or list(WORK)
    for w in only:
        if w not in WORK:
            sys.exit(f"peers_gemm.py: no workload '{w}' (known: {', '.join(WORK)})")
        WORK[w]()
    out = os.environ.get("OUT", "/tmp/out")
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "peers.json")
    rows = json.load(open(path)) if os.path.exists(path) else []
    json.dump(rows + peers.ROWS, open(path, "w"), indent=1)
