//===- Ptxas.cpp - registers and shared memory from ptxas -v --------------===//
//
// ptxas decides registers and spills; the analyzer asks it (-v) rather than
// guessing. The report is one block per entry function:
//
//   ptxas info    : Compiling entry function 'softmax' for 'sm_90'
//   ptxas info    : Function properties for softmax
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 27 registers, used 1 barriers, 32 bytes smem, ...
//
//===----------------------------------------------------------------------===//

#include "tilec/PerfModel/Analyzer.h"
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

/// The number just before `unit` in `line` ("27 registers" -> 27), or -1.
int64_t numberBefore(StringRef line, StringRef unit) {
  size_t at = line.find(unit);
  if (at == StringRef::npos)
    return -1;
  StringRef head = line.take_front(at).rtrim();
  size_t start = head.find_last_not_of("0123456789");
  StringRef digits =
      start == StringRef::npos ? head : head.drop_front(start + 1);
  int64_t v;
  if (digits.getAsInteger(10, v))
    return -1;
  return v;
}

} // namespace

std::map<std::string, Resources>
tilec::perfmodel::parsePtxasReport(StringRef report) {
  std::map<std::string, Resources> result;
  Resources *current = nullptr;
  llvm::SmallVector<StringRef> lines;
  report.split(lines, '\n');
  for (StringRef line : lines) {
    for (StringRef marker :
         {"Compiling entry function '", "Function properties for "}) {
      size_t at = line.find(marker);
      if (at == StringRef::npos)
        continue;
      StringRef name = line.drop_front(at + marker.size());
      name = name.take_until([](char c) { return c == '\'' || c == ' '; });
      current = &result[name.str()];
      current->source = "ptxas -v";
      if (current->staticSharedBytes < 0)
        current->staticSharedBytes = 0;
    }
    if (!current)
      continue;
    if (int64_t regs = numberBefore(line, " registers"); regs >= 0)
      current->registers = int(regs);
    if (int64_t smem = numberBefore(line, " bytes smem"); smem >= 0)
      current->staticSharedBytes = smem;
    if (int64_t stack = numberBefore(line, " bytes stack frame"); stack >= 0) {
      current->stackBytes = stack;
      int64_t stores = numberBefore(line, " bytes spill stores");
      int64_t loads = numberBefore(line, " bytes spill loads");
      current->spillBytes = (stores > 0 ? stores : 0) + (loads > 0 ? loads : 0);
    }
  }
  return result;
}

llvm::Expected<std::map<std::string, Resources>>
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
  return parsePtxasReport((*text)->getBuffer());
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
