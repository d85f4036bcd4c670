//===- PtxSim.cpp - a PTX interpreter for tests without a GPU -------------===//
//
// The entry point: parses a kernel once (Parser.cpp; programs are cached
// by text and name) and runs each cluster of blocks of the grid, one after
// another (Cluster.h, Block.h), turning what the simulator refuses or
// detects into the returned message.
//
//===----------------------------------------------------------------------===//

#include "PtxSim.h"

#include "Cluster.h"

#include <map>
#include <memory>
#include <mutex>
#include <set>

namespace ptxsim {
namespace {

using namespace detail;

std::mutex gCacheMutex;
std::map<std::pair<std::string, std::string>, std::shared_ptr<Program>>
    gCache;

std::shared_ptr<Program> getProgram(const std::string &ptx,
                                    const std::string &kernel) {
  std::lock_guard<std::mutex> lock(gCacheMutex);
  auto key = std::make_pair(kernel, ptx);
  auto it = gCache.find(key);
  if (it != gCache.end())
    return it->second;
  auto prog = std::make_shared<Program>();
  detail::parseProgram(*prog, ptx, kernel);
  gCache[key] = prog;
  return prog;
}

} // namespace

std::string run(const std::string &ptx, const std::string &kernel,
                const Launch &launch, const GlobalCheck &valid) {
  try {
    std::shared_ptr<Program> prog = getProgram(ptx, kernel);
    // The module's own arrays (libdevice tables) are device memory too.
    GlobalCheck inModule = [&](uint64_t a, uint64_t n) {
      for (const auto &g : prog->globals) {
        uint64_t lo = reinterpret_cast<uint64_t>(g->data());
        if (a >= lo && a + n <= lo + g->size())
          return true;
      }
      return valid(a, n);
    };
    if (launch.params.size() != prog->paramSizes.size())
      return "ptxsim: " + kernel + " takes " +
             std::to_string(prog->paramSizes.size()) + " parameters, got " +
             std::to_string(launch.params.size());
    // As the driver: the grid is whole clusters (CUDA_ERROR_INVALID_CLUSTER_
    // SIZE), at most 8 blocks each without the non-portable opt-in.
    const unsigned *c = prog->cluster;
    auto shape = [](const unsigned *d) {
      return "(" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," +
             std::to_string(d[2]) + ")";
    };
    for (int i = 0; i < 3; ++i)
      if (launch.grid[i] % c[i])
        return "ptxsim: " + kernel + ": the grid " + shape(launch.grid) +
               " is not a multiple of the kernel's cluster shape " +
               shape(c) +
               " (.reqnctapercluster): the launch fails with "
               "CUDA_ERROR_INVALID_CLUSTER_SIZE";
    if (c[0] * c[1] * c[2] > 8)
      return "ptxsim: " + kernel + ": a cluster of " +
             std::to_string(c[0] * c[1] * c[2]) +
             " blocks is more than the portable 8 (the non-portable sizes "
             "are not simulated)";
    std::set<int> noted;
    for (unsigned z = 0; z < launch.grid[2]; z += c[2])
      for (unsigned y = 0; y < launch.grid[1]; y += c[1])
        for (unsigned x = 0; x < launch.grid[0]; x += c[0]) {
          const unsigned first[3] = {x, y, z};
          Cluster cluster(*prog, launch, inModule, first, noted);
          cluster.run();
        }
    return "";
  } catch (const SimError &e) {
    return std::string("ptxsim: ") + kernel + ": " + e.what();
  }
}

} // namespace ptxsim
