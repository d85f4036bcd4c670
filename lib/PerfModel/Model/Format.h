//===- Format.h - printf-style formatting into a std::string ----*- C++ -*-===//
//
// Reports and charts format numbers with printf's conversions (%.3g, %-30s);
// fmt::sprintf keeps those, sizes its output to fit (lines of any length)
// and checks each argument's type, where vsnprintf into a buffer truncated
// silently and trusted the format.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_PERFMODEL_MODEL_FORMAT_H
#define TILEC_LIB_PERFMODEL_MODEL_FORMAT_H

#include <fmt/printf.h>

#include <string>

namespace tilec::perfmodel {

/// `spec` with `args` in printf's notation (std::string args as %s too).
template <typename... Args>
std::string format(const char *spec, const Args &...args) {
  return fmt::sprintf(spec, args...);
}

} // namespace tilec::perfmodel

#endif // TILEC_LIB_PERFMODEL_MODEL_FORMAT_H
