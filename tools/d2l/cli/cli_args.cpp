// tools/d2l/cli/cli_args.cpp — option parsing for the chapter programs (see tools/d2l/cli/cli_args.h).
#include "tools/d2l/cli/cli_args.h"

#include "core/engine/allocator.h"  // OutOfMemory

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <sstream>

#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/io/files.h"
#include "core/io/safetensors.h"  // is_safetensors_path
#include "core/io/json.h"  // quote_input
#include "core/io/standard_streams.h"
#include "core/io/utf8.h"
#include "core/shape.h"  // check
#include "core/random.h"
#include "tools/d2l/cli/source_trace.h"
#include "tools/d2l/figures/figures.h"

namespace d2l {

CliArgs::CliArgs(std::string program, std::string description)
    : program_(std::move(program)), description_(std::move(description)) {}

void CliArgs::add(Option o) {
  for (const Option& e : options_)
    if (e.name == o.name) throw std::logic_error("[CliArgs] option --" + o.name + " declared twice");
  options_.push_back(std::move(o));
}

void CliArgs::add_int(const std::string& name, int64_t value, const std::string& help, std::optional<int64_t> min,
                      std::optional<int64_t> max) {
  Option o(name, help, Kind::Int);
  o.i = value;
  o.imin = min.value_or(std::numeric_limits<int64_t>::min());
  o.imax = max.value_or(std::numeric_limits<int64_t>::max());
  check_default(o, o.imin <= value && value <= o.imax);
  add(std::move(o));
}

void CliArgs::add_float(const std::string& name, double value, const std::string& help, std::optional<double> min,
                        std::optional<double> max) {
  Option o(name, help, Kind::Float);
  o.f = value;
  o.fmin = min.value_or(-std::numeric_limits<double>::max());
  o.fmax = max.value_or(std::numeric_limits<double>::max());
  check_default(o, o.fmin <= value && value <= o.fmax);
  add(std::move(o));
}

void CliArgs::add_string(const std::string& name, const std::string& value, const std::string& help,
                         const std::string& metavar) {
  Option o(name, help, Kind::String);
  o.s = value;
  o.metavar = metavar;
  add(std::move(o));
}

void CliArgs::add_choice(const std::string& name, const std::vector<std::string>& choices, const std::string& help,
                         const std::string& metavar) {
  Option o(name, help, Kind::String);
  o.s = choices.at(0);
  o.metavar = metavar;
  o.choices = choices;
  add(std::move(o));
}

void CliArgs::allow_empty(const std::string& name) {
  for (Option& o : options_)
    if (o.name == name && o.kind == Kind::String) {
      o.empty_ok = true;
      return;
    }
  throw std::logic_error("[CliArgs] allow_empty: no text option --" + name);
}

void CliArgs::add_flag(const std::string& name, const std::string& help) { add(Option(name, help, Kind::Flag)); }

CliArgs::Option& CliArgs::find(const std::string& name, const char* caller) {
  for (Option& o : options_)
    if (o.name == name) return o;
  throw UsageError(std::string(caller) + "unknown option " + quote_input("--" + name, 80, '\0') + " (see --help)");
}

const CliArgs::Option& CliArgs::find(const std::string& name, Kind kind) const {
  for (const Option& o : options_)
    if (o.name == name) {
      if (o.kind != kind) throw std::logic_error("[CliArgs] option --" + name + " read with the wrong type");
      return o;
    }
  throw std::logic_error("[CliArgs] option --" + name + " was never declared");
}

namespace {

std::string range_str(double min, double max) {
  std::ostringstream os;
  os << '[' << min << ", " << max << ']';
  return os.str();
}

std::string range_str(int64_t min, int64_t max) {
  return "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
}

}  // namespace

// strtoll/strtod stop at the first bad character, so "5x" and "" are caught by checking
// where they stopped, and they report a value beyond the type (int64_t, or a double beyond
// ±1.8e308) as ERANGE instead of wrapping it.
int64_t parse_int_option(const std::string& name, const std::string& text, int64_t min, int64_t max) {
  const std::string who = "[--" + name + "] ";
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE)
    throw UsageError(who + "expects an integer in " + range_str(min, max) + ", got " + quote_input(text, 80, '\''));
  if (n < min || n > max) throw UsageError(who + "must be in " + range_str(min, max) + ", got " + text);
  return n;
}

