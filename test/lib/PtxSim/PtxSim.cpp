//===- PtxSim.cpp - a PTX interpreter for tests without a GPU -------------===//
//
// The entry point: parses a kernel once (Parser.cpp; programs are cached
// by text and name) and runs each block of the grid (Block.h, Block.cpp,
// Sm90.cpp), turning what the simulator refuses or detects into the
// returned message.
//
//===----------------------------------------------------------------------===//

#include "PtxSim.h"

#include "Block.h"

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
    std::set<int> noted;
    for (unsigned z = 0; z < launch.grid[2]; ++z)
      for (unsigned y = 0; y < launch.grid[1]; ++y)
        for (unsigned x = 0; x < launch.grid[0]; ++x) {
          Block b(*prog, launch, inModule, x, y, z, noted);
          b.run();
        }
    return "";
  } catch (const SimError &e) {
    return std::string("ptxsim: ") + kernel + ": " + e.what();
  }
}

} // namespace ptxsim
