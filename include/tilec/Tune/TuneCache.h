//===- TuneCache.h - the persistent cache of tuning winners -----*- C++ -*-===//
//
// A winner (its candidate and its plan: one kernel or a split-K pair) is
// kept per (kernel IR hash, tuning space, problem, shape bucket, device,
// compiler version) in the runtime's cache folder
// (runtime::defaultCacheDir(), subfolder `tune/`), through the same
// CubinCache entries as the cubins: written to a temporary file and renamed,
// with a length and checksum, so readers see a whole entry or none. An
// entry that fails them, is not valid JSON, or names other key parts or a
// candidate the manifest lacks, is ignored (and rewritten by the next
// measurement).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TUNE_TUNECACHE_H
#define TILEC_TUNE_TUNECACHE_H

#include "tilec/Support/Status.h"
#include "tilec/Tune/Manifest.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec::tune {

/// A GEMM problem.
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
};
/// Parses "MxNxK" (each at least 1).
Expected<GemmShape> parseGemmShape(const std::string &text);

/// The bucket a GEMM shape is tuned for: each of M, N and K rounded up to a
/// power of two, at least 16, and the alignment of the row strides (K and
/// N: the largest power of two up to 16 dividing both), as in
/// "M1024xN16384xK4096/a16". Shapes of one bucket share a winner: within a
/// factor of two the same tiles win, and a deployed program sees ragged M
/// (tokens) that exact keys would never hit; the alignment decides which
/// kernels can take the strides at all (their divisibility hints).
std::string gemmBucket(const GemmShape &shape);

/// What a winner depends on.
struct TuneKeyParts {
  std::string kernelHash, spaceHash, problem, bucket, device, compiler;
  /// The parts spelt out, one per line: stored in the entry and compared.
  std::string text() const;
};
TuneKeyParts keyParts(const Manifest &manifest, const std::string &bucket,
                      const std::string &device);
/// The cache key (32 hex digits).
std::string tuneKey(const TuneKeyParts &parts);

/// How a winner runs: one kernel, or a split-K plan of two (the slices
/// into an f32 workspace of splitK x M x N, then the reduce into C).
struct GemmPlan {
  int64_t splitK = 1;
  bool tma = false; ///< A and B through tensor descriptors
  /// The kernels launched, in order ("matmul", "matmul_splitk_reduce").
  std::vector<std::string> kernels;
  int64_t reduceBlockN = 0; ///< the reduce's columns per program
  bool operator==(const GemmPlan &) const = default;
  /// "1 kernel" or "SPLIT_K=4: matmul, matmul_splitk_reduce".
  std::string describe() const;
};

/// The plan of candidate `c` of `manifest`.
GemmPlan planOf(const Manifest &manifest, const Candidate &c);

struct Winner {
  int id = -1;
  ParamValues params;
  GemmPlan plan;
  double medianMs = 0;
  GemmShape measuredShape; ///< the shape it was measured on
  int measured = 0;        ///< candidates measured
};

/// A winner's id, parameters and plan from its candidate.
Winner winnerOf(const Manifest &manifest, const Candidate &c);

/// The result of a lookup.
struct CacheLookup {
  std::optional<Winner> winner;
  /// Why there is none: "" (no entry) or why an entry was ignored.
  std::string ignored;
};

class TuneCache {
public:
  explicit TuneCache(std::string dir); ///< the runtime's folder; uses dir/tune
  const std::string &dir() const { return dir_; }
  std::string pathFor(const std::string &key) const;
  /// The winner of `parts`, checked against `manifest` (its candidate must
  /// be there, not pruned, with the same parameters).
  CacheLookup lookup(const TuneKeyParts &parts,
                     const Manifest &manifest) const;
  Status store(const TuneKeyParts &parts, const Winner &winner) const;

private:
  std::string dir_;
};

} // namespace tilec::tune

#endif // TILEC_TUNE_TUNECACHE_H
