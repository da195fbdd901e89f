// core/io/files.h — writing an output file so that nobody ever sees half of it, and reading an
// input file only when it is a plain file.
//
// Every file the programs write (parameter files, figures) goes through write_file_atomically:
//   1. the target is checked: if it exists it must be a regular file. A symbolic link, FIFO,
//      device node or directory is refused before anything is written (renaming over
//      /dev/null would replace the device with a regular file);
//   2. the bytes go to a temporary with a unique name in the target's folder,
//      PATH.tmp.XXXXXX (mkstemp), so two programs writing one path never write into the same
//      temporary; the temporary is flushed to the disk (fsync);
//   3. the temporary is renamed over the target: rename is atomic, so a reader (or a power
//      cut) sees the old file or the new one, never a mix. Of two concurrent writers the one
//      that renames last wins, with its own complete file.
// While a temporary exists it is registered for removal on the signals that end a program by
// default (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1; see TemporaryFile),
// so Ctrl-C, a closed terminal or a timer in the middle of a save leaves no PATH.tmp.XXXXXX.
#pragma once
#include <cstdint>
#include <istream>
#include <memory>
#include <string>

namespace d2l {

// Throws std::runtime_error "[op] cannot write 'path': ..." when the target exists and is
// not a regular file, or its folder is missing or not writable (probed by creating and
// removing a temporary there). Leaves nothing behind. Programs call it before a long run.
void check_writable_target(const std::string& path, const char* op);

// Steps 1–3 above; errors are std::runtime_error "[op] cannot write 'path': <reason>", and a
// failed write leaves the old target untouched and no temporary.
void write_file_atomically(const std::string& path, const std::string& bytes, const char* op);

// A temporary file next to `target`, removed unless commit() renamed it over the target.
// From creation to commit or removal its path is in a fixed-size registry that a handler of
// SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM and SIGUSR1 walks, unlinking every entry (unlink is async-signal-safe; the handler
// allocates nothing) before the signal takes its previous course: the default action
// re-raised, or the handler that was there before. A signal ignored when the first temporary
// is created (a background job's SIGINT) stays ignored.
class TemporaryFile {
 public:
  TemporaryFile(const std::string& target, const char* op);  // creates target.tmp.XXXXXX
  ~TemporaryFile();                                           // removes it unless committed
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  const std::string& path() const { return path_; }
  void write(const std::string& bytes);  // all of them, or throws
  // fsync, close, check the target is still not something else, rename over it.
  void commit();

 private:
  [[noreturn]] void fail(const std::string& why);
  void discard() noexcept;
  std::string target_, path_, op_;
  int fd_ = -1;
  int slot_ = -1;  // the registry entry
};

// A regular file opened for reading. The type is checked on the open descriptor before any
// byte is read: a FIFO (opened with O_NONBLOCK, so the open itself cannot hang waiting for a
// writer), a device such as /dev/zero (endless bytes), a directory or a socket is refused
// with std::runtime_error "[op] path: ...". The size is known before reading.
class RegularFileReader {
 public:
  RegularFileReader(const std::string& path, const char* op);
  ~RegularFileReader();
  RegularFileReader(const RegularFileReader&) = delete;
  RegularFileReader& operator=(const RegularFileReader&) = delete;

  uint64_t size() const { return size_; }
  // Reads exactly n bytes at the current position, or throws "truncated while reading <what>".
  std::string read(uint64_t n, const char* what);

 private:
  [[noreturn]] void fail(const std::string& why) const;
  std::string path_, op_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// Reading an input that may be a pipe: a whole file, or a stream for a line reader. A regular
// file larger than max_bytes is refused before it is read. Anything else (a FIFO, a pipe such
// as bash's <(cat f), a device) is opened without waiting for a writer, then must offer data
// (or its end) within a second: a FIFO nobody writes to is refused instead of hanging. It is
// then read to its end, at most max_bytes: /dev/zero is refused, naming the file, instead of
// filling the memory; with `text`, a stream is refused at its first NUL byte (/dev/zero at
// once). A directory or socket is refused. Errors: std::runtime_error "[op] path: ...".
std::string read_input_file(const std::string& path, const char* op, uint64_t max_bytes, bool text = false);
// The same checks, for text readers that go line by line: a regular file is streamed from the
// disk (a 1 GB table of word vectors is not held twice), anything else is read as above, as
// text.
std::unique_ptr<std::istream> open_input_stream(const std::string& path, const char* op, uint64_t max_bytes);
// The bound the programs' text readers use: a corpus, an SNLI split or a matrix larger than
// this is not what they are for.
constexpr uint64_t kMaxTextInputBytes = uint64_t{4} << 30;  // 4 GiB
// For streams (pipes, devices) the bound is smaller: they are read into memory whole.
constexpr uint64_t kMaxStreamInputBytes = uint64_t{512} << 20;  // 512 MiB

// The same file, not just the same spelling: two paths that exist are one file when their
// device and inode agree (a hard link, "./m.params" and "m.params", a symbolic link); a path
// that does not exist yet is compared by its folder's canonical path and its file name.
bool same_file(const std::string& a, const std::string& b);

// Throws std::runtime_error "[op] cannot write 'path': only N MB free ..." when the folder
// of `path` has less than `bytes` free for this user (statvfs's f_bavail).
void check_room_for(const std::string& path, uint64_t bytes, const char* op);

// What lstat says a path is, for messages: "a regular file", "a symbolic link", "a FIFO",
// "a character device", "a block device", "a directory", "a socket".
std::string file_kind(unsigned mode);

}  // namespace d2l
