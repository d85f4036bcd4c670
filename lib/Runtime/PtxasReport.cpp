//===- PtxasReport.cpp - registers and spills from ptxas -v ---------------===//
//
// ptxas decides registers and spills; tilec asks it (-v) rather than
// guessing, and the kernel metadata carries the answer. The report has one
// block per entry function; each number is the one before its unit.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Metadata.h"

#include <cctype>

namespace tilec::runtime {

namespace {

/// The number just before `unit` in `line` ("27 registers" -> 27), or -1.
int64_t numberBefore(std::string_view line, std::string_view unit) {
  size_t at = line.find(unit);
  if (at == std::string_view::npos)
    return -1;
  size_t end = at;
  while (end > 0 && line[end - 1] == ' ')
    --end;
  size_t start = end;
  while (start > 0 && std::isdigit(static_cast<unsigned char>(line[start - 1])))
    --start;
  // 18 digits fit an int64_t; a longer run is not a byte count.
  if (start == end || end - start > 18)
    return -1;
  int64_t v = 0;
  for (size_t i = start; i < end; ++i)
    v = v * 10 + (line[i] - '0');
  return v;
}

/// The kernel name that follows `marker` in `line` (up to a quote or a
/// space), or empty.
std::string_view nameAfter(std::string_view line, std::string_view marker) {
  size_t at = line.find(marker);
  if (at == std::string_view::npos)
    return {};
  std::string_view name = line.substr(at + marker.size());
  return name.substr(0, name.find_first_of("' "));
}

} // namespace

std::map<std::string, KernelResources>
parsePtxasReport(std::string_view report) {
  std::map<std::string, KernelResources> all;
  std::map<std::string, bool> hasRegisters;
  KernelResources *current = nullptr;
  std::string currentName;
  while (!report.empty()) {
    size_t eol = report.find('\n');
    std::string_view line = report.substr(0, eol);
    report = eol == std::string_view::npos ? std::string_view()
                                           : report.substr(eol + 1);
    for (std::string_view marker :
         {"Compiling entry function '", "Function properties for "}) {
      std::string_view name = nameAfter(line, marker);
      if (name.empty())
        continue;
      currentName = std::string(name);
      current = &all[currentName];
    }
    if (!current)
      continue;
    if (int64_t regs = numberBefore(line, " registers"); regs >= 0) {
      current->registers = static_cast<int>(regs);
      hasRegisters[currentName] = true;
    }
    if (int64_t smem = numberBefore(line, " bytes smem"); smem >= 0)
      current->staticSharedBytes = smem;
    if (int64_t stack = numberBefore(line, " bytes stack frame"); stack >= 0)
      current->stackBytes = stack;
    if (int64_t stores = numberBefore(line, " bytes spill stores"); stores >= 0)
      current->spillStoreBytes = stores;
    if (int64_t loads = numberBefore(line, " bytes spill loads"); loads >= 0)
      current->spillLoadBytes = loads;
  }
  // Device functions have properties but no register line of their own.
  for (auto it = all.begin(); it != all.end();)
    it = hasRegisters.count(it->first) ? std::next(it) : all.erase(it);
  return all;
}

} // namespace tilec::runtime
