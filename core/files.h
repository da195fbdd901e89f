// core/files.h — writing an output file so that nobody ever sees half of it, and reading an
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
// While a temporary exists it is registered for removal on SIGINT/SIGTERM (see TemporaryFile),
// so Ctrl-C in the middle of a save leaves no PATH.tmp.XXXXXX behind.
#pragma once
#include <cstdint>
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
// From creation to commit or removal its path is in a fixed-size registry that a SIGINT or
// SIGTERM handler walks, unlinking every entry (unlink is async-signal-safe; the handler
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

// What lstat says a path is, for messages: "a regular file", "a symbolic link", "a FIFO",
// "a character device", "a block device", "a directory", "a socket".
std::string file_kind(unsigned mode);

}  // namespace d2l
