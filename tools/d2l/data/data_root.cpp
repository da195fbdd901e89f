// tools/d2l/data/data_root.cpp — see data_root.h.
#include "tools/d2l/data/data_root.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#ifndef D2L_SOURCE_ROOT
#define D2L_SOURCE_ROOT ""
#endif

namespace fs = std::filesystem;

namespace d2l {

std::vector<std::string> data_root_candidates() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("D2L_ROOT"); env != nullptr && *env != '\0') dirs.push_back(env);
  dirs.push_back(".");
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);  // Linux; elsewhere skipped
  if (!ec)
    for (fs::path p = exe.parent_path(); !p.empty(); p = p.parent_path()) {
      dirs.push_back(p.string());
      if (p == p.root_path()) break;
    }
  if (std::string(D2L_SOURCE_ROOT).size() > 0) dirs.push_back(D2L_SOURCE_ROOT);
  return dirs;
}

std::string data_root() {
  std::error_code ec;
  // The current directory also counts when it holds only what `make data` fetched (data/):
  // a copy of the book's files, or a test's fixture of them.
  if (fs::is_directory("data", ec) && !std::getenv("D2L_ROOT")) return ".";
  for (const std::string& d : data_root_candidates())
    if (fs::is_directory(fs::path(d) / "chapters" / "data", ec)) return d;
  return ".";
}

}  // namespace d2l
