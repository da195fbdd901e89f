// tools/d2l/cli/source_trace.cpp — the run's source trace (tools/d2l/cli/source_trace.h).
#include "tools/d2l/cli/source_trace.h"

#include <cstdio>
#include <cstdlib>

#include <cerrno>
#include <cstring>

#include "core/io/json.h"  // quote_input

namespace d2l {

void trace_source(const char* kind, const char* file, int line, const std::string& text) {
  const char* path = std::getenv("D2L_BOOK_TRACE");
  if (path == nullptr || *path == '\0') return;
  std::string clean = text;
  for (char& c : clean)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  // Opened per line in append mode: a program that stops half-way leaves a trace of what it
  // printed, and a program that restarts itself (prefer_passive_openmp_wait) adds to it.
  // A trace that cannot be written (a missing folder, a full disk) is said once on stderr:
  // the pages would otherwise show the output without its source lines, silently.
  static bool told = false;
  auto warn = [path](const char* what) {
    if (!told)
      std::fprintf(stderr, "warning: cannot %s the D2L_BOOK_TRACE file %s: %s\n", what,
                   quote_input(path, 200, '\'').c_str(), std::strerror(errno));
    told = true;
  };
  std::FILE* f = std::fopen(path, "a");
  if (f == nullptr) return warn("open");
  const bool wrote = std::fprintf(f, "%s\t%s\t%d\t%s\n", kind, file, line, clean.c_str()) >= 0;
  if (std::fclose(f) != 0 || !wrote) warn("write to");
}

}  // namespace d2l
