// core/io/files.cpp — atomic writes, the temporary-file registry and its signal handler, and
// reading regular files only (see core/io/files.h).
#include "core/io/files.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <mutex>
#include <stdexcept>

namespace d2l {

std::string file_kind(unsigned mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// --- the registry of temporaries and the SIGINT/SIGTERM handler ----------------------------
namespace {

// Fixed storage: the handler may only read memory that is never reallocated. A slot is free
// (0), being claimed (1), or holds a path the handler unlinks (2).
constexpr int kSlots = 32;
constexpr size_t kPathMax = 4096;
struct Slot {
  std::atomic<int> state{0};
  char path[kPathMax];
};
Slot g_slots[kSlots];
// The signals whose default action ends the program (without a core dump, or with one for
// SIGQUIT): a save they interrupt must not leave its temporary.
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1};
constexpr int kNumSignals = sizeof kSignals / sizeof kSignals[0];
struct sigaction g_previous[kNumSignals];  // the dispositions before ours

int signal_index(int sig) {
  for (int i = 0; i < kNumSignals; ++i)
    if (kSignals[i] == sig) return i;
  return 0;
}

void on_signal(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  for (Slot& s : g_slots)
    if (s.state.load(std::memory_order_acquire) == 2) ::unlink(s.path);
  const struct sigaction& prev = g_previous[signal_index(sig)];
  if (prev.sa_flags & SA_SIGINFO) {
    prev.sa_sigaction(sig, info, context);
  } else if (prev.sa_handler == SIG_DFL) {
    // Back to the default action and raise again: the signal stays blocked until this
    // handler returns, then ends the process as if we had never caught it.
    ::sigaction(sig, &prev, nullptr);
    ::raise(sig);
  } else if (prev.sa_handler != SIG_IGN) {
    prev.sa_handler(sig);
  }
  errno = saved_errno;
}

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int i = 0; i < kNumSignals; ++i) {
      struct sigaction now {};
      ::sigaction(kSignals[i], nullptr, &now);
      // An ignored signal stays ignored (a background job's SIGINT, nohup's SIGHUP rule).
      if (!(now.sa_flags & SA_SIGINFO) && now.sa_handler == SIG_IGN) continue;
      g_previous[i] = now;
      struct sigaction mine {};
      mine.sa_sigaction = on_signal;
      sigemptyset(&mine.sa_mask);
      for (int sig : kSignals) sigaddset(&mine.sa_mask, sig);
      mine.sa_flags = SA_SIGINFO | SA_RESTART;
      ::sigaction(kSignals[i], &mine, nullptr);
    }
  });
}

// umask can only be read by setting it; done once, before any thread of ours writes files.
mode_t process_umask() {
  static const mode_t mask = [] {
    const mode_t m = ::umask(022);
    ::umask(m);
    return m;
  }();
  return mask;
}

[[noreturn]] void cannot_write(const char* op, const std::string& path, const std::string& why) {
  throw std::runtime_error("[" + std::string(op) + "] cannot write '" + path + "': " + why);
}

// Refuses a target that exists and is not a regular file.
void check_target_type(const std::string& path, const char* op) {
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode))
      cannot_write(op, path, "it is " + file_kind(st.st_mode) +
                                 ", not a regular file; refusing to replace it (choose another path)");
  } else if (errno != ENOENT) {
    cannot_write(op, path, std::strerror(errno));
  }
}

}  // namespace

TemporaryFile::TemporaryFile(const std::string& target, const char* op) : target_(target), op_(op) {
  if (target.empty()) cannot_write(op, target, "empty file name");
  const std::string pattern = target + ".tmp.XXXXXX";
  if (pattern.size() >= kPathMax) cannot_write(op, target, "the path is longer than " + std::to_string(kPathMax - 12) + " bytes");
  install_handlers();
  process_umask();
  for (int i = 0; i < kSlots && slot_ < 0; ++i) {
    int expected = 0;
    if (g_slots[i].state.compare_exchange_strong(expected, 1)) slot_ = i;
  }
  if (slot_ < 0) cannot_write(op, target, std::to_string(kSlots) + " temporary files are open already");
  Slot& s = g_slots[slot_];
  std::memcpy(s.path, pattern.c_str(), pattern.size() + 1);
  // Live before mkstemp creates the file, so no moment exists in which the file is there but
  // unknown to the handler (unlinking the pattern itself is harmless).
  s.state.store(2, std::memory_order_release);
  fd_ = ::mkostemp(s.path, O_CLOEXEC);
  if (fd_ < 0) {
    const std::string why = std::strerror(errno);
    s.state.store(0, std::memory_order_release);
    slot_ = -1;
    cannot_write(op, target, "cannot create a temporary file next to it: " + why + " (is the folder there and writable?)");
  }
  path_ = s.path;
}

TemporaryFile::~TemporaryFile() { discard(); }

