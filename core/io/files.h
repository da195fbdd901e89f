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
// SIGXFSZ (a file-size limit, ulimit -f) is ignored, so such a save fails with a message and
// removes its temporary; a temporary left by a save killed outright (kill -9) is removed by
// the next save of the same target.
#pragma once
#include <cstdint>
#include <istream>
#include <memory>
#include <string>

namespace d2l {

// What a file is, told by its first bytes (file_kind_of_bytes) the way file(1) does: the
// formats this project writes, and the things no output may replace.
enum class ContentKind { kEmpty, kParams, kSafetensors, kNpy, kPng, kSvg, kHtml, kDot, kText, kExecutable, kOther };
ContentKind content_kind(const std::string& first_bytes);  // at least the first 16 bytes
const char* content_kind_name(ContentKind kind);           // "a PNG image", "an executable", ...

// The run's files. Every reader below notes the path it opens as an input of the run, and
// every write_file_atomically notes its target as an output, under its op. Before an output
// is written (and by check_writable_target, before a long run) its target is refused when it
// is
//   1. a file this run read (the model --load read, the corpus, the --resume file), unless
//      both are the same kind of model file: a loaded model may be saved again in place;
//   2. a file this run wrote as another kind (its own figure, then a .npy of that name);
//   3. an existing file whose first bytes are not the kind being written: a parameter file
//      replaces only a parameter file, a PNG only a PNG, and so on; an executable (ELF, a #!
//      script, a file with an execute bit whose bytes are not of the kind written), a source
//      file or document (.cpp, .h, .py, .sh, .md, README, Makefile) or data of another kind is
//      never replaced.
// Rule 3 is lifted by allow_overwriting_any_file(true) (a program's --force); 1 and 2 stay.
// Errors: std::runtime_error "[op] cannot write 'path': it is ...; refusing to replace it".
void note_input_file(const std::string& path, const char* op);
void allow_overwriting_any_file(bool allow);
// `kind` is what will be written (kEmpty: not known yet, rule 3 then refuses only
// executables and source files).
void check_output_target(const std::string& path, ContentKind kind, const char* op);

// Throws std::runtime_error "[op] cannot write 'path': ..." when the target exists and is
// not a regular file, or its folder is missing or not writable (probed by creating and
// removing a temporary there), or check_output_target refuses it for a file of `kind`.
// Leaves nothing behind. Programs call it before a long run.
void check_writable_target(const std::string& path, const char* op, ContentKind kind = ContentKind::kEmpty);

// Steps 1–3 above; errors are std::runtime_error "[op] cannot write 'path': <reason>", and a
// failed write leaves the old target untouched and no temporary.
void write_file_atomically(const std::string& path, const std::string& bytes, const char* op);

// Makes a write beyond the file-size limit (ulimit -f) fail with EFBIG instead of killing the
// program with SIGXFSZ, unless the signal already has a handler. TemporaryFile calls it.
void ignore_file_size_signal();

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
