// core/io/files.cpp — atomic writes, the temporary-file registry and its signal handler, and
// reading regular files only (see core/io/files.h).
#include "core/io/files.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <ctime>
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
#include <vector>

#include "core/io/utf8.h"

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
    // A write beyond the file-size limit (ulimit -f) kills the program by default, with no
    // message and the temporary left behind; ignored, the write fails with EFBIG, which the
    // save reports (and it removes its temporary).
    ignore_file_size_signal();
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

// A temporary left by a save that was killed (kill -9, a power cut: no handler runs) is
// removed by the next save of the same target. Each live temporary holds an flock on its
// descriptor, which the kernel drops when its process ends: a temporary that is unlocked and
// has not been written for a few seconds belongs to no one.
void remove_stale_temporaries(const std::string& target) {
  namespace fs = std::filesystem;
  const fs::path t(target);
  const std::string folder = t.parent_path().empty() ? "." : t.parent_path().string();
  const std::string prefix = t.filename().string() + ".tmp.";
  DIR* dir = ::opendir(folder.c_str());
  if (!dir) return;
  const time_t now = ::time(nullptr);
  while (const dirent* e = ::readdir(dir)) {
    const std::string name = e->d_name;
    if (name.size() != prefix.size() + 6 || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string path = folder + "/" + name;
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat st;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() && now - st.st_mtime >= 5 &&
        ::flock(fd, LOCK_EX | LOCK_NB) == 0)
      ::unlink(path.c_str());
    ::close(fd);
  }
  ::closedir(dir);
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
  ::flock(fd_, LOCK_EX | LOCK_NB);  // "in use" for remove_stale_temporaries; dropped with the process
  remove_stale_temporaries(target);
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
    if (n <= 0)
      fail(std::string("write to '") + path_ + "' failed: " + std::strerror(errno) +
           (errno == EFBIG ? " (the file-size limit, ulimit -f, is smaller than the file; raise it or save elsewhere)"
                           : " (disk full?)"));
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

void ignore_file_size_signal() {
  struct sigaction now {};
  if (::sigaction(SIGXFSZ, nullptr, &now) == 0 && !(now.sa_flags & SA_SIGINFO) && now.sa_handler == SIG_DFL)
    std::signal(SIGXFSZ, SIG_IGN);
}

// --- what a file is; the run's inputs and outputs -------------------------------------------
ContentKind content_kind(const std::string& b) {
  auto starts = [&b](const char* magic, size_t n) { return b.size() >= n && std::memcmp(b.data(), magic, n) == 0; };
  if (b.empty()) return ContentKind::kEmpty;
  if (starts("D2LPARAM", 8)) return ContentKind::kParams;
  if (starts("\x93NUMPY", 6)) return ContentKind::kNpy;
  if (starts("\x89PNG\r\n\x1a\n", 8)) return ContentKind::kPng;
  if (starts("\x7f" "ELF", 4) || starts("#!", 2)) return ContentKind::kExecutable;
  // safetensors: an 8-byte little-endian header length (small: its high bytes are zero, which
  // text never has), then the JSON header.
  if (b.size() >= 9 && b[8] == '{' && b[4] == 0 && b[5] == 0 && b[6] == 0 && b[7] == 0) return ContentKind::kSafetensors;
  const size_t start = std::min(b.find_first_not_of(" \t\r\n"), b.size());
  std::string head = b.substr(start, 16);
  for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (head.rfind("<?xml", 0) == 0 || head.rfind("<svg", 0) == 0) return ContentKind::kSvg;
  if (head.rfind("<!doctype html", 0) == 0 || head.rfind("<html", 0) == 0) return ContentKind::kHtml;
  if (head.rfind("digraph", 0) == 0) return ContentKind::kDot;
  // Text: no control characters but layout ones, and valid UTF-8 (a sequence cut by the end
  // of the sample is allowed).
  const std::string sample = b.substr(0, 4096);
  for (unsigned char c : sample)
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') || c == 0x7F) return ContentKind::kOther;
  const int64_t bad = first_invalid_utf8(sample);
  if (bad >= 0 && (sample.size() < 4096 || static_cast<size_t>(bad) + 4 < sample.size())) return ContentKind::kOther;
  return ContentKind::kText;
}

const char* content_kind_name(ContentKind kind) {
  switch (kind) {
    case ContentKind::kEmpty: return "an empty file";
    case ContentKind::kParams: return "a parameter file";
    case ContentKind::kSafetensors: return "a safetensors file";
    case ContentKind::kNpy: return "a NumPy .npy array";
    case ContentKind::kPng: return "a PNG image";
    case ContentKind::kSvg: return "an SVG image";
    case ContentKind::kHtml: return "an HTML page";
    case ContentKind::kDot: return "a Graphviz dot graph";
    case ContentKind::kText: return "a text file";
    case ContentKind::kExecutable: return "an executable";
    case ContentKind::kOther: break;
  }
  return "data of an unknown kind";
}

namespace {

// A file is known by its device, inode and change time: an inode freed (a file replaced by a
// rename) and given to a new file is another file, with a later ctime.
struct RunFile {
  dev_t dev;
  ino_t ino;
  struct timespec ctime;
  std::string path, op;
  ContentKind kind;  // an output's
  bool is(const struct stat& st) const {
    return dev == st.st_dev && ino == st.st_ino && ctime.tv_sec == st.st_ctim.tv_sec &&
           ctime.tv_nsec == st.st_ctim.tv_nsec;
  }
};
std::mutex g_run_files_mutex;
std::vector<RunFile> g_inputs, g_outputs;  // guarded by g_run_files_mutex
std::atomic<bool> g_overwrite_any{false};

void note(std::vector<RunFile>& list, const std::string& path, const struct stat& st, const char* op,
          ContentKind kind = ContentKind::kEmpty) {
  std::lock_guard<std::mutex> lock(g_run_files_mutex);
  for (RunFile& f : list)
    if (f.is(st)) return;
  list.push_back({st.st_dev, st.st_ino, st.st_ctim, path, op, kind});
}

const RunFile* find_run_file(const std::vector<RunFile>& list, const struct stat& st) {
  for (const RunFile& f : list)
    if (f.is(st)) return &f;
  return nullptr;
}

// Sources and documents of a repository, by name: never an output, whatever their bytes.
bool is_source_name(const std::string& path) {
  namespace fs = std::filesystem;
  const std::string name = fs::path(path).filename().string();
  std::string ext = fs::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* e : {".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".py", ".sh", ".md", ".rst", ".mk"})
    if (ext == e) return true;
  return name == "Makefile" || name == "makefile" || name.rfind("README", 0) == 0 || name.rfind("LICENSE", 0) == 0;
}

// A model file (either format) may replace one of the same format that this run read.
bool is_model(ContentKind k) { return k == ContentKind::kParams || k == ContentKind::kSafetensors; }

}  // namespace

void note_input_file(const std::string& path, const char* op) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) note(g_inputs, path, st, op);
}

