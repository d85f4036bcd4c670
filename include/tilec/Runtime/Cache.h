//===- Cache.h - the on-disk cache of compiled cubins -----------*- C++ -*-===//
//
// Compiling PTX in the driver takes ~100 ms per module (measured on the
// H200), so the runtime keeps the cubins it compiled on disk, keyed by a
// 128-bit XXH3 hash of the PTX, the device architecture, the driver build and
// the JIT options (a key, not a security boundary: whoever can write the
// folder can write any cubin, so a cryptographic hash would add nothing).
// Entries are written to a temporary file and renamed into place, so
// processes that fill the cache at once never see half a file; each entry
// carries its length and a checksum, and an entry that fails them is treated
// as absent.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_CACHE_H
#define TILEC_RUNTIME_CACHE_H

#include "tilec/Runtime/Status.h"

#include <optional>
#include <string>
#include <string_view>

namespace tilec::runtime {

/// XXH3-128 of `data`, as 32 lowercase hex digits (high 64 bits first).
std::string hash128Hex(std::string_view data);

/// What a cached cubin depends on.
struct CubinCacheKeyParts {
  std::string_view ptx;
  std::string_view deviceArch; ///< the device's "sm_90": what the JIT built for
  std::string_view driverIdentity; ///< Driver::identity()
  std::string_view jitOptions;     ///< the JIT options, spelt out
};
/// The cache key (32 hex digits) of a cubin.
std::string cubinCacheKey(const CubinCacheKeyParts &parts);

/// The cache folder used when a load names none: the one set by
/// setDefaultCacheDir(), else $TILEC_CACHE_DIR, else $XDG_CACHE_HOME/tilec,
/// else $HOME/.cache/tilec. Fails when none of them is set.
Expected<std::string> defaultCacheDir();
/// Sets the folder defaultCacheDir() returns (empty: back to the
/// environment).
void setDefaultCacheDir(std::string dir);

/// A folder of cubins named by their keys.
class CubinCache {
public:
  explicit CubinCache(std::string dir) : dir_(std::move(dir)) {}
  const std::string &dir() const { return dir_; }
  /// The file of `key`.
  std::string pathFor(std::string_view key) const;
  /// The cubin stored under `key`, or nothing when absent, unreadable,
  /// damaged, over 1 GiB or not a regular file (a FIFO there is not waited
  /// on).
  std::optional<std::string> lookup(std::string_view key) const;
  /// Stores `cubin` under `key`: creates the folder, writes a temporary file
  /// and renames it over the entry.
  Status store(std::string_view key, std::string_view cubin) const;

private:
  std::string dir_;
};

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_CACHE_H
