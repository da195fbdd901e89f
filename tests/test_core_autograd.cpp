// tests/test_core_autograd.cpp — suite core_autograd: the backward engine and the teaching
// switches (core/autograd.h). Gradients here are derived by hand in the comments.
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

#include "core/autograd.h"
#include "core/debug/debug.h"
#include "core/ops.h"
#include "core/random.h"
#include "tests/test_util.h"

#ifdef _OPENMP
#include <omp.h>
#endif

using d2l_test::grad_of;
using d2l_test::leaf;
using d2l_test::StderrCapture;
using d2l_test::message_has;

using namespace d2l;
namespace utf = boost::unit_test;
namespace tt = boost::test_tools;

namespace {

tt::assertion_result dot_available(utf::test_unit_id) {
  return d2l_test::command_succeeds("command -v dot", "graphviz 'dot' not found (apt-get install graphviz)");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core_autograd)

BOOST_AUTO_TEST_CASE(backward_from_scalar) {
  // loss = Σ x² + 3 x_0  ->  ∂loss/∂x = 2x + [3, 0, 0].
  Tensor x = leaf({1, -2, 3}, {3});
  Tensor loss = sum(x * x) + slice(x, 0, 0, 1) * 3.0f;
  loss.backward();
  BOOST_TEST(grad_of(x) == std::vector<float>({5, -4, 6}), tt::per_element());
  // A 0-dim scalar works too (sum returns shape ()).
  Tensor w = leaf({2}, {});
  Tensor y = w * w * w;  // dy/dw = 3 w² = 12
  y.backward();
  BOOST_TEST(w.grad().item() == 12.0f);
}

BOOST_AUTO_TEST_CASE(backward_with_explicit_gradient) {
  // y = x * [1, 2, 3]; with dL/dy = [1, 10, 100], dL/dx = [1, 20, 300].
  Tensor x = leaf({5, 6, 7}, {3});
  Tensor y = x * tensor({1.0f, 2.0f, 3.0f});
  y.backward(tensor({1.0f, 10.0f, 100.0f}));
  BOOST_TEST(grad_of(x) == std::vector<float>({1, 20, 300}), tt::per_element());
  Tensor z = x * 2.0f;
  BOOST_CHECK_EXCEPTION(z.backward(), std::invalid_argument, message_has({"[backward]", "one element", "(3,)"}));
  BOOST_CHECK_EXCEPTION(z.backward(ones({2})), std::invalid_argument, message_has({"[backward]", "(2,)", "(3,)"}));
  // backward() on a leaf: its gradient is the given one.
  Tensor l = leaf({1, 2}, {2});
  l.backward(tensor({3.0f, 4.0f}));
  BOOST_TEST(grad_of(l) == std::vector<float>({3, 4}), tt::per_element());
}

BOOST_AUTO_TEST_CASE(accumulation_when_used_twice) {
  // x feeds both factors: d(x·x)/dx = 2x, which only comes out if both paths add up.
  Tensor x = leaf({3, -1}, {2});
  sum(x * x).backward();
  BOOST_TEST(grad_of(x) == std::vector<float>({6, -2}), tt::per_element());
  // A diamond: h = 2x is read by two ops; loss = Σ (h + h·h) -> dh = 1 + 2h, dx = 2 + 8x.
  Tensor a = leaf({1, 2}, {2});
  Tensor h = a * 2.0f;
  sum(h + h * h).backward();
  BOOST_TEST(grad_of(a) == std::vector<float>({10, 18}), tt::per_element());
  // Two backward passes through separate graphs add into .grad, as in PyTorch.
  Tensor b = leaf({1, 1}, {2});
  sum(b * 3.0f).backward();
  sum(b * 4.0f).backward();
  BOOST_TEST(grad_of(b) == std::vector<float>({7, 7}), tt::per_element());
}

BOOST_AUTO_TEST_CASE(zero_grad_resets) {
  Tensor x = leaf({1, 2}, {2});
  sum(x * 5.0f).backward();
  BOOST_TEST(grad_of(x) == std::vector<float>({5, 5}), tt::per_element());
  x.zero_grad();
  BOOST_TEST(!x.grad().defined());
  BOOST_TEST(x.grad_data() == nullptr);
  sum(x * 2.0f).backward();
  BOOST_TEST(grad_of(x) == std::vector<float>({2, 2}), tt::per_element());
  // set_to_none = false: the same buffer, filled with 0; the next backward adds into it.
  const float* buffer = x.grad_data();
  x.zero_grad(false);
  BOOST_TEST(x.grad_data() == buffer);
  BOOST_TEST(grad_of(x) == std::vector<float>({0, 0}), tt::per_element());
  sum(x * 3.0f).backward();
  BOOST_TEST(grad_of(x) == std::vector<float>({3, 3}), tt::per_element());
  Tensor never = leaf({1}, {1});
  never.zero_grad(false);  // no gradient yet: nothing to fill
  BOOST_TEST(!never.grad().defined());
}

BOOST_AUTO_TEST_CASE(detach_cuts_the_graph) {
  Tensor x = leaf({2, 3}, {2});
  Tensor d = (x * 1.0f).detach();
  BOOST_TEST(!d.requires_grad());
  BOOST_TEST(std::string(d.op_name()) == "leaf");
  BOOST_TEST(d.to_vector() == x.to_vector(), tt::per_element());
  d.data()[0] = 100.0f;  // a copy: x is untouched
  BOOST_TEST(x.data()[0] == 2.0f);
  // loss = Σ x · detach(x): only the non-detached factor carries gradient, so dx = detach(x).
  Tensor x2 = leaf({2, 3}, {2});
  sum(x2 * x2.detach()).backward();
  BOOST_TEST(grad_of(x2) == std::vector<float>({2, 3}), tt::per_element());
  // An input that needs no gradient gets none.
  Tensor c = tensor({1.0f, 1.0f});
  Tensor x3 = leaf({4, 5}, {2});
  sum(x3 * c).backward();
  BOOST_TEST(!c.grad().defined());
}

BOOST_AUTO_TEST_CASE(no_grad_records_nothing) {
  Tensor x = leaf({1, 2}, {2});
  BOOST_TEST(grad_enabled());
  {
    NoGrad guard;
    BOOST_TEST(!grad_enabled());
    Tensor y = exp(x * 2.0f) + x;
    BOOST_TEST(!y.requires_grad());
    BOOST_TEST(y.node()->inputs.empty());
    BOOST_TEST(!y.node()->backward_fn);
    {
      NoGrad nested;
      BOOST_TEST(!grad_enabled());
    }
    BOOST_TEST(!grad_enabled());  // the nested guard restores "off", not "on"
    // It says why: no graph was recorded because grad mode was off (it used to say only that
    // the tensor does not require grad, as for a graph of constants).
    BOOST_CHECK_EXCEPTION(sum(y).backward(), std::invalid_argument,
                          message_has({"[backward]", "no graph was recorded", "grad mode was off", "NoGrad"}));
  }
  BOOST_TEST(grad_enabled());
  BOOST_TEST((x * 2.0f).requires_grad());
  // A loss built outside the NoGrad from a tensor made inside it says so too; a graph of
  // constants keeps the plain message.
  Tensor h;
  {
    NoGrad guard;
    h = x * 3.0f;
  }
  BOOST_CHECK_EXCEPTION(sum(h * h).backward(), std::invalid_argument,
                        message_has({"[backward]", "no graph was recorded", "grad mode was off"}));
  BOOST_CHECK_EXCEPTION(sum(ones({2}) * 2.0f).backward(), std::invalid_argument,
                        message_has({"[backward]", "does not require grad"}));
}

BOOST_AUTO_TEST_CASE(backward_without_grad_is_an_error) {
  Tensor a = ones({2, 3});
  Tensor y = sum(a * 2.0f);
  BOOST_CHECK_EXCEPTION(y.backward(), std::invalid_argument,
                        message_has({"[backward]", "does not require grad", "'sum'"}));
  BOOST_CHECK_EXCEPTION(ones({2}).backward(ones({2})), std::invalid_argument,
                        message_has({"[backward]", "(2,)", "does not require grad"}));
  // A tensor some op made while no gradient was wanted is a leaf: it may start requiring one.
  Tensor made = ones({2}) * 3.0f;
  made.requires_grad_();
  sum(made * made).backward();
  BOOST_TEST(grad_of(made) == std::vector<float>({6, 6}), tt::per_element());
  // requires_grad_ is for leaves only.
  Tensor x = leaf({1}, {1});
  Tensor z = x * 2.0f;
  BOOST_CHECK_EXCEPTION(z.requires_grad_(), std::invalid_argument, message_has({"[requires_grad_]", "'mul_scalar'"}));
}

BOOST_AUTO_TEST_CASE(backward_twice_is_an_error) {
  Tensor x = leaf({1, 2}, {2});
  Tensor loss = sum(x * x);
  loss.backward();
  BOOST_CHECK_EXCEPTION(loss.backward(), std::invalid_argument, message_has({"[backward]", "already freed", "'sum'"}));
  BOOST_TEST(grad_of(x) == std::vector<float>({2, 4}), tt::per_element());  // unchanged by the failed call
  // A second graph built on a freed intermediate would silently lose the gradient past it
  // (PyTorch: "Trying to backward through the graph a second time"), so it is an error too.
  Tensor h = x * 3.0f;
  sum(h).backward();
  Tensor again = sum(h * h);
  BOOST_CHECK_EXCEPTION(again.backward(), std::invalid_argument,
                        message_has({"[backward]", "freed", "'mul_scalar'", "(2,)"}));
}

BOOST_AUTO_TEST_CASE(graph_freed_after_backward) {
  Tensor x = leaf({1, 2, 3}, {3});
  std::weak_ptr<Node> hidden;
  Tensor loss;
  {
    Tensor h = tanh(x * 2.0f);
    hidden = h.node_ptr();
    loss = sum(h * h);
  }
  BOOST_TEST(!hidden.expired());  // the graph behind loss holds h
  loss.backward();
  BOOST_TEST(hidden.expired());   // backward dropped the links: nothing holds h any more
  BOOST_TEST(loss.node()->inputs.empty());
  BOOST_TEST(!loss.node()->backward_fn);
  BOOST_TEST(x.grad().defined());  // the leaf keeps its gradient
  // A graph nobody runs backward on is freed with its last handle: no shared_ptr cycle.
  std::weak_ptr<Node> dropped;
  {
    Tensor h = exp(x);
    dropped = h.node_ptr();
    Tensor l2 = sum(h * x);
  }
  BOOST_TEST(dropped.expired());
}

BOOST_AUTO_TEST_CASE(deep_chain_no_recursion) {
  // 200000 ops deep: the topological sort and the destructor of an unused graph are loops,
  // so neither overflows the stack. d/dx of x + 1 + 1 + ... is 1.
  Tensor x = leaf({0.5f}, {1});
  const int depth = 200000;
  Tensor y = x;
  for (int i = 0; i < depth; ++i) y = y + 1.0f;
  BOOST_TEST(y.item() == 0.5f + depth);
  y.backward();
  BOOST_TEST(x.grad().item() == 1.0f);
  Tensor z = x;
  for (int i = 0; i < depth; ++i) z = z * 1.0f;
  z = Tensor();  // dropped without backward
  BOOST_TEST(x.requires_grad());
}

BOOST_AUTO_TEST_CASE(trace_prints_each_op_with_shapes) {
  const Tensor a = ones({2, 3}), b = ones({3, 4});
  StderrCapture capture;
  set_trace(true);
  Tensor c = matmul(a, b);
  Tensor d = softmax(c + 1.0f);
  set_trace(false);
  Tensor quiet = d * 2.0f;  // after the switch: not printed
  const std::string text = capture.text();
  BOOST_TEST(text.find("[trace] matmul (2, 3) (3, 4) -> (2, 4)\n") != std::string::npos, text);
  BOOST_TEST(text.find("[trace] add_scalar (2, 4) -> (2, 4)\n") != std::string::npos, text);
  BOOST_TEST(text.find("[trace] softmax (2, 4) -> (2, 4)\n") != std::string::npos, text);
  BOOST_TEST(text.find("mul_scalar") == std::string::npos, text);
  // In run order: matmul before add_scalar before softmax.
  BOOST_TEST(text.find("matmul") < text.find("add_scalar"));
  BOOST_TEST(text.find("add_scalar") < text.find("softmax"));
}

BOOST_AUTO_TEST_CASE(profile_table_counts_calls) {
  const bool was_on = profile_enabled();
  {
    StderrCapture drain;  // an earlier table (if D2L_PROFILE=1) goes nowhere
    print_profile();
  }
  set_profile(true);
  Tensor w = normal(0, 1, {4, 4});
  w.requires_grad_();
  Tensor x = normal(0, 1, {3, 4});
  Tensor loss = sum(tanh(matmul(matmul(x, w), w)));
  loss.backward();
  StderrCapture capture;
  print_profile();
  const std::string text = capture.text();
  set_profile(was_on);
  BOOST_TEST(text.find("op") == 0u, text);
  BOOST_TEST(text.find("calls") != std::string::npos);
  BOOST_TEST(text.find("forward ms") != std::string::npos);
  BOOST_TEST(text.find("backward ms") != std::string::npos);
  // The matmul row: name, 2 calls, then two non-negative times.
  std::istringstream lines(text);
  std::string line;
  bool found_matmul = false, found_total = false;
  while (std::getline(lines, line)) {
    std::istringstream f(line);
    std::string op;
    f >> op;
    if (op == "matmul") {
      long calls = -1;
      double fwd = -1, fwd_cores = -1, bwd = -1, bwd_cores = -1;
      f >> calls >> fwd >> fwd_cores >> bwd >> bwd_cores;
      BOOST_TEST(calls == 2);
      BOOST_TEST(fwd >= 0.0);
      BOOST_TEST(bwd >= 0.0);
      // cores: see profile_cores_column_counts_one_busy_core (a microsecond's product says
      // nothing: other threads' CPU time is read at the scheduler's granularity).
      BOOST_TEST((fwd_cores >= 0.0 && bwd_cores >= 0.0), line);
      found_matmul = true;
    }
    if (op == "tanh") {
      long calls = -1;
      f >> calls;
      BOOST_TEST(calls == 1);
    }
    if (op == "total") found_total = true;
  }
  BOOST_TEST(found_matmul, text);
  BOOST_TEST(found_total, text);
  // print_profile clears the table.
  StderrCapture again;
  print_profile();
  BOOST_TEST(again.text().find("matmul") == std::string::npos);
}

// The cores column: process CPU time / wall time over an op. A 256 x 256 x 256 product on one
// thread (a millisecond or more, long beside the clock's granularity for other threads), after
// 100 ms without work so that OpenMP's idle workers, which may spin for a while after an earlier
// test's parallel region and would count too, have gone to sleep: at most one core, give or
// take (with OMP_WAIT_POLICY=ACTIVE they never sleep: only the lower bound is checked). Not
// much less than one either, unless other programs took the core (CI runs this suite beside
// others, at a lower priority): the lower bound only says the CPU time was counted at all.
BOOST_AUTO_TEST_CASE(profile_cores_column_counts_one_busy_core) {
  const bool was_on = profile_enabled();
#ifdef _OPENMP
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
#endif
  Tensor a = normal(0, 1, {256, 256}), b = normal(0, 1, {256, 256});
  if (was_on) {
    StderrCapture discard;  // start from empty tables
    print_profile();
  }
  usleep(100000);
  set_profile(true);
  for (int i = 0; i < 3; ++i) {
    NoGrad no_grad;
    matmul(a, b);
  }
  StderrCapture capture;
  print_profile();
  const std::string text = capture.text();
  set_profile(was_on);
#ifdef _OPENMP
  omp_set_num_threads(threads);
#endif
  std::istringstream lines(text);
  std::string line;
  bool found = false;
  while (std::getline(lines, line)) {
    std::istringstream f(line);
    std::string op;
    long calls = -1;
    double fwd = -1, cores = -1;
    if (f >> op >> calls >> fwd >> cores && op == "matmul") {
      BOOST_TEST(calls == 3);
      const char* policy = std::getenv("OMP_WAIT_POLICY");
      const bool spinning = policy && (std::string(policy) == "ACTIVE" || std::string(policy) == "active");
      BOOST_TEST(cores > 0.05, line);
      if (!spinning) BOOST_TEST(cores < 1.3, line);
      found = true;
    }
  }
  BOOST_TEST(found, text);
}

// Builds loss = Σ tanh(x W + b): 3 leaves, 4 ops (matmul, add, tanh, sum = reshape + sum).
Tensor small_graph(Tensor& x, Tensor& W, Tensor& b) {
  x = normal(0, 1, {2, 3});
  W = normal(0, 1, {3, 4});
  W.requires_grad_();
  b = zeros({4});
  b.requires_grad_();
  return sum(tanh(matmul(x, W) + b));
}

BOOST_AUTO_TEST_CASE(to_dot_writes_the_graph) {
  Tensor x, W, b;
  const Tensor loss = small_graph(x, W, b);
  const std::string path = d2l_test::scratch_path("graph.dot");
  to_dot(loss, path);
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string dot = ss.str();
  std::remove(path.c_str());
  BOOST_TEST(dot.rfind("digraph", 0) == 0u, dot);
  BOOST_TEST(dot.find("matmul\\n(2, 4)") != std::string::npos, dot);
  BOOST_TEST(dot.find("tanh\\n(2, 4)") != std::string::npos, dot);
  BOOST_TEST(dot.find("leaf\\n(3, 4)") != std::string::npos, dot);
  BOOST_TEST(dot.find("leaf\\n(2, 3)") != std::string::npos, dot);
  // 8 nodes (x, W, b, matmul, add, tanh, reshape, sum) and one edge per op input: 7.
  size_t nodes = 0, edges = 0;
  for (size_t p = dot.find("[label="); p != std::string::npos; p = dot.find("[label=", p + 1)) ++nodes;
  for (size_t p = dot.find(" -> "); p != std::string::npos; p = dot.find(" -> ", p + 1)) ++edges;
  BOOST_TEST(nodes == 8u);
  BOOST_TEST(edges == 7u);
  BOOST_TEST(dot.back() == '\n');
}

// The DOT file goes through the same safe writer as models and figures. It renamed a fixed
// PATH.tmp over the target: a FIFO or a symbolic link became a regular file (`--dot
// /dev/null` as root would have replaced the device), and two writers shared the temporary.
BOOST_AUTO_TEST_CASE(to_dot_refuses_targets_that_are_not_regular_files) {
  Tensor x, W, b;
  const Tensor loss = small_graph(x, W, b);
  const d2l_test::TempDir tmp("to_dot_targets");
  const std::string kept = tmp.write("kept.txt", "keep me");
  BOOST_REQUIRE(::mkfifo(tmp("fifo").c_str(), 0600) == 0);
  std::filesystem::create_symlink(kept, tmp("link"));
  for (const auto& [name, kind] : {std::pair<std::string, std::string>{"fifo", "a FIFO"}, {"link", "a symbolic link"}}) {
    BOOST_TEST_CONTEXT(name) {
      BOOST_CHECK_EXCEPTION(to_dot(loss, tmp(name)), std::runtime_error,
                            message_has({"[to_dot] cannot write '" + tmp(name) + "': it is " + kind}));
    }
  }
  BOOST_TEST(std::filesystem::is_fifo(std::filesystem::symlink_status(tmp("fifo"))));
  BOOST_TEST(std::filesystem::is_symlink(std::filesystem::symlink_status(tmp("link"))));
  BOOST_TEST(d2l_test::read_file(kept) == "keep me");
  // A regular file is replaced whole, with no temporary left beside it.
  to_dot(loss, tmp("graph.dot"));
  BOOST_TEST(d2l_test::read_file(tmp("graph.dot")).rfind("digraph", 0) == 0u);
  for (const auto& e : std::filesystem::directory_iterator(tmp.path))
    BOOST_TEST(e.path().filename().string().find(".tmp") == std::string::npos, "left " << e.path());
}

BOOST_AUTO_TEST_CASE(to_dot_renders_with_graphviz, *utf::precondition(dot_available)) {
  Tensor x, W, b;
  const Tensor loss = small_graph(x, W, b);
  const std::string dot = d2l_test::scratch_path("render.dot"), png = d2l_test::scratch_path("render.png");
  to_dot(loss, dot);
  const std::string cmd = "dot -Tpng '" + dot + "' -o '" + png + "' 2>&1";
  BOOST_TEST(std::system(cmd.c_str()) == 0);
  std::ifstream f(png, std::ios::binary);
  char magic[8] = {};
  f.read(magic, 8);
  BOOST_TEST(f.gcount() == 8);
  BOOST_TEST(std::string(magic + 1, 3) == "PNG");
  std::remove(dot.c_str());
  std::remove(png.c_str());
}

BOOST_AUTO_TEST_SUITE_END()
