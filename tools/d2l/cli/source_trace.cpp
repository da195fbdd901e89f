// tools/d2l/cli/source_trace.cpp — the run's source trace (tools/d2l/cli/source_trace.h).
#include "tools/d2l/cli/source_trace.h"

#include <cstdio>
#include <cstdlib>

namespace d2l {

void trace_source(const char* kind, const char* file, int line, const std::string& text) {
  const char* path = std::getenv("D2L_BOOK_TRACE");
  if (path == nullptr || *path == '\0') return;
  std::string clean = text;
  for (char& c : clean)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  // Opened per line in append mode: a program that stops half-way leaves a trace of what it
  // printed, and a program that restarts itself (prefer_passive_openmp_wait) adds to it.
  std::FILE* f = std::fopen(path, "a");
  if (f == nullptr) {
    static bool told = false;
    if (!told) std::fprintf(stderr, "warning: cannot append to D2L_BOOK_TRACE file %s\n", path);
    told = true;
    return;
  }
  std::fprintf(f, "%s\t%s\t%d\t%s\n", kind, file, line, clean.c_str());
  std::fclose(f);
}

}  // namespace d2l