double parse_float_option(const std::string& name, const std::string& text, double min, double max) {
  const std::string who = "[--" + name + "] ";
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  // ERANGE also flags underflow ("1e-400"), which is a number, just too small to hold: it
  // is refused as well, rather than quietly read as 0.
  if (text.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    throw UsageError(who + "expects a number in " + range_str(min, max) + ", got " + quote_input(text, 80, '\''));
  if (v < min || v > max) throw UsageError(who + "must be in " + range_str(min, max) + ", got " + text);
  return v;
}

std::string checked_text_option(const std::string& name, const std::string& text) {
  const std::string who = "[--" + name + "] ";
  // Given but empty would read as "not given": no file saved, no sentence translated.
  if (text.empty()) throw UsageError(who + "is empty; give a value, or leave the option out");
  if (const int64_t bad = first_invalid_utf8(text); bad >= 0)
    throw UsageError(who + "is not valid UTF-8 (byte " + std::to_string(bad) + " of " + quote_input(text, 80, '\'') +
                     "); pass UTF-8 text");
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const bool c1 = c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) < 0xA0;  // U+0080..9F
    if (c < 0x20 || c == 0x7F || c1)
      throw UsageError(who + "contains a control character at byte " + std::to_string(i) + " of " +
                       quote_input(text, 80, '\'') + "; it would reach the terminal and the logs as it is");
  }
  return text;
}

void CliArgs::check_default(const Option& o, bool in_range) {
  if (!in_range) throw std::logic_error("[CliArgs] option --" + o.name + ": the default is outside its range");
}

void CliArgs::set(Option& o, const std::string& text) {
  if (!o.choices.empty() && std::find(o.choices.begin(), o.choices.end(), text) == o.choices.end()) {
    std::string list;
    for (size_t k = 0; k < o.choices.size(); ++k)
      list += (k == 0 ? "" : k + 1 == o.choices.size() ? " or " : ", ") + o.choices[k];
    throw UsageError("[--" + o.name + "] expects " + list + ", got '" + text + "'");
  }
  if (o.kind == Kind::Int) o.i = parse_int_option(o.name, text, o.imin, o.imax);
  else if (o.kind == Kind::Float) o.f = parse_float_option(o.name, text, o.fmin, o.fmax);
  else o.s = text.empty() && o.empty_ok ? text : checked_text_option(o.name, text);
  o.given = true;
}

void CliArgs::parse(const std::vector<std::string>& args) {
  for (size_t k = 0; k < args.size(); ++k) {
    const std::string& a = args[k];
    if (a == "--help" || a == "-h") {
      help_ = true;
      continue;
    }
    if (a.size() < 3 || a.compare(0, 2, "--") != 0) throw UsageError("unexpected argument " + quote_input(a, 80, '\'') + " (see --help)");
    const size_t eq = a.find('=');
    const std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    Option& o = find(name, "");
    if (o.kind == Kind::Flag) {
      if (eq != std::string::npos) throw UsageError("[--" + name + "] takes no value");
      o.flag = o.given = true;
    } else if (eq != std::string::npos) {
      set(o, a.substr(eq + 1));
    } else {
      if (k + 1 >= args.size()) throw UsageError("[--" + name + "] needs a value");
      set(o, args[++k]);
    }
  }
}

void CliArgs::parse_or_exit(int argc, char** argv) {
  check_standard_output_at_exit(program_.c_str());  // a failed write to stdout is an error at exit
  // Every chapter program takes --quick (a smoke run for scripts and the suite); one whose
  // whole run already takes a moment accepts it and runs as it always does.
  if (has("out") && has("seed") && !has("quick"))
    add_flag("quick", "accepted for scripts that pass it to every program: this program's run is already short");
  try {
    parse(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "error: %s\n\n%s", e.what(), usage().c_str());
    std::exit(2);
  }
  if (help_) {
    std::fputs(usage().c_str(), stdout);
    std::exit(0);
  }
}

int64_t CliArgs::get_int(const std::string& name) const { return find(name, Kind::Int).i; }
float CliArgs::get_float(const std::string& name) const { return static_cast<float>(find(name, Kind::Float).f); }
const std::string& CliArgs::get_string(const std::string& name) const { return find(name, Kind::String).s; }
bool CliArgs::get_flag(const std::string& name) const { return find(name, Kind::Flag).flag; }
bool CliArgs::has(const std::string& name) const {
  for (const Option& o : options_)
    if (o.name == name) return true;
  return false;
}

bool CliArgs::given(const std::string& name) const {
  for (const Option& o : options_)
    if (o.name == name) return o.given;
  throw std::logic_error("[CliArgs] option --" + name + " was never declared");
}