void TemporaryFile::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (slot_ >= 0) {
    ::unlink(path_.c_str());
    g_slots[slot_].state.store(0, std::memory_order_release);
    slot_ = -1;
  }
}

void TemporaryFile::fail(const std::string& why) {
  discard();
  cannot_write(op_.c_str(), target_, why);
}

void TemporaryFile::write(const std::string& bytes) {
  if (fd_ < 0) fail("the temporary file is closed");
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(std::string("write to '") + path_ + "' failed: " + std::strerror(errno) + " (disk full?)");
    done += static_cast<size_t>(n);
  }
}

void TemporaryFile::commit() {
  if (fd_ < 0) fail("the temporary file is closed");
  // Flushed to the disk before the rename: otherwise the rename could reach the disk first
  // and a power cut leave an empty file under the target's name.
  // mkstemp creates the file readable by its owner only; give it the mode a plain create
  // would have, 0666 less the umask.
  if (::fchmod(fd_, 0666 & ~process_umask()) != 0) fail(std::string("chmod of '") + path_ + "' failed: " + std::strerror(errno));
  if (::fsync(fd_) != 0) fail(std::string("fsync of '") + path_ + "' failed: " + std::strerror(errno));
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail(std::string("close of '") + path_ + "' failed: " + std::strerror(errno));
  // Checked again: something else may have appeared at the target since it was first checked.
  try {
    check_target_type(target_, op_.c_str());
  } catch (...) {
    discard();
    throw;
  }
  // For the interrupted-save test only: stop here (SIGSTOP) with the temporary written, when
  // its path contains the variable's value; the test then sends SIGINT and SIGCONT.
  if (const char* stop = std::getenv("D2L_TEST_STOP_BEFORE_RENAME"); stop && *stop && path_.find(stop) != std::string::npos)
    ::raise(SIGSTOP);
  if (::rename(path_.c_str(), target_.c_str()) != 0)
    fail(std::string("cannot rename '") + path_ + "' over it: " + std::strerror(errno));
  g_slots[slot_].state.store(0, std::memory_order_release);
  slot_ = -1;
}

void check_writable_target(const std::string& path, const char* op) {
  check_target_type(path, op);
  TemporaryFile probe(path, op);  // created and removed: the folder takes new files
}

void write_file_atomically(const std::string& path, const std::string& bytes, const char* op) {
  check_target_type(path, op);  // before anything is written
  TemporaryFile tmp(path, op);
  tmp.write(bytes);
  tmp.commit();
}

// --- reading ------------------------------------------------------------------------------
RegularFileReader::RegularFileReader(const std::string& path, const char* op) : path_(path), op_(op) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) fail(std::string("cannot open: ") + std::strerror(errno));
  struct stat st;
  if (::fstat(fd_, &st) != 0) fail(std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) fail("it is " + file_kind(st.st_mode) + ", not a regular file; refusing to read it");
  size_ = static_cast<uint64_t>(st.st_size);
}

RegularFileReader::~RegularFileReader() {
  if (fd_ >= 0) ::close(fd_);
}

void RegularFileReader::fail(const std::string& why) const {
  throw std::runtime_error("[" + op_ + "] " + path_ + ": " + why);
}

std::string RegularFileReader::read(uint64_t n, const char* what) {
  std::string out(n, '\0');
  uint64_t done = 0;
  while (done < n) {
    const ssize_t got = ::read(fd_, &out[done], n - done);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got < 0) fail(std::string("read failed: ") + std::strerror(errno));
    if (got == 0) fail(std::string("truncated while reading ") + what);
    done += static_cast<uint64_t>(got);
  }
  return out;
}

// --- inputs that may be pipes -------------------------------------------------------------
namespace {

[[noreturn]] void input_fails(const char* op, const std::string& path, const std::string& why) {
  throw std::runtime_error("[" + std::string(op) + "] " + path + ": " + why);
}

std::string mib(uint64_t bytes) {
  return bytes < (uint64_t{1} << 20) ? std::to_string(bytes) + " bytes" : std::to_string(bytes >> 20) + " MiB";
}

// An open descriptor with its type checked; closed on destruction.
struct Input {
  int fd = -1;
  struct stat st {};
  Input(const std::string& path, const char* op) {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever.
    fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) input_fails(op, path, std::string("cannot open: ") + std::strerror(errno));
    if (::fstat(fd, &st) != 0) input_fails(op, path, std::string("cannot stat: ") + std::strerror(errno));
    if (S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode))
      input_fails(op, path, "it is " + file_kind(st.st_mode) + ", not a file; refusing to read it");
  }
  ~Input() {
    if (fd >= 0) ::close(fd);
  }
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;
};

void check_regular_size(const Input& in, const std::string& path, const char* op, uint64_t max_bytes) {
  if (static_cast<uint64_t>(in.st.st_size) > max_bytes)
    input_fails(op, path, "it is " + mib(static_cast<uint64_t>(in.st.st_size)) + ", more than the " + mib(max_bytes) +
                              " this reader accepts");
}

