//===- Ptxas.cpp - PTX to whole-program cubins with ptxas -----------------===//
//
// The driver's linker (cuLink*) compiles PTX as relocatable code, like
// `ptxas -c`, which needs more registers for some kernels than ptxas's
// whole-program mode (bias_gelu 56 instead of 48, layernorm 48 instead of
// 40: 4-5% slower on the H200). The driver has no whole-program JIT that
// hands the cubin back for the cache, so when a ptxas is installed the
// runtime runs it (posix_spawn, files in a private temporary folder).
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "tilec/Support/CudaTools.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace tilec::runtime {

namespace {

std::string readAll(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A private folder under $TMPDIR (or /tmp), removed with its files.
class TempDir {
public:
  TempDir() {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/tilec-ptxas-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()))
      path_ = buf.data();
  }
  ~TempDir() {
    for (const char *f : {"/in.ptx", "/out.cubin", "/log.txt"})
      ::unlink((path_ + f).c_str());
    if (!path_.empty())
      ::rmdir(path_.c_str());
  }
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

} // namespace

std::string findRuntimePtxas(const std::string &configured, std::string &note) {
  std::string asked = configured;
  if (asked.empty())
    if (const char *env = std::getenv("TILEC_RUNTIME_PTXAS"))
      asked = env;
  if (asked == "off") {
    note = "ptxas is off (LoadOptions::ptxas or TILEC_RUNTIME_PTXAS)";
    return "";
  }
  // The search (tilec/Support/CudaTools.h) is the compiler's too.
  return cuda::findPtxas(asked, "TILEC_RUNTIME_PTXAS", &note);
}

std::string ptxasIdentity(const std::string &ptxas) {
  struct stat st;
  if (::stat(ptxas.c_str(), &st) != 0)
    return "ptxas " + ptxas;
  return "ptxas " + ptxas + " " + std::to_string(st.st_size) + " " +
         std::to_string(st.st_mtime) + " whole-program -O3";
}

Expected<std::string> runPtxas(const std::string &ptxas, std::string_view ptx,
                               const std::string &arch, std::string &log) {
  TempDir dir;
  if (dir.path().empty())
    return Status::error(std::string("cannot create a temporary folder for "
                                     "ptxas: ") +
                         std::strerror(errno));
  std::string in = dir.path() + "/in.ptx", out = dir.path() + "/out.cubin",
              logPath = dir.path() + "/log.txt";
  {
    std::ofstream f(in, std::ios::binary);
    f.write(ptx.data(), std::streamsize(ptx.size()));
    if (!f)
      return Status::error("cannot write " + in);
  }
  std::string archFlag = "-arch=" + arch;
  std::vector<std::string> args = {ptxas, archFlag, "-O3", in, "-o", out};
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, logPath.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid;
  int rc =
      posix_spawn(&pid, ptxas.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    return Status::error("cannot run " + ptxas + ": " + std::strerror(rc));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  log = readAll(logPath);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string first = log.substr(0, log.find('\n'));
    return Status::error(ptxas + " " + archFlag + " failed" +
                         (first.empty() ? "" : ": " + first));
  }
  std::string cubin = readAll(out);
  if (cubin.empty())
    return Status::error(ptxas + " wrote no cubin");
  return cubin;
}

} // namespace tilec::runtime
