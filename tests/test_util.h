// tests/test_util.h — the helpers the test files share: exception-message predicates, value
// comparisons, scratch files, running the built programs, and the preconditions that make a
// test report "skipped" (a serial build, a data set that is not there).
#pragma once
#include <boost/test/unit_test.hpp>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/shape.h"  // check
#include "core/debug/debug.h"
#include "core/ops.h"
#include "core/random.h"
#include "core/tensor.h"

namespace d2l_test {

namespace fs = std::filesystem;

// --- exception messages ----------------------------------------------------------------
// A predicate for BOOST_CHECK_EXCEPTION(expr, E, message_has({...})): true when the
// exception's message contains every one of `parts`; the missing part is logged.
inline std::function<bool(const std::exception&)> message_has(std::vector<std::string> parts) {
  return [parts](const std::exception& e) {
    const std::string msg = e.what();
    BOOST_TEST_MESSAGE(msg);
    for (const std::string& p : parts)
      if (msg.find(p) == std::string::npos) {
        BOOST_TEST_MESSAGE("missing '" << p << "' in: " << msg);
        return false;
      }
    return true;
  };
}

// --- values ----------------------------------------------------------------------------
// Every element of t within `tol` (absolute) of want, each mismatch reported by index.
inline void expect_near(const d2l::Tensor& t, const std::vector<float>& want, float tol) {
  BOOST_REQUIRE_EQUAL(t.numel(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i)
    BOOST_TEST(std::fabs(t.data()[i] - want[i]) <= tol, "element " << i << ": " << t.data()[i] << " vs " << want[i]);
}

// The numbers on the first line of `text` that starts with `prefix`, after the prefix: words
// are skipped, and so are the characters of `trailing` at a word's end ("12.3 s," -> 12.3 with
// trailing ",s"). The test fails when no line starts with the prefix.
inline std::vector<double> numbers_after(const std::string& text, const std::string& prefix,
                                         const std::string& trailing) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) {
      std::vector<double> v;
      std::istringstream words(line.substr(prefix.size()));
      for (std::string w; words >> w;) {
        while (!w.empty() && trailing.find(w.back()) != std::string::npos) w.pop_back();
        char* end = nullptr;
        const double x = std::strtod(w.c_str(), &end);
        if (!w.empty() && end && *end == '\0') v.push_back(x);
      }
      return v;
    }
  BOOST_FAIL("no line starts with '" << prefix << "' in:\n" << text);
  return {};
}

// Attention weights w (..., keys): each row r sums to 1 and is exactly 0 from key
// row_len[r] on (a masked key gets no weight at all).
inline void expect_masked_rows(const d2l::Tensor& w, const std::vector<int64_t>& row_len) {
  const int64_t K = w.shape().back(), R = w.numel() / K;
  BOOST_REQUIRE_EQUAL(static_cast<int64_t>(row_len.size()), R);
  for (int64_t r = 0; r < R; ++r) {
    double s = 0;
    for (int64_t k = 0; k < K; ++k) {
      const float v = w.data()[r * K + k];
      if (k >= row_len[r]) BOOST_CHECK_EQUAL(v, 0.0f);
      s += v;
    }
    BOOST_CHECK_SMALL(s - 1.0, 1e-6);
  }
}