// A stream (FIFO, pipe, device): waits up to a second for data or its end, then reads in the
// ordinary blocking way up to max_bytes.
std::string read_stream(Input& in, const std::string& path, const char* op, uint64_t max_bytes, bool text) {
  struct pollfd p {};
  p.fd = in.fd;
  p.events = POLLIN;
  int ready;
  do ready = ::poll(&p, 1, 1000);
  while (ready < 0 && errno == EINTR);
  if (ready < 0) input_fails(op, path, std::string("poll failed: ") + std::strerror(errno));
  if (ready == 0)
    input_fails(op, path, "it is " + file_kind(in.st.st_mode) +
                              " and nothing arrived within a second (a FIFO with no writer?); "
                              "pass a regular file, or start the writer first");
  const int flags = ::fcntl(in.fd, F_GETFL);
  if (flags >= 0) ::fcntl(in.fd, F_SETFL, flags & ~O_NONBLOCK);
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const ssize_t got = ::read(in.fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) input_fails(op, path, std::string("read failed: ") + std::strerror(errno));
    if (got == 0) break;
    if (text && std::memchr(buf, '\0', static_cast<size_t>(got)))
      input_fails(op, path, "a NUL byte at byte " +
                                std::to_string(out.size() + static_cast<size_t>(
                                    static_cast<const char*>(std::memchr(buf, '\0', static_cast<size_t>(got))) - buf)) +
                                " of " + file_kind(in.st.st_mode) + ": binary data (such as /dev/zero), not text");
    if (out.size() + static_cast<uint64_t>(got) > max_bytes)
      input_fails(op, path, "more than " + mib(max_bytes) + " from " + file_kind(in.st.st_mode) +
                                " (an endless device such as /dev/zero?); refusing to read on");
    out.append(buf, static_cast<size_t>(got));
  }
  return out;
}

}  // namespace

std::string read_input_file(const std::string& path, const char* op, uint64_t max_bytes, bool text) {
  Input in(path, op);
  if (!S_ISREG(in.st.st_mode)) return read_stream(in, path, op, std::min(max_bytes, kMaxStreamInputBytes), text);
  check_regular_size(in, path, op, max_bytes);
  std::string out;
  out.reserve(static_cast<size_t>(in.st.st_size));
  char buf[1 << 16];
  for (;;) {  // to the end: a file that grows while read is read as far as max_bytes
    const ssize_t got = ::read(in.fd, buf, sizeof buf);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got < 0) input_fails(op, path, std::string("read failed: ") + std::strerror(errno));
    if (got == 0) break;
    if (out.size() + static_cast<uint64_t>(got) > max_bytes)
      input_fails(op, path, "more than the " + mib(max_bytes) + " this reader accepts");
    out.append(buf, static_cast<size_t>(got));
  }
  return out;
}

std::unique_ptr<std::istream> open_input_stream(const std::string& path, const char* op, uint64_t max_bytes) {
  Input in(path, op);
  if (!S_ISREG(in.st.st_mode))
    return std::make_unique<std::istringstream>(
        read_stream(in, path, op, std::min(max_bytes, kMaxStreamInputBytes), /*text=*/true));
  check_regular_size(in, path, op, max_bytes);
  auto file = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*file) input_fails(op, path, std::string("cannot open: ") + std::strerror(errno));
  return file;
}

// --- same file, room ------------------------------------------------------------------------
bool same_file(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  struct stat sa, sb;
  const bool ea = ::stat(a.c_str(), &sa) == 0, eb = ::stat(b.c_str(), &sb) == 0;
  if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (ea != eb) return false;  // one exists, the other not: two files
  // Neither exists yet: the same name in the same folder (the folder's real path).
  namespace fs = std::filesystem;
  std::error_code e1, e2;
  const fs::path pa = fs::path(a), pb = fs::path(b);
  if (pa.filename() != pb.filename()) return false;
  const fs::path da = fs::weakly_canonical(fs::absolute(pa).parent_path(), e1);
  const fs::path db = fs::weakly_canonical(fs::absolute(pb).parent_path(), e2);
  return !e1 && !e2 && da == db;
}

void check_room_for(const std::string& path, uint64_t bytes, const char* op) {
  namespace fs = std::filesystem;
  fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  struct statvfs vfs;
  if (::statvfs(folder.c_str(), &vfs) != 0) cannot_write(op, path, std::string("statvfs failed: ") + std::strerror(errno));
  const uint64_t free_bytes = static_cast<uint64_t>(vfs.f_bavail) * static_cast<uint64_t>(vfs.f_frsize);
  // The old file is replaced only after the new one is complete: both exist for a moment.
  if (free_bytes < bytes)
    cannot_write(op, path, "its folder has " + std::to_string(free_bytes >> 10) + " KiB free, the model needs " +
                               std::to_string((bytes + 1023) >> 10) + " KiB; free some space or choose another folder");
}

}  // namespace d2l