void allow_overwriting_any_file(bool allow) { g_overwrite_any = allow; }

void check_output_target(const std::string& path, ContentKind kind, const char* op) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;  // new, or refused by its type
  std::string head;
  {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
      char buf[4096];
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n > 0) head.assign(buf, static_cast<size_t>(n));
      ::close(fd);
    }
  }
  const ContentKind there = content_kind(head);
  const char* writing = kind == ContentKind::kEmpty ? "the output" : content_kind_name(kind);
  {
    std::lock_guard<std::mutex> lock(g_run_files_mutex);
    if (const RunFile* in = find_run_file(g_inputs, st); in && !(is_model(kind) && kind == there))
      cannot_write(op, path, "it is an input of this run (read by [" + in->op + "]); " + writing +
                                 " would replace it; choose another path");
    if (const RunFile* out = find_run_file(g_outputs, st); out && out->kind != kind && kind != ContentKind::kEmpty)
      cannot_write(op, path, "this run wrote it already, as " + std::string(content_kind_name(out->kind)) + " (by [" +
                                 out->op + "]); " + writing + " would replace it; choose another path");
  }
  if (g_overwrite_any) return;
  // An execute bit alone does not make a program: a model on a FAT or NTFS mount has one; its
  // bytes say what it is.
  const bool written_here = there != ContentKind::kText && there != ContentKind::kOther && there != ContentKind::kEmpty;
  const bool executable = there == ContentKind::kExecutable || ((st.st_mode & 0111) != 0 && !written_here && there != kind);
  const char* hint = "; refusing to replace it (choose another path, or pass --force to replace it anyway)";
  if (executable) cannot_write(op, path, std::string("it is an executable") + hint);
  if (is_source_name(path)) cannot_write(op, path, std::string("it is a source file or document") + hint);
  if (kind == ContentKind::kEmpty || there == ContentKind::kEmpty) return;
  if (there != kind || there == ContentKind::kOther)
    cannot_write(op, path, std::string("it exists and is ") + content_kind_name(there) + ", not " +
                               content_kind_name(kind) + " this project wrote" + hint);
}

void check_writable_target(const std::string& path, const char* op, ContentKind kind) {
  check_target_type(path, op);
  check_output_target(path, kind, op);
  TemporaryFile probe(path, op);  // created and removed: the folder takes new files
}

void write_file_atomically(const std::string& path, const std::string& bytes, const char* op) {
  check_target_type(path, op);  // before anything is written
  const ContentKind kind = content_kind(bytes.substr(0, 4096));
  check_output_target(path, kind, op);
  TemporaryFile tmp(path, op);
  tmp.write(bytes);
  tmp.commit();
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) note(g_outputs, path, st, op, kind);
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
  note_input_file(path, op);
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
    if (S_ISREG(st.st_mode)) note_input_file(path, op);
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
