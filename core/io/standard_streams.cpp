// core/io/standard_streams.cpp — failed writes to standard output end the program with an error
// (core/io/standard_streams.h).
#include "core/io/standard_streams.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "core/io/files.h"

namespace d2l {

namespace {

std::string g_program = "d2l";
bool g_closed = false;

// Whether every write to standard output succeeded; says so on stderr when not.
bool standard_output_written() {
  if (g_closed) return true;
  g_closed = true;
  std::cout.flush();  // synchronised with stdio: its writes are already in stdout's buffer
  errno = 0;
  const bool failed_before = std::ferror(stdout) != 0;
  const bool flush_failed = std::fflush(stdout) != 0;
  const int err = flush_failed ? errno : 0;
  // Not fclose: an exit handler registered earlier, or a static destructor, may still print.
  if (!failed_before && !flush_failed) return true;
  std::fprintf(stderr, "%s: error: write error on standard output%s%s\n", g_program.c_str(), err ? ": " : "",
               err ? std::strerror(err) : "");
  return false;
}

void at_exit() {
  // The status exit() was given is not known here; a failed write makes it 1 (coreutils'
  // close_stdout does the same).
  if (!standard_output_written()) std::_Exit(1);
}

}  // namespace

void check_standard_output_at_exit(const char* program) {
  static bool installed = false;
  if (installed) return;
  installed = true;
  g_program = program;
  for (int fd = 0; fd <= 2; ++fd)
    if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      // Opened for the other direction: the number is taken, and every use of it fails with
      // EBADF as before.
      const int got = ::open("/dev/null", (fd == 0 ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
      if (got >= 0 && got != fd) {
        ::dup2(got, fd);
        ::close(got);
      }
    }
  ignore_file_size_signal();
  std::atexit(at_exit);
}

}  // namespace d2l
