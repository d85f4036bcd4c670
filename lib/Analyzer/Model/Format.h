//===- Format.h - printf into a std::string ---------------------*- C++ -*-===//
//
// The model library cannot use llvm::format (no LLVM with
// TILEC_RUNTIME_ONLY); reports and charts format numbers with this.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_ANALYZER_MODEL_FORMAT_H
#define TILEC_LIB_ANALYZER_MODEL_FORMAT_H

#include <cstdarg>
#include <cstdio>
#include <string>

namespace tilec::analyzer {

/// std::snprintf into a string (lines of reports, SVG elements: short).
inline std::string format(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
inline std::string format(const char *fmt, ...) {
  char buf[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return buf;
}

} // namespace tilec::analyzer

#endif // TILEC_LIB_ANALYZER_MODEL_FORMAT_H
