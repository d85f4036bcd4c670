//===- Manifest.h - a folder of compiled tuning candidates ------*- C++ -*-===//
//
// The tuner is split where the GPU machine's lack of MLIR splits it:
// `tilec-tune compile` (here, with the compiler) writes a candidate folder,
// `tilec-tune measure` (there, runtime only) reads it. The folder holds one
// binary and metadata file per candidate that survived pruning and
// `manifest.json`, which this header reads and writes without MLIR
// (docs/tuning.md has the format).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TUNE_MANIFEST_H
#define TILEC_TUNE_MANIFEST_H

#include "tilec/Support/Status.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tilec::tune {

/// Parameter names and values, in the space's order.
using ParamValues = std::vector<std::pair<std::string, int64_t>>;

/// One dimension of a tuning space.
struct SpaceDim {
  std::string name;
  std::vector<int64_t> values;
};

/// "BLOCK_M=64 BLOCK_N=128".
std::string describe(const ParamValues &params);
/// The value of `name`, or -1.
int64_t valueOf(const ParamValues &params, const std::string &name);

/// A named sub-space: the builder GEMM's space is the union of the
/// products of its families (cp.async, tma, splitk), since a TMA or split-K
/// kernel wants other tiles than the pointer one.
struct SpaceFamily {
  std::string name;
  std::vector<SpaceDim> dims;
};

/// The second kernel of a split-K plan: sums SPLIT_K f32 slices of the
/// workspace into C (ops::splitKReduceKernel: ws, c, M, N, stride_cm,
/// splits; grid (M, cdiv(N, blockN))). Compiled once per folder.
struct ReduceStep {
  std::string kernel;   ///< the entry's name
  std::string binary;   ///< file in the folder
  std::string metadata; ///< its metadata file
  int64_t blockN = 0;   ///< columns per program
  bool operator==(const ReduceStep &) const = default;
};

struct Candidate {
  int id = 0;
  std::string family; ///< the SpaceFamily it comes from; empty: none
  ParamValues params;
  /// Set (kernel non-empty) for a split-K plan (SPLIT_K > 1): the first
  /// kernel writes the slices to an f32 workspace of SPLIT_K x M x N, this
  /// one sums them into C.
  ReduceStep reduce;
  bool pruned = false;
  std::string reason;   ///< why pruned
  std::string binary;   ///< file in the folder (cubin or PTX); empty if pruned
  std::string metadata; ///< its metadata file
  int registers = -1;   ///< from ptxas -v; -1 unknown (no ptxas)
  int64_t spillBytes = -1;
  int64_t sharedBytes = 0;
  double compileMs = 0;
};

struct Manifest {
  std::string kernel;     ///< the entry's name
  std::string source;     ///< the .tile path, or builder:NAME
  std::string kernelHash; ///< XXH3-128 of the kernel's IR (see Compile.h)
  /// Every dimension with its values (the union over `families`).
  std::vector<SpaceDim> space;
  /// Empty: the candidates are the product of `space`.
  std::vector<SpaceFamily> families;
  std::string compiler;   ///< "tilec 0.3.0, commit C": part of the cache key
  std::string target;     ///< the chip compiled for
  std::string problem;    ///< how measure launches it: "gemm"
  std::vector<Candidate> candidates;

  /// XXH3-128 of the space (names and values in order).
  std::string spaceHash() const;
  const Candidate *find(int id) const;
};

/// A candidate's split-K factor: its SPLIT_K, or 1 (one kernel).
int64_t splitKOf(const Candidate &c);
/// Whether the candidate reads A and B through tensor descriptors (TMA=1).
bool usesTma(const Candidate &c);

/// The manifest as JSON text (format version 2: families, reduce steps).
std::string writeManifest(const Manifest &manifest);
/// Parses manifest JSON; errors name the field ("candidates[3].params").
Expected<Manifest> parseManifest(const std::string &text);
/// Reads DIR/manifest.json.
Expected<Manifest> readManifest(const std::string &dir);

/// The compiler identity written into manifests.
std::string compilerIdentity();

} // namespace tilec::tune

#endif // TILEC_TUNE_MANIFEST_H
