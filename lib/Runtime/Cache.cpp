//===- Cache.cpp - the on-disk cubin cache --------------------------------===//
//
// Entry layout: 8-byte magic "TILECCB1", the cubin's length and its FNV-1a
// 64-bit checksum (both little-endian uint64), 8 zero bytes, then the cubin.
// The checksum catches a file damaged after a crash (rename makes the entry
// appear whole to other processes, not durable on disk).
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Cache.h"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>

// Header-only use of libxxhash: the runtime links no hashing library, so
// programs built on it need nothing more at run time.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace tilec::runtime {

namespace {

uint64_t fnv1a64(std::string_view data) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : data) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

constexpr char kMagic[8] = {'T', 'I', 'L', 'E', 'C', 'C', 'B', '1'};
constexpr size_t kHeaderBytes = 32;
/// Entries above this are damaged (the largest cubins are tens of MB).
constexpr uint64_t kMaxEntryBytes = uint64_t(1) << 30;

void putU64(char *p, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    p[i] = static_cast<char>(v >> (8 * i));
}
uint64_t getU64(const char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= uint64_t(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

std::mutex &cacheDirMutex() {
  static std::mutex m;
  return m;
}
std::string &cacheDirOverride() {
  static std::string dir;
  return dir;
}

/// mkdir -p.
Status makeDirs(const std::string &dir) {
  if (dir.empty())
    return Status::error("the cubin cache folder is an empty path");
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/')
      continue;
    std::string prefix = dir.substr(0, pos);
    if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
      return Status::error("cannot create the cubin cache folder " + prefix +
                           ": " + std::strerror(errno));
  }
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Status::error("the cubin cache folder " + dir + " is not a folder");
  return Status();
}

} // namespace

std::string hash128Hex(std::string_view data) {
  XXH128_hash_t h = XXH3_128bits(data.data(), data.size());
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(32);
  for (uint64_t word : {h.high64, h.low64})
    for (int shift = 60; shift >= 0; shift -= 4)
      out += hex[(word >> shift) & 0xf];
  return out;
}

std::string cubinCacheKey(const CubinCacheKeyParts &parts) {
  // Length-prefixed fields, so that no two different part lists give the
  // same hashed text.
  std::string text = "tilec-cubin-cache 2\n";
  for (std::string_view field :
       {parts.deviceArch, parts.driverIdentity, parts.jitOptions, parts.ptx}) {
    text += std::to_string(field.size());
    text += ':';
    text += field;
    text += '\n';
  }
  return hash128Hex(text);
}

Expected<std::string> defaultCacheDir() {
  {
    std::lock_guard<std::mutex> lock(cacheDirMutex());
    if (!cacheDirOverride().empty())
      return cacheDirOverride();
  }
  if (const char *dir = std::getenv("TILEC_CACHE_DIR"); dir && *dir)
    return std::string(dir);
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/tilec";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/tilec";
  return Status::error("no cubin cache folder: set TILEC_CACHE_DIR, "
                       "XDG_CACHE_HOME or HOME, or call setDefaultCacheDir");
}

void setDefaultCacheDir(std::string dir) {
  std::lock_guard<std::mutex> lock(cacheDirMutex());
  cacheDirOverride() = std::move(dir);
}

std::string CubinCache::pathFor(std::string_view key) const {
  return dir_ + "/" + std::string(key) + ".cubin";
}

std::optional<std::string> CubinCache::lookup(std::string_view key) const {
  // O_NONBLOCK: opening a FIFO put at the entry's path must not wait for a
  // writer; anything but a regular file is then refused below.
  int fd = open(pathFor(key).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return std::nullopt;
  std::string data;
  struct stat st;
  // The buffer is sized from the file: a (sparse) file larger than any
  // cubin is a damaged entry, not an allocation to attempt.
  bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
            st.st_size >= off_t(kHeaderBytes) &&
            uint64_t(st.st_size) <= kMaxEntryBytes;
  if (ok) {
    data.resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = read(fd, data.data() + done, data.size() - done);
      if (n <= 0) {
        ok = false;
        break;
      }
      done += static_cast<size_t>(n);
    }
  }
  close(fd);
  if (!ok || std::memcmp(data.data(), kMagic, 8) != 0)
    return std::nullopt;
  uint64_t size = getU64(data.data() + 8);
  uint64_t sum = getU64(data.data() + 16);
  if (size != data.size() - kHeaderBytes)
    return std::nullopt;
  std::string cubin = data.substr(kHeaderBytes);
  if (fnv1a64(cubin) != sum)
    return std::nullopt;
  return cubin;
}

Status CubinCache::store(std::string_view key, std::string_view cubin) const {
  TILEC_RETURN_IF_ERROR(makeDirs(dir_));
  // A name no other process or thread uses: pid, a process-wide counter and
  // the time.
  static std::atomic<unsigned long> counter{0};
  std::string tmp = dir_ + "/.tmp-" + std::to_string(getpid()) + "-" +
                    std::to_string(counter++) + "-" +
                    std::to_string(static_cast<unsigned long>(time(nullptr)));
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return Status::error("cannot write the cubin cache file " + tmp + ": " +
                         std::strerror(errno));
  char header[kHeaderBytes] = {};
  std::memcpy(header, kMagic, 8);
  putU64(header + 8, cubin.size());
  putU64(header + 16, fnv1a64(cubin));
  std::string data(header, kHeaderBytes);
  data += cubin;
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n <= 0) {
      int err = n < 0 ? errno : ENOSPC;
      close(fd);
      unlink(tmp.c_str());
      return Status::error("cannot write the cubin cache file " + tmp + ": " +
                           std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    return Status::error("cannot write the cubin cache file " + tmp + ": " +
                         std::strerror(err));
  }
  std::string path = pathFor(key);
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    return Status::error("cannot rename " + tmp + " to " + path + ": " +
                         std::strerror(err));
  }
  return Status();
}

} // namespace tilec::runtime
