//===- Ptxas.cpp - registers and shared memory from ptxas -v --------------===//
//
// ptxas decides registers and spills; the analyzer asks it (-v) rather than
// guessing, and reads its report with runtime::parsePtxasReport.
//
//===----------------------------------------------------------------------===//

#include "tilec/PerfModel/Analyzer.h"
#include "tilec/Runtime/Metadata.h"
#include "tilec/Support/CudaTools.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace tilec::perfmodel;
using llvm::StringRef;

namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace

llvm::Expected<std::map<std::string, tilec::runtime::KernelResources>>
tilec::perfmodel::ptxasResources(StringRef ptx, StringRef arch,
                                 StringRef ptxasPath) {
  std::string why;
  std::string ptxas = cuda::findPtxas(ptxasPath, "TILEC_PTXAS", &why);
  if (ptxas.empty())
    return fail(why);
  llvm::SmallString<128> in, out, log;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("tilec-analyze", "ptx", fd, in) ||
      llvm::sys::fs::createTemporaryFile("tilec-analyze", "cubin", out) ||
      llvm::sys::fs::createTemporaryFile("tilec-analyze", "log", log))
    return fail("cannot create temporary files for ptxas");
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  std::string archFlag = "-arch=" + arch.str();
  llvm::SmallVector<StringRef> argv = {ptxas, "-v", archFlag, in, "-o", out};
  std::optional<StringRef> redirects[] = {std::nullopt, log, log};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(ptxas, argv, std::nullopt, redirects, 0, 0,
                                     &execError);
  auto text = llvm::MemoryBuffer::getFile(log);
  llvm::sys::fs::remove(in);
  llvm::sys::fs::remove(out);
  llvm::sys::fs::remove(log);
  if (rc != 0) {
    std::string message = execError;
    if (text && !(*text)->getBuffer().empty())
      message = (*text)->getBuffer().trim().split('\n').first.str();
    return fail("ptxas failed: " + message);
  }
  if (!text)
    return fail("cannot read ptxas's report");
  return tilec::runtime::parsePtxasReport((*text)->getBuffer().str());
}

bool tilec::perfmodel::hasTensorCoreInstructions(StringRef ptx) {
  // mma.sync (sm_80+) and wgmma.mma_async (sm_90a); ldmatrix alone is not.
  return ptx.contains("mma.sync") || ptx.contains("wgmma.");
}

void tilec::perfmodel::countDotsOnFmaPipe(LaunchCounts &counts,
                                          StringRef module) {
  bool moved = false;
  for (DotCount &d : counts.dots)
    if (d.kind != "ieee" && !StringRef(d.kind).starts_with("fma:")) {
      d.kind = "fma:" + d.kind;
      moved = true;
    }
  if (moved)
    counts.notes.push_back(module.str() +
                           ".ptx has no tensor-core instructions (mma, "
                           "wgmma): its tile.dot work is counted on the FMA "
                           "pipe");
}
