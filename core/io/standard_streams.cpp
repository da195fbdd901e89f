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

void at_exit() {
  // The status exit() was given is not known here; a failed write makes it 1 (coreutils'
  // close_stdout does the same).
  if (close_standard_output(0) != 0) std::_Exit(1);
}

}  // namespace

int close_standard_output(int status) {
  if (g_closed) return status;
  g_closed = true;
  std::cout.flush();  // synchronised with stdio: its writes are already in stdout's buffer
  errno = 0;
  const bool failed_before = std::ferror(stdout) != 0;
  const bool flush_failed = std::fflush(stdout) != 0;
  const int flush_errno = errno;
  // Closing finds errors that only show at close (NFS) and a descriptor closed before start.
  errno = 0;
  const bool close_failed = std::fclose(stdout) != 0;
  const int close_errno = errno;
  if (!failed_before && !flush_failed && !close_failed) return status;
  const int err = flush_failed ? flush_errno : close_failed ? close_errno : 0;
  std::fprintf(stderr, "%s: error: write error on standard output%s%s\n", g_program.c_str(), err ? ": " : "",
               err ? std::strerror(err) : "");
  return status != 0 ? status : 1;
}

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
