// tests/fuzz/fuzz_util.h — shared by the libFuzzer targets (`make fuzz`, see the Makefile).
//
// The readers take a path, as the programs do, so each input is written to a scratch file
// first: in /dev/shm (memory) when it exists, named after the process so that parallel
// fuzzers do not share it. A target catches only the exception type its reader documents for
// bad input; anything else (std::out_of_range, std::length_error, a crash, a sanitizer
// report) escapes and libFuzzer records the input as a crash.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace d2l_fuzz {

inline std::string scratch_path(const char* tag) {
  static const std::string dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  return dir + "/d2l_fuzz_" + tag + "_" + std::to_string(getpid());
}

// Writes the bytes to scratch_path(tag) and returns the path.
inline std::string write_scratch(const char* tag, const uint8_t* data, size_t size) {
  const std::string path = scratch_path(tag);
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();  // the harness itself is broken: stop loudly
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  return path;
}

// An invariant of the reader's result failed: print it and abort, so libFuzzer keeps the input.
[[noreturn]] inline void invariant_failed(const char* what) {
  std::fprintf(stderr, "fuzz invariant failed: %s\n", what);
  std::abort();
}
#define D2L_FUZZ_CHECK(cond) \
  do {                       \
    if (!(cond)) ::d2l_fuzz::invariant_failed(#cond); \
  } while (0)

}  // namespace d2l_fuzz
