// tools/d2l/cli/cli_args.h — command-line options for the chapter programs, and the pieces
// every chapter's main shares (banner, saved-file lines, error handling).
//
// Every chapter program runs with no arguments and prints what the book prints; its options
// change the settings (epochs, data, seed, threads, where figures go) or switch on the
// corrected variant of a quirk of the book's code (--mask-pad, --pe-offset). A section's room
// (chapters/run/<section>.cpp, tools/d2l/cli/section.h) or an exercise program's main declares
// its own options on a CliArgs, e.g.
//
//   args.add_int("epochs", 5, "training epochs (the book: 5)", 1, 100000);  // N in [1, 100000]
//
// and run_chapter (tools/d2l/cli/chapter.h) adds the shared ones below, parses, and runs it.
//
// Options are written `--name value` or `--name=value`; flags (add_flag) take no value.
// --help prints the usage and exits 0; an unknown option, a missing or malformed value, or
// one out of range prints "error: ..." and the usage to stderr and exits 2, e.g.
//   error: [--epochs] must be in [1, 100000], got -1
// A text option's value must not be empty (unless allow_empty), must be UTF-8 and holds no
// control character (checked_text_option). parse_or_exit also makes a failed write to
// standard output an error at exit (core/io/standard_streams.h), --help's included.
// Every numeric option has a range: the one declared, else every int64_t (every finite
// double), so a value that overflows ("--seed 99999999999999999999") is refused with the
// range too, never wrapped or clamped. parse() does the same checks but throws UsageError,
// for tests.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"  // Shape

