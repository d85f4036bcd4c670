//===- Cache.cpp - the on-disk cubin cache --------------------------------===//
//
// Entry layout: 8-byte magic "TILECCB1", the cubin's length and its FNV-1a
// 64-bit checksum (both little-endian uint64), 8 zero bytes, then the cubin.
// The checksum catches a file damaged after a crash (rename makes the entry
// appear whole to other processes, not durable on disk).
//
//===----------------------------------------------------------------------===//

#include "tilec/runtime/Cache.h"

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

namespace tilec::runtime {

//===----------------------------------------------------------------------===//
// SHA-256 (FIPS 180-4)
//===----------------------------------------------------------------------===//

namespace {

constexpr uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

inline uint32_t rotr(uint32_t x, unsigned n) {
  return (x >> n) | (x << (32 - n));
}

void sha256Block(uint32_t state[8], const unsigned char *block) {
  uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = uint32_t(block[4 * i]) << 24 | uint32_t(block[4 * i + 1]) << 16 |
           uint32_t(block[4 * i + 2]) << 8 | uint32_t(block[4 * i + 3]);
  for (int i = 16; i < 64; ++i) {
    uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4],
           f = state[5], g = state[6], h = state[7];
  for (int i = 0; i < 64; ++i) {
    uint32_t s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    uint32_t ch = (e & f) ^ (~e & g);
    uint32_t t1 = h + s1 + ch + kRound[i] + w[i];
    uint32_t s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    uint32_t t2 = s0 + maj;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

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

std::string sha256Hex(std::string_view data) {
  uint32_t state[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const auto *bytes = reinterpret_cast<const unsigned char *>(data.data());
  size_t full = data.size() / 64 * 64;
  for (size_t i = 0; i < full; i += 64)
    sha256Block(state, bytes + i);
  // Padding: 0x80, zeros, then the length in bits (big-endian) to fill the
  // last one or two blocks.
  unsigned char tail[128] = {};
  size_t rest = data.size() - full;
  std::memcpy(tail, bytes + full, rest);
  tail[rest] = 0x80;
  size_t tailBytes = rest + 1 + 8 <= 64 ? 64 : 128;
  uint64_t bits = uint64_t(data.size()) * 8;
  for (int i = 0; i < 8; ++i)
    tail[tailBytes - 1 - i] = static_cast<unsigned char>(bits >> (8 * i));
  sha256Block(state, tail);
  if (tailBytes == 128)
    sha256Block(state, tail + 64);
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(64);
  for (uint32_t word : state)
    for (int shift = 28; shift >= 0; shift -= 4)
      out += hex[(word >> shift) & 0xf];
  return out;
}

std::string cubinCacheKey(const CubinCacheKeyParts &parts) {
  // Length-prefixed fields, so that no two different part lists give the
  // same hashed text.
  std::string text = "tilec-cubin-cache 1\n";
  for (std::string_view field :
       {parts.deviceArch, parts.driverIdentity, parts.jitOptions, parts.ptx}) {
    text += std::to_string(field.size());
    text += ':';
    text += field;
    text += '\n';
  }
  return sha256Hex(text);
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
  int fd = open(pathFor(key).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt;
  std::string data;
  struct stat st;
  bool ok = fstat(fd, &st) == 0 && st.st_size >= off_t(kHeaderBytes);
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
