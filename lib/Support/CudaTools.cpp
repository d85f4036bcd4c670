//===- CudaTools.cpp - finding ptxas, libdevice and the toolkit -----------===//
//
// POSIX calls only (stat, access, getenv): the runtime uses this without
// LLVM.
//
//===----------------------------------------------------------------------===//

#include "tilec/Support/CudaTools.h"

#include <cstdlib>
#include <sys/stat.h>
#include <unistd.h>

namespace tilec::cuda {

namespace {

bool isFile(const std::string &path) {
  struct stat st;
  return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string env(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}

/// The first `name` in the folders of $PATH that is an executable file.
std::string findInPath(const char *name) {
  std::string dirs = env("PATH");
  size_t start = 0;
  while (start < dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos)
      end = dirs.size();
    // An empty entry means the working folder; tools are not taken from it.
    if (end > start) {
      std::string candidate = dirs.substr(start, end - start) + "/" + name;
      if (isExecutableFile(candidate))
        return candidate;
    }
    start = end + 1;
  }
  return "";
}

/// "/a/b/bin/ptxas" -> "/a/b".
std::string grandparent(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0)
    return "";
  slash = path.rfind('/', slash - 1);
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

} // namespace

bool isExecutableFile(const std::string &path) {
  return isFile(path) && ::access(path.c_str(), X_OK) == 0;
}

std::string findPtxas(std::string_view configured, const char *envVar,
                      std::string *why, std::string_view root) {
  std::string asked(configured);
  if (asked.empty() && envVar)
    asked = env(envVar);
  if (!asked.empty()) {
    if (isExecutableFile(asked))
      return asked;
    if (why)
      *why = "no ptxas at '" + asked + "'";
    return "";
  }
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"}) {
    std::string dir = env(var);
    if (!dir.empty() && isExecutableFile(dir + "/bin/ptxas"))
      return dir + "/bin/ptxas";
  }
  if (std::string found = findInPath("ptxas"); !found.empty())
    return found;
  std::string fixed = std::string(root) + "/bin/ptxas";
  if (isExecutableFile(fixed))
    return fixed;
  if (why)
    *why = "no ptxas found (" +
           (envVar ? "$" + std::string(envVar) + ", " : std::string()) +
           "$CUDA_HOME/bin, $CUDA_PATH/bin, PATH, " + fixed + ")";
  return "";
}

std::string findToolkit(std::string_view root) {
  auto hasLibdevice = [](const std::string &dir) {
    return !dir.empty() && isFile(dir + "/" + std::string(kLibdeviceSubpath));
  };
  for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"}) {
    std::string dir = env(var);
    if (!dir.empty())
      return hasLibdevice(dir) ? dir : "";
  }
  if (std::string dir = grandparent(findInPath("ptxas")); hasLibdevice(dir))
    return dir;
  std::string fixed(root);
  return hasLibdevice(fixed) ? fixed : "";
}

std::string findLibdevice(std::string_view root) {
  std::string dir = findToolkit(root);
  return dir.empty() ? "" : dir + "/" + std::string(kLibdeviceSubpath);
}

} // namespace tilec::cuda