namespace d2l {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The parsing every numeric option goes through (CliArgs, and programs with their own
// command line, such as build/tools/heatmap): the whole text must be a number in [min, max].
// Throws UsageError "[--name] expects an integer in [min, max], got 'text'" for text that is
// not one (empty, "5x", "1e3" for an integer) or overflows the type, and "[--name] must be in
// [min, max], got text" for a number outside the range.
int64_t parse_int_option(const std::string& name, const std::string& text, int64_t min, int64_t max);
double parse_float_option(const std::string& name, const std::string& text, double min, double max);
// A text option's value (a sentence, a path): returns it, or throws UsageError when it is
// empty (which would read as "not given"), not valid UTF-8, or holds a control character
// (ESC, a newline: it would reach the terminal and forge lines of the log).
std::string checked_text_option(const std::string& name, const std::string& text);

class CliArgs {
 public:
  CliArgs(std::string program, std::string description);

  void add_int(const std::string& name, int64_t value, const std::string& help, std::optional<int64_t> min = {},
               std::optional<int64_t> max = {});
  void add_float(const std::string& name, double value, const std::string& help, std::optional<double> min = {},
                 std::optional<double> max = {});
  void add_string(const std::string& name, const std::string& value, const std::string& help,
                  const std::string& metavar = "S");  // metavar: "--out DIR" in the usage
  void add_flag(const std::string& name, const std::string& help);  // false unless given
  // A string that must be one of `choices` (the first is the default); any other value is
  // bad usage: "[--rnn] expects gru or lstm, got 'rnn'".
  void add_choice(const std::string& name, const std::vector<std::string>& choices, const std::string& help,
                  const std::string& metavar = "S");

  // A given text option must not be empty (it would read as "not given"), unless it is
  // declared here as one whose empty value means something (--embeddings "": no vectors).
  void allow_empty(const std::string& name);

  // Throws UsageError on a bad command line; sets help_requested() on --help / -h.
  void parse(const std::vector<std::string>& args);
  void parse_or_exit(int argc, char** argv);
  bool help_requested() const { return help_; }

  int64_t get_int(const std::string& name) const;
  float get_float(const std::string& name) const;
  const std::string& get_string(const std::string& name) const;
  bool get_flag(const std::string& name) const;
  bool given(const std::string& name) const;  // set on the command line, not defaulted
  bool has(const std::string& name) const;    // declared by the program

  std::string usage() const;
  const std::string& program() const { return program_; }

 private:
  enum class Kind { Int, Float, String, Flag };
  struct Option {
    Option(std::string n, std::string h, Kind k) : name(std::move(n)), help(std::move(h)), kind(k) {}
    std::string name, help;
    Kind kind;
    int64_t i = 0, imin = 0, imax = 0;  // Int: value and range
    double f = 0, fmin = 0, fmax = 0;    // Float: value and range
    std::string s, metavar;
    std::vector<std::string> choices;  // String: the values it takes (empty: any)
    bool flag = false, given = false;
    bool empty_ok = false;  // String: "" is a value (allow_empty)
  };
  Option& find(const std::string& name, const char* caller);
  const Option& find(const std::string& name, Kind kind) const;
  void add(Option o);
  void set(Option& o, const std::string& text);
  static void check_default(const Option& o, bool in_range);

  std::string program_, description_;
  std::vector<Option> options_;
  bool help_ = false;
};

// The options every chapter program has: --seed N (default `seed`, so runs reproduce),
// --threads N (default `threads`; 0: OpenMP's default, all cores, or the cores when
// OMP_NUM_THREADS asks for more than --threads takes; ignored in a serial build),
// --force (an output may replace an existing file of another kind: core/io/files.h),
// --max-tensor-mb N (default 0, no limit: set_max_tensor_bytes, core/engine/allocator.h) and --out
// DIR (default `out_dir`, e.g. "out/attention_cues"), and --quick when the program has not
// declared its own (the book flow passes ARGS=--quick to every chapter; a quick one ignores it).
// A program whose work comes in small pieces passes threads = 1: the book's seq2seq models
// (64 x 32 matrices, a few microseconds per op) gain nothing from a second thread on an idle
// machine, and on a busy one every parallel region may wait for a thread whose core another
// program holds, libgomp's waiting thread spinning meanwhile (tools/bench/README.md, "Under
// load", has the measurements).
void add_chapter_options(CliArgs& args, const std::string& out_dir, int64_t seed = 0, int64_t threads = 0);
// For a program that keeps two or more threads busy by default (the NLI model's big GEMMs):
// make libgomp's idle threads sleep instead of spin. By default a thread that reaches a
// barrier first spins, and on a machine other programs keep busy it holds a core that the
// thread it waits for needs. Measured on 2 cores beside two CPU-bound processes, the NLI
// program kept 0.29 of its quiet speed by default and 0.58 with OMP_WAIT_POLICY=PASSIVE,
// whose quiet speed was the same (949 against 915 examples/sec: its parallel regions are
// big, so a sleeping thread's wake-up, some 10 us, is lost in them). libgomp reads the
// policy once, when the program loads, so this sets it and starts the program again (the
// same argv, through /proc/self/exe); a policy or spin count already in the environment is
// kept, and if the restart fails the program carries on as it is.
void prefer_passive_openmp_wait(char** argv);
// The thread settings in force, for a program to print: "2 threads, OMP_WAIT_POLICY=PASSIVE"
// ("default" where the variable is unset), or "serial build".
std::string openmp_settings();
// A subsection banner in the program's output, with the book's heading:
//   == 平均汇聚 / Average Pooling ==
// The caller's file and line (filled in by the compiler) go to the run's source trace for the
// companion pages (tools/d2l/cli/source_trace.h), here and in print_saved.
void print_banner(const std::string& heading, const char* file = __builtin_FILE(), int line = __builtin_LINE());
// Prints "saved <path>" after a figure is written (as Animator::finish does).
void print_saved(const std::string& path, const char* file = __builtin_FILE(), int line = __builtin_LINE());
// A shape as the book's notebooks show `x.shape`: "torch.Size([2, 4, 100])".
std::string torch_size(const Shape& shape);

// A chapter's main: runs `body` (the program after its options are parsed) and turns an
// exception into "error: ..." on stderr (stdout flushed first, so the lines before it
// stay in order) and exit status 1. Bad usage is parse_or_exit's, with status 2.
// Figures written through write_figure (tools/d2l/figures/figures.h) that fail do not stop the
// body: each is listed at the end as "error: ..." and the exit status is 1.
int run_reporting_errors(const std::function<int()>& body);

// Applies them: d2l::manual_seed (with --resume, a --seed given is said to be ignored),
// omp_set_num_threads (under #ifdef _OPENMP), --force, and creates the output directory. An
// empty --save, --load or --resume is an error. Before any training it checks that the
// outputs can be written: a file can be created in --out; --save FILE (when the program has
// that option) is not a link, FIFO, device, directory, executable or source file and its
// folder takes new files; --dump-attention FILE is not an existing file of another kind
// than a .npy array. Returns the directory.
std::string apply_chapter_options(const CliArgs& args);

// --save must not name a file the program reads or writes besides it: the model would replace
// a corpus, or a figure written after it would replace the model. `files` holds (what, path)
// pairs, e.g. {"--data", "fra.txt"}, {"the loss figure", "out/x/loss.png"}; compared as files
// (core/io/files.h same_file), not as spellings, and with them the files a run writes
// without naming them: each PNG's SVG, the book flow's trace, log and settings, and standard
// output and error when redirected to a file. Throws std::invalid_argument naming both.
// Then an existing --save target of another kind than a model file is refused
// (check_output_target, core/io/files.h).
// Programs call it before training, once their inputs are resolved.
void refuse_save_over(const CliArgs& args, const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace d2l
