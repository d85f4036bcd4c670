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

struct Candidate {
  int id = 0;
  ParamValues params;
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
  std::vector<SpaceDim> space;
  std::string compiler;   ///< "tilec 0.3.0, commit C": part of the cache key
  std::string target;     ///< the chip compiled for
  std::string problem;    ///< how measure launches it: "gemm"
  std::vector<Candidate> candidates;

  /// XXH3-128 of the space (names and values in order).
  std::string spaceHash() const;
  const Candidate *find(int id) const;
};

/// The manifest as JSON text.
std::string writeManifest(const Manifest &manifest);
/// Parses manifest JSON; errors name the field ("candidates[3].params").
Expected<Manifest> parseManifest(const std::string &text);
/// Reads DIR/manifest.json.
Expected<Manifest> readManifest(const std::string &dir);

/// The compiler identity written into manifests.
std::string compilerIdentity();

} // namespace tilec::tune

#endif // TILEC_TUNE_MANIFEST_H