std::string CliArgs::usage() const {
  std::ostringstream os;
  os << "usage: " << program_ << " [options]\n" << description_ << "\n\noptions:\n";
  auto column = [&os](const std::string& head) {
    os << head << std::string(head.size() < 20 ? 20 - head.size() : 1, ' ');
  };
  for (const Option& o : options_) {
    std::string head = "  --" + o.name;
    if (o.kind == Kind::Int) head += " N";
    if (o.kind == Kind::Float) head += " X";
    if (o.kind == Kind::String) head += " " + o.metavar;
    column(head);
    os << o.help;
    if (o.kind == Kind::Int) os << " (default " << o.i << ")";
    if (o.kind == Kind::Float) os << " (default " << o.f << ")";
    if (o.kind == Kind::String) os << " (default " << (o.s.empty() ? "none" : o.s) << ")";
    os << '\n';
  }
  column("  --help");
  os << "print this help\n";
  return os.str();
}

constexpr int kMaxThreads = 1024;  // --threads' range, and OMP_NUM_THREADS's

void add_chapter_options(CliArgs& args, const std::string& out_dir, int64_t seed, int64_t threads) {
  args.add_int("seed", seed, "random seed (fixed default: the printed numbers reproduce)", 0);
  args.add_int("threads", threads,
               threads == 1 ? "OpenMP threads (one is fastest for this model's small matrices, and keeps its speed "
                              "on a busy machine), 0 for the OpenMP default (all cores)"
                            : "OpenMP threads, 0 for the OpenMP default (all cores)",
               0, kMaxThreads);
  args.add_int("max-tensor-mb", 0,
               "fail with a clear error, naming the op and shape, for any tensor larger than this many MiB "
               "(0: no limit but the machine's, whose out-of-memory killer may end the run instead)",
               0, int64_t{1} << 40);
  args.add_string("out", out_dir, "directory for the figures (created)", "DIR");
  args.add_flag("force", "let an output replace an existing file of another kind (never the run's own inputs)");
  // `make run ARGS=--quick` passes --quick to every chapter: one that is quick already takes it.
  if (!args.has("quick")) args.add_flag("quick", "nothing to shorten: this program is quick at its defaults");
}

void print_banner(const std::string& heading, const char* file, int line) {
  std::printf("== %s ==\n", heading.c_str());
  std::fflush(stdout);
  trace_source("banner", file, line, heading);
}

void print_saved(const std::string& path, const char* file, int line) {
  std::printf("saved %s\n", path.c_str());
  std::fflush(stdout);
  trace_source("figure", file, line, path);
}

std::string torch_size(const Shape& shape) {
  std::string s = "torch.Size([";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "])";
}

int run_reporting_errors(const std::function<int()>& body) {
  keep_going_after_figure_errors();  // one figure must not cost the model or the others
  int status = 0;
  std::string error;
  try {
    status = body();
  } catch (const OutOfMemory& e) {  // names the tensor's op, shape and bytes
    error = e.what();
    // The limit the run was given, not the machine, refused it: name the option that helps
    // instead of the machine's memory.
    if (tensor_limit_refusals() > 0) {
      error = error.substr(0, error.rfind(" (out of memory"));
      error += " (more than one tensor may take under this run's --max-tensor-mb " +
               std::to_string(max_tensor_bytes() >> 20) + ": raise it, or 0 for no limit)";
    }
  } catch (const std::bad_alloc& e) {  // some other allocation: what() says only "std::bad_alloc"
    error = std::string("out of memory (") + e.what() +
            " outside the tensors; a smaller batch size or corpus needs less)";
  } catch (const std::exception& e) {
    error = e.what();
  }
  std::fflush(stdout);
  for (const std::string& e : figure_errors()) std::fprintf(stderr, "error: %s\n", e.c_str());
  if (!error.empty()) std::fprintf(stderr, "error: %s\n", error.c_str());
  if (!figure_errors().empty() || !error.empty()) return status != 0 ? status : 1;
  return status;
}

void prefer_passive_openmp_wait(char** argv) {
#ifdef _OPENMP
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return;
  if (setenv("OMP_WAIT_POLICY", "PASSIVE", 1) != 0) return;
  execv("/proc/self/exe", argv);
  unsetenv("OMP_WAIT_POLICY");  // not restarted: this process keeps libgomp's default
#else
  (void)argv;
#endif
}

std::string openmp_settings() {
#ifdef _OPENMP
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  return std::to_string(omp_get_max_threads()) + (omp_get_max_threads() == 1 ? " thread" : " threads") +
         ", OMP_WAIT_POLICY=" + (policy ? policy : "default");
#else
  return "serial build";
#endif
}