// The deterministic fill of the RNN checks against PyTorch (tests/lstm_torch.py): element i
// of a tensor is 0.8 sin(0.7 i + off); the k-th parameter (registration order) gets off = k.
inline d2l::Tensor sine_fill(const d2l::Shape& shape, float off) {
  d2l::Tensor t = d2l::empty(shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = 0.8f * std::sin(0.7f * static_cast<float>(i) + off);
  return t;
}
inline void sine_fill_parameters(std::vector<d2l::Tensor> params) {  // handles: the model's own data
  float k = 0;
  for (d2l::Tensor& p : params) {
    const d2l::Tensor v = sine_fill(p.shape(), k++);
    std::copy(v.data(), v.data() + v.numel(), p.data());
  }
}

// A two-layer RNN's parameters as PyTorch's nn.GRU (3 gates) / nn.LSTM (4) register them:
// weight_ih_l0 (gates * hidden, input), weight_hh_l0 (gates * hidden, hidden), bias_ih_l0,
// bias_hh_l0 (gates * hidden), then layer 1's, whose input is the hidden state; every value
// drawn from PyTorch's U(-1/sqrt(hidden), 1/sqrt(hidden)) and spread over it (many draws
// reach past 80% of the bound).
inline void expect_pytorch_rnn_parameters(const std::vector<std::pair<std::string, d2l::Tensor>>& named,
                                          int64_t input, int64_t hidden, int64_t gates) {
  std::vector<std::string> names;
  for (const auto& np : named) names.push_back(np.first);
  BOOST_TEST(names == (std::vector<std::string>{"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                                                "weight_ih_l1", "weight_hh_l1", "bias_ih_l1", "bias_hh_l1"}),
             boost::test_tools::per_element());
  BOOST_REQUIRE_EQUAL(named.size(), 8u);
  const int64_t g = gates * hidden;
  const d2l::Shape want[] = {{g, input}, {g, hidden}, {g}, {g}, {g, hidden}, {g, hidden}, {g}, {g}};
  for (size_t i = 0; i < 8; ++i) BOOST_TEST(named[i].second.shape() == want[i], named[i].first);
  const float bound = 1.0f / std::sqrt(static_cast<float>(hidden));
  float lo = 1, hi = -1;
  for (const auto& np : named)
    for (float v : np.second.to_vector()) lo = std::min(lo, v), hi = std::max(hi, v);
  BOOST_TEST(lo >= -bound);
  BOOST_TEST(hi <= bound);
  BOOST_TEST(lo < -0.8f * bound);
  BOOST_TEST(hi > 0.8f * bound);
}

// Sends sig to a stopped child process, lets it continue, and checks that the signal ended
// it and that it left no temporary (a ".tmp" name) anywhere under dir.
inline void end_stopped_child(pid_t pid, int sig, const fs::path& dir) {
  ::kill(pid, sig);
  ::kill(pid, SIGCONT);
  int status = 0;
  BOOST_REQUIRE(::waitpid(pid, &status, 0) == pid);
  BOOST_CHECK_MESSAGE(WIFSIGNALED(status) && WTERMSIG(status) == sig, "status " << status);
  for (const auto& e : fs::recursive_directory_iterator(dir))
    BOOST_CHECK_MESSAGE(e.path().string().find(".tmp") == std::string::npos, "left " << e.path());
}

// The gradient backward() left in t; the test stops if none reached it.
// A leaf tensor that requires a gradient (the book's `torch.tensor(..., requires_grad=True)`).
inline d2l::Tensor leaf(const std::vector<float>& v, const d2l::Shape& s) {
  d2l::Tensor t = d2l::tensor(v, s);
  t.requires_grad_();
  return t;
}

inline std::vector<float> grad_of(const d2l::Tensor& t) {
  const d2l::Tensor g = t.grad();
  BOOST_REQUIRE_MESSAGE(g.defined(), "no gradient reached the tensor");
  return g.to_vector();
}

// Token ids of `shape`: integers in [0, vocab) from the seeded generator (d2l::random_int).
inline d2l::Tensor random_ids(int64_t vocab, const d2l::Shape& shape) {
  d2l::Tensor t = d2l::empty(shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = static_cast<float>(d2l::random_int(vocab));
  return t;
}

// D2L_CHECK_NUMERICS on for one scope, and off again even when the test fails.
struct CheckNumerics {
  CheckNumerics() { d2l::set_check_numerics(true); }
  ~CheckNumerics() { d2l::set_check_numerics(false); }
};

// The gradient of a broadcast summed back to the shape it was broadcast from (PyTorch's
// Tensor.sum_to_size): each element of g goes into the element of `shape` it repeats. The
// engine's binary ops do this inside their backward kernel (binary_backward); this one is
// made of sum() calls, whose backward gives its gradient.
inline d2l::Tensor sum_to(const d2l::Tensor& g, const d2l::Shape& shape) {
  d2l::check(d2l::broadcast_shapes(shape, g.shape(), "sum_to") == g.shape(), "sum_to", "shape ", shape,
             " does not broadcast to gradient shape ", g.shape());
  d2l::Tensor y = g;
  while (y.ndim() > static_cast<int64_t>(shape.size())) y = d2l::sum(y, 0);  // dims added in front
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] == 1 && y.shape()[d] != 1) y = d2l::sum(y, static_cast<int64_t>(d), true);  // dims repeated
  return y;
}

// --- files -----------------------------------------------------------------------------
inline std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

inline void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// A path in the system's temp directory, unique to this process: d2l_test_<pid>_<name>.
inline std::string scratch_path(const std::string& name) {
  return (fs::temp_directory_path() / ("d2l_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

// A fresh directory, removed with everything in it when the object goes.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& tag) {
    static int count = 0;  // two TempDirs with one tag never share a directory
    path = scratch_path(tag + "_" + std::to_string(count++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator()(const std::string& name) const { return (path / name).string(); }
  // Writes `text` to the file `name` in the directory and returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    write_file(path / name, text);
    return (path / name).string();
  }
};

// --- stderr ----------------------------------------------------------------------------
// Redirects file descriptor 2 into a temporary file until text() is called, so the test
// can read what the trace and the profiler printed.
class StderrCapture {
 public:
  StderrCapture() : path_(scratch_path("stderr_" + std::to_string(count_++) + ".txt")) {
    std::fflush(stderr);
    saved_ = ::dup(2);
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 2);
    ::close(fd);
  }
  ~StderrCapture() {
    restore();
    std::remove(path_.c_str());
  }
  StderrCapture(const StderrCapture&) = delete;
  StderrCapture& operator=(const StderrCapture&) = delete;
  std::string text() {
    restore();
    return read_file(path_);
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    ::dup2(saved_, 2);
    ::close(saved_);
    saved_ = -1;
  }
  std::string path_;
  int saved_ = -1;
  static inline int count_ = 0;
};

// --- the built programs ------------------------------------------------------------------
// Where `make` put the programs: $D2L_BUILD (set by `make test`), else build/.
inline std::string build_dir() {
  const char* b = std::getenv("D2L_BUILD");
  return b && *b ? b : "build";
}

// Runs `cmd` through the shell with stdout and stderr to the files; returns the exit code
// (-1 when the program did not exit normally).
inline int run_command(const std::string& cmd, const fs::path& out, const fs::path& err) {
  const int status = std::system((cmd + " >" + out.string() + " 2>" + err.string()).c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Runs `cmd` through the shell; returns the exit code and stdout + stderr together.
inline std::pair<int, std::string> run_capture(const std::string& cmd) {
  std::FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  BOOST_REQUIRE(p != nullptr);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// --- builds ----------------------------------------------------------------------------
// True in a build with AddressSanitizer (`make asan`: GCC defines __SANITIZE_ADDRESS__, clang
// answers __has_feature). There every load and store is checked, several times slower, so
// the exhaustive sweeps compare a sample of their results (each test says which); every
// other build compares them all.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

// --- preconditions: *boost::unit_test::precondition(f) reports the test as skipped -------
// Tests that compare results at 1 and 2 threads need OpenMP; an OMP=0 build skips them.
inline boost::test_tools::assertion_result openmp_build(boost::unit_test::test_unit_id) {
#ifdef _OPENMP
  return true;
#else
  boost::test_tools::assertion_result r(false);
  r.message() << "a serial build (OMP=0) runs one thread: nothing to compare";
  return r;
#endif
}

// True when the shell command (e.g. "command -v dot") exits 0; else skipped with `missing`.
inline boost::test_tools::assertion_result command_succeeds(const std::string& command, const std::string& missing) {
  if (std::system(("{ " + command + "; } >/dev/null 2>&1").c_str()) == 0) return true;
  boost::test_tools::assertion_result r(false);
  r.message() << missing;
  return r;
}

inline boost::test_tools::assertion_result file_present(const std::string& path) {
  if (std::ifstream(path)) return true;
  boost::test_tools::assertion_result r(false);
  r.message() << path << " not found";
  return r;
}

// --- data ------------------------------------------------------------------------------
// Real data sets live outside the sources, in two places: data/ under the repository, as
// `make data` unpacks the book's archives (fra-eng/fra.txt, snli_1.0/snli_1.0_{train,test}.txt,
// glove.6B.100d/vec.txt), and ../shared/data/, a read-only copy beside the repository
// (fra-eng/fra.txt and an SNLI export, snli/{validation,test}.tsv). Tests whose expected
// numbers belong to one particular file name that file; the others take the first found.
const char* const kMadeData = "data";
const char* const kSharedData = "../shared/data";
// The shared fra-eng corpus (its own numbers are in test_tools_nmt_data.cpp), the book's from
// `make data`, and the one bundled with the repository.
const char* const kRealFra = "../shared/data/fra-eng/fra.txt";
const char* const kMadeFra = "data/fra-eng/fra.txt";
const char* const kBundledFra = "chapters/data/fra-eng-small.txt";
// Small files in the layout of data/ (tests/fixtures/README.md); programs run in
// kFixtureRoot find them as they find `make data`'s.
const char* const kFixtureRoot = "tests/fixtures";

// <dir>/<relative> for the first of data/ and ../shared/data/ that holds it, else "".
inline std::string real_data_file(const std::string& relative) {
  for (const char* dir : {kMadeData, kSharedData}) {
    const std::string path = std::string(dir) + "/" + relative;
    if (std::ifstream(path)) return path;
  }
  return "";
}

// A real fra-eng corpus when there is one (data/ first), else the bundled one (noted in the log).
inline std::string fra_path() {
  const std::string real = real_data_file("fra-eng/fra.txt");
  if (!real.empty()) return real;
  BOOST_TEST_MESSAGE("note: neither " << kMadeFra << " nor " << kRealFra << " found, using " << kBundledFra);
  return kBundledFra;
}

}  // namespace d2l_test
