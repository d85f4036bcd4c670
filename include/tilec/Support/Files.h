//===- Files.h - output paths the tools are given ---------------*- C++ -*-===//
//
// The tools create the folders of the output paths they are given, as
// compilers do for `-o a/b/c.o`: `tilec-profile --out a/b` with `a` missing
// makes `a` and `a/b`. Header-only: only the tools include it.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_FILES_H
#define TILEC_SUPPORT_FILES_H

#include <filesystem>
#include <string>
#include <system_error>

namespace tilec::support {

/// Creates the folder `dir` and its missing parents. False, with `error`
/// naming the folder and the reason, when it cannot (a file is in the way,
/// no permission).
inline bool createFolders(const std::string &dir, std::string &error) {
  if (dir.empty())
    return true;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!ec && std::filesystem::is_directory(dir, ec))
    return true;
  error = "cannot create folder '" + dir + "': " +
          (ec ? ec.message() : std::string("a file is in the way"));
  return false;
}

/// Creates the missing folders above the file `path` (none for a bare
/// file name).
inline bool createParentFolders(const std::string &path, std::string &error) {
  return createFolders(std::filesystem::path(path).parent_path().string(),
                       error);
}

} // namespace tilec::support

#endif // TILEC_SUPPORT_FILES_H