std::string apply_chapter_options(const CliArgs& args) {
  manual_seed(static_cast<uint64_t>(args.get_int("seed")));
#ifdef _OPENMP
  if (args.get_int("threads") > 0) {
    omp_set_num_threads(static_cast<int>(args.get_int("threads")));
  } else if (omp_get_max_threads() > kMaxThreads) {
    // OMP_NUM_THREADS=10000 is held to --threads' range: thousands of threads on a few cores
    // make every parallel region wait for all of them.
    std::fprintf(stderr, "note: OMP_NUM_THREADS asks for %d threads, more than the %d --threads takes; using %d (the cores)\n",
                 omp_get_max_threads(), kMaxThreads, omp_get_num_procs());
    omp_set_num_threads(omp_get_num_procs());
  }
#endif
  allow_overwriting_any_file(args.has("force") && args.get_flag("force"));
  if (args.has("resume") && args.given("resume") && args.given("seed"))
    std::fprintf(stderr, "note: --seed is ignored with --resume: the run continues with the random generator saved in %s\n",
                 quote_input(args.get_string("resume"), 200, '\'').c_str());
  set_max_tensor_bytes(static_cast<size_t>(args.get_int("max-tensor-mb")) << 20);
  // An empty path would be read as "not given": nothing saved, a training from scratch.
  for (const char* name : {"save", "load", "resume"})
    if (args.has(name) && args.given(name) && args.get_string(name).empty())
      throw std::invalid_argument(std::string("[--") + name + "] the path is empty; name a file");
  const std::string out = args.get_string("out");
  if (out.empty()) throw std::invalid_argument("[--out] must not be empty");
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec || !std::filesystem::is_directory(out))
    throw std::runtime_error("cannot create output directory '" + out + "': " + ec.message() +
                             " (HINT: pass a writable --out DIR)");
  // Found now, not after the training: a file can be created there, and --save's target.
  try {
    check_writable_target((std::filesystem::path(out) / ".d2l-write-check").string(), "--out");
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("[--out] the figures cannot be written to '" + out + "': " + e.what() +
                             " (HINT: pass a writable --out DIR)");
  }
  if (args.has("save") && !args.get_string("save").empty()) {
    const std::string& save = args.get_string("save");
    check_writable_target(save, "--save");  // an executable or a source file: refused now; the kind: refuse_save_over
  }
  // The attention array too, before the training: an existing file that is not a .npy (a model,
  // the corpus, a figure) is refused now rather than after the run (core/io/files.h).
  if (args.has("dump-attention") && args.given("dump-attention"))
    check_writable_target(args.get_string("dump-attention"), "--dump-attention", ContentKind::kNpy);
  return out;
}

// Beside the files a program names, the ones its run writes without naming them: each PNG's
// SVG (the book flow's), the book flow's trace, log and settings (D2L_BOOK_TRACE's folder),
// and this run's standard output and error when they are files.
std::vector<std::pair<std::string, std::string>> files_a_run_writes(
    std::vector<std::pair<std::string, std::string>> files) {
  namespace fs = std::filesystem;
  const size_t named = files.size();
  for (size_t i = 0; i < named; ++i)
    if (fs::path(files[i].second).extension() == ".png")
      files.emplace_back(files[i].first + "'s SVG", fs::path(files[i].second).replace_extension(".svg").string());
  if (const char* trace = std::getenv("D2L_BOOK_TRACE"); trace && *trace) {
    const fs::path t(trace), log = fs::path(trace).replace_extension(".log");
    files.emplace_back("the book flow's trace (D2L_BOOK_TRACE)", t.string());
    files.emplace_back("the book flow's log", log.string());
    files.emplace_back("the book flow's log", log.string() + ".part");
    files.emplace_back("the book flow's settings", (t.parent_path() / "settings.txt").string());
    files.emplace_back("the book flow's arguments", (t.parent_path() / "args").string());
  }
  files.emplace_back("this run's standard output", "/proc/self/fd/1");
  files.emplace_back("this run's standard error", "/proc/self/fd/2");
  return files;
}

void refuse_save_over(const CliArgs& args, const std::vector<std::pair<std::string, std::string>>& named) {
  if (!args.has("save")) return;
  const std::string& save = args.get_string("save");
  if (save.empty()) return;
  for (const auto& [role, path] : files_a_run_writes(named))
    if (!path.empty() && same_file(save, path))
      throw std::invalid_argument("[--save] " + quote_input(save, 200, '\'') + " is the same file as " + role + " " +
                                  quote_input(path, 200, '\'') + ": the model would " +
                                  (role.rfind("--", 0) == 0 ? "replace it" : "be overwritten by it") +
                                  "; choose another path");
  // An existing file of another kind (core/io/files.h): found now, not after the training.
  check_output_target(save, is_safetensors_path(save) ? ContentKind::kSafetensors : ContentKind::kParams, "--save");
}

}  // namespace d2l
