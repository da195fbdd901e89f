// tests/test_core_ops.cpp — suite core_ops: every op of core/ops.h, with values worked out by
// hand (or by a naive loop written here) and a finite-difference gradient check
// (tests/gradcheck.h), each op alone and inside a small composite.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/autograd.h"
#include "core/ops.h"
#include "core/random.h"
#include "tests/gradcheck.h"
#include "tests/test_util.h"

using namespace d2l;
using d2l_test::grad_of;
using d2l_test::sum_to;
using d2l::test::gradcheck;
namespace tt = boost::test_tools;

namespace {

using Fn = std::function<Tensor(std::vector<Tensor>&)>;

// Float results of a few float ops: 1e-5 absolute plus 1e-5 relative is ~100 ulps at 1.
void expect(const Tensor& t, const Shape& shape, const std::vector<float>& want, float tol = 1e-5f) {
  BOOST_TEST(shape_str(t.shape()) == shape_str(shape));
  BOOST_REQUIRE_EQUAL(t.numel(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i)
    BOOST_TEST(std::fabs(t.data()[i] - want[i]) <= tol * (1.0f + std::fabs(want[i])),
               "element " << i << ": " << t.data()[i] << " vs " << want[i]);
}

void gc(const std::string& name, const Fn& f, std::vector<Tensor> inputs, std::vector<Tensor> params = {}) {
  BOOST_TEST(gradcheck(f, std::move(inputs), name, std::move(params)), name);
}

Tensor randn(const Shape& s) { return normal(0.0f, 1.0f, s); }
// Values in [lo, hi): for log, sqrt, pow and divisors, away from 0.
Tensor uniform(const Shape& s, float lo, float hi) {
  Tensor t = rand(s);
  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = lo + (hi - lo) * t.data()[i];
  return t;
}
// Normal values pushed at least 0.1 away from 0: ReLU's kink is at 0 and eps is 1e-3.
Tensor off_zero(const Shape& s) {
  Tensor t = randn(s);
  for (int64_t i = 0; i < t.numel(); ++i)
    if (std::fabs(t.data()[i]) < 0.1f) t.data()[i] = t.data()[i] < 0 ? -0.1f : 0.1f;
  return t;
}
// Distinct values 0.3 apart in shuffled order: max has no ties within eps.
Tensor distinct(const Shape& s) {
  Tensor t = empty(s);
  const int64_t n = t.numel();
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = 0.3f * static_cast<float>(i) - 0.15f * static_cast<float>(n);
  for (int64_t i = n - 1; i > 0; --i) std::swap(v[i], v[random_int(i + 1)]);
  for (int64_t i = 0; i < n; ++i) t.data()[i] = v[i];
  return t;
}

// Naive batched product with explicit transposes, the reference for matmul and bmm.
// a is (B, M, K) or stored (B, K, M) when ta; b is (B, K, N) or stored (B, N, K) when tb.
std::vector<float> naive_bmm(const Tensor& a, const Tensor& b, bool ta, bool tb, int64_t B, int64_t M, int64_t N,
                             int64_t K) {
  std::vector<float> c(static_cast<size_t>(B * M * N), 0.0f);
  for (int64_t p = 0; p < B; ++p)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) {
          const float av = ta ? a.data()[(p * K + k) * M + i] : a.data()[(p * M + i) * K + k];
          const float bv = tb ? b.data()[(p * N + j) * K + k] : b.data()[(p * K + k) * N + j];
          s += static_cast<double>(av) * bv;
        }
        c[(p * M + i) * N + j] = static_cast<float>(s);
      }
  return c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core_ops)

// The checker itself must be able to fail: x · detach(x) has true derivative 2x but its
// backward reports x, and softmax's gradient is non-zero only because R weights the outputs.
BOOST_AUTO_TEST_CASE(gradcheck_catches_a_wrong_gradient) {
  manual_seed(0);
  d2l::test::GradcheckOptions quiet;
  quiet.max_reports = 0;
  BOOST_TEST(!gradcheck([](std::vector<Tensor>& x) { return x[0] * x[0].detach(); }, {uniform({3}, 0.5f, 1.0f)},
                        "expected failure", {}, quiet));
  // A backward that is off by 2% in one element only is still caught (rtol is 1%): the
  // true derivative of element 1 is 50 * 1.02 = 51, the backward reports 50.
  BOOST_TEST(!gradcheck(
      [](std::vector<Tensor>& x) { return (x[0] + x[0].detach() * tensor({0.0f, 0.02f, 0.0f})) * 50.0f; },
      {tensor({1.0f, 2.0f, 3.0f})}, "expected failure", {}, quiet));
  BOOST_TEST(gradcheck([](std::vector<Tensor>& x) { return x[0] * x[0]; }, {uniform({3}, 0.5f, 1.0f)}, "x*x"));
}

// --- broadcasting and element-wise binary ops -----------------------------------------------

BOOST_AUTO_TEST_CASE(broadcast_shape_rules) {
  BOOST_TEST(shape_str(broadcast_shapes({2, 1, 4}, {3, 1}, "t")) == "(2, 3, 4)");
  BOOST_TEST(shape_str(broadcast_shapes({}, {2}, "t")) == "(2,)");
  BOOST_TEST(shape_str(broadcast_shapes({5, 1}, {1, 6}, "t")) == "(5, 6)");
  BOOST_TEST(shape_str(broadcast_shapes({3}, {3}, "t")) == "(3,)");
  BOOST_TEST(shape_str(broadcast_shapes({0, 1}, {1, 4}, "t")) == "(0, 4)");
}

// sum_to (tests/test_util.h), which the reduction composite below uses.
BOOST_AUTO_TEST_CASE(sum_to_values_and_grad) {
  const Tensor g = reshape(arange(6), {2, 3});  // [[0, 1, 2], [3, 4, 5]]
  expect(sum_to(g, {3}), {3}, {3, 5, 7});
  expect(sum_to(g, {1, 3}), {1, 3}, {3, 5, 7});
  expect(sum_to(g, {2, 1}), {2, 1}, {3, 12});
  expect(sum_to(g, {}), {}, {15});
  expect(sum_to(g, {2, 3}), {2, 3}, {0, 1, 2, 3, 4, 5});
  manual_seed(1);
  for (const Shape& s : {Shape{3}, Shape{1, 3}, Shape{2, 1}, Shape{}})
    gc("sum_to " + shape_str(s), [s](std::vector<Tensor>& x) { return sum_to(x[0], s); }, {randn({2, 3})});
}

BOOST_AUTO_TEST_CASE(binary_values_with_broadcasting) {
  const Tensor a = tensor({{1, 2, 3}, {4, 5, 6}}), b = tensor({10.0f, 20.0f, 30.0f});
  expect(a + b, {2, 3}, {11, 22, 33, 14, 25, 36});
  expect(a - b, {2, 3}, {-9, -18, -27, -6, -15, -24});
  expect(a * b, {2, 3}, {10, 40, 90, 40, 100, 180});
  expect(a / b, {2, 3}, {0.1f, 0.1f, 0.1f, 0.4f, 0.25f, 0.2f});
  expect(b - a, {2, 3}, {9, 18, 27, 6, 15, 24});  // the broadcast operand on the left
  const Tensor col = tensor({2.0f, 4.0f}, {2, 1});
  expect(a * col, {2, 3}, {2, 4, 6, 16, 20, 24});
  expect(a / col, {2, 3}, {0.5f, 1, 1.5f, 1, 1.25f, 1.5f});
  expect(tensor({1.0f, 2.0f}, {2, 1}) + tensor({10.0f, 20.0f, 30.0f}, {1, 3}), {2, 3}, {11, 21, 31, 12, 22, 32});
  expect(a + tensor({5.0f}, {}), {2, 3}, {6, 7, 8, 9, 10, 11});
  expect(reshape(arange(2), {2, 1, 1}) + reshape(arange(3), {3, 1}) * 10.0f, {2, 3, 1}, {0, 10, 20, 1, 11, 21});
}

BOOST_AUTO_TEST_CASE(binary_broadcast_gradient_by_hand) {
  // loss = Σ a ⊙ b with a (2, 3), b (3,) broadcast over rows: da = b on every row,
  // db = column sums of a = [5, 7, 9].
  Tensor a = tensor({{1, 2, 3}, {4, 5, 6}}), b = tensor({10.0f, 20.0f, 30.0f});
  a.requires_grad_();
  b.requires_grad_();
  sum(a * b).backward();
  BOOST_TEST(grad_of(a) == std::vector<float>({10, 20, 30, 10, 20, 30}), tt::per_element());
  BOOST_TEST(grad_of(b) == std::vector<float>({5, 7, 9}), tt::per_element());
  // sub: db = −(number of rows) = −2;  div: d(a/b)/db = −a/b², summed over rows.
  Tensor c = tensor({2.0f, 4.0f});
  c.requires_grad_();
  sum(tensor({{1, 2}, {3, 4}}) / c).backward();
  BOOST_TEST(grad_of(c) == std::vector<float>({-1.0f, -0.375f}), tt::per_element());  // −(1+3)/4, −(2+4)/16
}

BOOST_AUTO_TEST_CASE(binary_gradcheck_broadcasting) {
  manual_seed(2);
  const std::vector<std::pair<Shape, Shape>> pairs = {
      {{2, 3}, {2, 3}}, {{2, 3}, {3}}, {{3}, {2, 3}}, {{2, 1, 3}, {4, 1}}, {{2, 1}, {1, 3}}, {{3}, {}}, {{1}, {2, 2}}};
  for (const auto& [sa, sb] : pairs) {
    const std::string shapes = " " + shape_str(sa) + " " + shape_str(sb);
    gc("add" + shapes, [](std::vector<Tensor>& x) { return x[0] + x[1]; }, {randn(sa), randn(sb)});
    gc("sub" + shapes, [](std::vector<Tensor>& x) { return x[0] - x[1]; }, {randn(sa), randn(sb)});
    gc("mul" + shapes, [](std::vector<Tensor>& x) { return x[0] * x[1]; }, {randn(sa), randn(sb)});
    gc("div" + shapes, [](std::vector<Tensor>& x) { return x[0] / x[1]; }, {randn(sa), uniform(sb, 0.5f, 2.0f)});
  }
  // One input used on both sides of a broadcasting op: both gradients must add up.
  gc("mul self-broadcast", [](std::vector<Tensor>& x) { return x[0] * sum(x[0], 0, true); }, {randn({3, 2})});
}

// --- scalar and unary ops -------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(scalar_op_values_and_grad) {
  const Tensor x = tensor({1.0f, 2.0f, 4.0f});
  expect(x + 2.0f, {3}, {3, 4, 6});
  expect(2.0f + x, {3}, {3, 4, 6});
  expect(x - 2.0f, {3}, {-1, 0, 2});
  expect(2.0f - x, {3}, {1, 0, -2});
  expect(x * 3.0f, {3}, {3, 6, 12});
  expect(3.0f * x, {3}, {3, 6, 12});
  expect(x / 2.0f, {3}, {0.5f, 1, 2});
  expect(2.0f / x, {3}, {2, 1, 0.5f});
  expect(-x, {3}, {-1, -2, -4});
  expect(neg(x), {3}, {-1, -2, -4});
  manual_seed(3);
  gc("add_scalar", [](std::vector<Tensor>& v) { return v[0] + 1.5f; }, {randn({2, 3})});
  gc("mul_scalar", [](std::vector<Tensor>& v) { return v[0] * -2.5f; }, {randn({2, 3})});
  gc("rsub_scalar", [](std::vector<Tensor>& v) { return 3.0f - v[0]; }, {randn({2, 3})});
  gc("rdiv_scalar", [](std::vector<Tensor>& v) { return 2.0f / v[0]; }, {uniform({2, 3}, 0.5f, 2.0f)});
  gc("div by scalar", [](std::vector<Tensor>& v) { return v[0] / 4.0f; }, {randn({2, 3})});
  gc("neg", [](std::vector<Tensor>& v) { return -v[0]; }, {randn({2, 3})});
}

BOOST_AUTO_TEST_CASE(unary_values) {
  expect(exp(tensor({0.0f, 1.0f, -1.0f})), {3}, {1.0f, 2.7182818f, 0.36787944f});
  expect(log(tensor({1.0f, 2.0f, 2.7182818f})), {3}, {0.0f, 0.69314718f, 1.0f});
  expect(pow(tensor({2.0f, 3.0f}), 2.0f), {2}, {4, 9});
  expect(pow(tensor({2.0f, 3.0f}), 3.0f), {2}, {8, 27});
  expect(pow(tensor({4.0f, 9.0f}), 0.5f), {2}, {2, 3});
  expect(pow(tensor({2.0f, 4.0f}), -1.0f), {2}, {0.5f, 0.25f});
  expect(sqrt(tensor({4.0f, 2.0f, 0.0f})), {3}, {2.0f, 1.4142135f, 0.0f});
  expect(tanh(tensor({0.0f, 0.5f, 1.0f, -1.0f})), {4}, {0.0f, 0.46211716f, 0.76159416f, -0.76159416f});
  // sigmoid in the stable form: no overflow to inf/nan at ±100.
  expect(sigmoid(tensor({0.0f, 2.0f, -2.0f})), {3}, {0.5f, 0.88079708f, 0.11920292f});
  const Tensor ext = sigmoid(tensor({100.0f, -100.0f}));
  BOOST_TEST(ext.data()[0] == 1.0f);
  BOOST_TEST(std::isfinite(ext.data()[1]));
  BOOST_TEST(ext.data()[1] >= 0.0f);
  BOOST_TEST(ext.data()[1] < 1e-40f);
  expect(relu(tensor({-1.0f, 0.0f, 2.0f})), {3}, {0, 0, 2});
  expect(sin(tensor({0.0f, 1.5707964f, -1.5707964f})), {3}, {0, 1, -1});
  expect(cos(tensor({0.0f, 3.1415927f})), {2}, {1, -1});
  // ReLU'(0) = 0 as in PyTorch; tanh' = 1 − tanh², 0 at ±∞ without NaN.
  Tensor r = tensor({-1.0f, 0.0f, 2.0f});
  r.requires_grad_();
  sum(relu(r)).backward();
  BOOST_TEST(grad_of(r) == std::vector<float>({0, 0, 1}), tt::per_element());
  Tensor t = tensor({0.0f, 50.0f});
  t.requires_grad_();
  sum(tanh(t)).backward();
  BOOST_TEST(grad_of(t) == std::vector<float>({1, 0}), tt::per_element());
}

BOOST_AUTO_TEST_CASE(unary_gradcheck) {
  manual_seed(4);
  const Shape s{3, 4};
  gc("exp", [](std::vector<Tensor>& x) { return exp(x[0]); }, {randn(s)});
  gc("log", [](std::vector<Tensor>& x) { return log(x[0]); }, {uniform(s, 0.5f, 3.0f)});
  for (float p : {2.0f, 3.0f, 0.5f, -1.0f, 1.5f})
    gc("pow " + std::to_string(p), [p](std::vector<Tensor>& x) { return pow(x[0], p); }, {uniform(s, 0.5f, 2.0f)});
  gc("sqrt", [](std::vector<Tensor>& x) { return sqrt(x[0]); }, {uniform(s, 0.5f, 3.0f)});
  gc("tanh", [](std::vector<Tensor>& x) { return tanh(x[0]); }, {randn(s)});
  gc("sigmoid", [](std::vector<Tensor>& x) { return sigmoid(x[0] * 3.0f); }, {randn(s)});
  gc("relu", [](std::vector<Tensor>& x) { return relu(x[0]); }, {off_zero(s)});
  gc("sin", [](std::vector<Tensor>& x) { return sin(x[0]); }, {randn(s)});
  gc("cos", [](std::vector<Tensor>& x) { return cos(x[0]); }, {randn(s)});
  // Above GradcheckOptions::max_full (4096) elements a fixed random subset is checked.
  gc("tanh sampled", [](std::vector<Tensor>& x) { return tanh(x[0]); }, {randn({80, 64})});
}

BOOST_AUTO_TEST_CASE(elementwise_composite_gradcheck) {
  // y = sigmoid(a) · log(b) / (1 + exp(−a)) + sqrt(b) · tanh(a)² − relu(a) + sin(a)·cos(b),
  // with b broadcast over a's rows.
  manual_seed(5);
  gc("elementwise composite",
     [](std::vector<Tensor>& x) {
       const Tensor &a = x[0], &b = x[1];
       return sigmoid(a) * log(b) / (1.0f + exp(-a)) + sqrt(b) * pow(tanh(a), 2.0f) - relu(a) + sin(a) * cos(b) +
              2.0f / (3.0f - tanh(a)) - (a - 1.0f) * 0.5f;
     },
     {off_zero({3, 4}), uniform({4}, 0.5f, 2.0f)});
}

// --- reductions -------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(reduction_values) {
  const Tensor x = reshape(arange(6), {2, 3});  // [[0, 1, 2], [3, 4, 5]]
  expect(sum(x), {}, {15});
  expect(sum(x, 0), {3}, {3, 5, 7});
  expect(sum(x, 1), {2}, {3, 12});
  expect(sum(x, -1, true), {2, 1}, {3, 12});
  expect(sum(x, -2, true), {1, 3}, {3, 5, 7});
  expect(mean(x), {}, {2.5f});
  expect(mean(x, 0), {3}, {1.5f, 2.5f, 3.5f});
  expect(mean(x, -1, true), {2, 1}, {1, 4});
  expect(max(x), {}, {5});
  expect(max(x, 0), {3}, {3, 4, 5});
  expect(max(x, 1, true), {2, 1}, {2, 5});
  expect(max(tensor({-3.0f, -1.0f, -2.0f})), {}, {-1});  // the running max starts at −inf, not 0
  expect(argmax(x, 1), {2}, {2, 2});
  expect(argmax(x, 0, true), {1, 3}, {1, 1, 1});
  expect(argmax(tensor({{1, 5, 5}, {7, 0, 7}}), -1), {2}, {1, 0});  // first maximum wins ties
  const Tensor y = reshape(arange(24), {2, 3, 4});
  expect(sum(y, 1), {2, 4}, {12, 15, 18, 21, 48, 51, 54, 57});
  expect(mean(y, -1), {2, 3}, {1.5f, 5.5f, 9.5f, 13.5f, 17.5f, 21.5f});
  expect(max(y, 1, true), {2, 1, 4}, {8, 9, 10, 11, 20, 21, 22, 23});
  // argmax returns indices: no gradient flows through them.
  Tensor r = randn({2, 3});
  r.requires_grad_();
  BOOST_TEST(!argmax(r, 1).requires_grad());
}

BOOST_AUTO_TEST_CASE(reduction_gradient_by_hand) {
  // mean over dim 1 of a (2, 3): each element gets 1/3. max: only the first maximum.
  Tensor x = tensor({{1, 3, 3}, {2, 0, 1}});
  x.requires_grad_();
  sum(mean(x, 1)).backward();
  for (float g : grad_of(x)) BOOST_TEST(std::fabs(g - 1.0f / 3.0f) < 1e-7f);
  x.zero_grad();
  sum(max(x, 1)).backward();
  BOOST_TEST(grad_of(x) == std::vector<float>({0, 1, 0, 1, 0, 0}), tt::per_element());
  x.zero_grad();
  max(x).backward();
  BOOST_TEST(grad_of(x) == std::vector<float>({0, 1, 0, 0, 0, 0}), tt::per_element());
}

BOOST_AUTO_TEST_CASE(reduction_gradcheck) {
  manual_seed(6);
  const Shape s{2, 3, 4};
  gc("sum all", [](std::vector<Tensor>& x) { return sum(x[0]); }, {randn(s)});
  gc("mean all", [](std::vector<Tensor>& x) { return mean(x[0]); }, {randn(s)});
  gc("max all", [](std::vector<Tensor>& x) { return max(x[0]); }, {distinct(s)});
  for (int64_t d : {0, 1, 2, -1, -2})
    for (bool keep : {false, true}) {
      const std::string tag = " dim " + std::to_string(d) + (keep ? " keepdim" : "");
      gc("sum" + tag, [d, keep](std::vector<Tensor>& x) { return sum(x[0], d, keep); }, {randn(s)});
      gc("mean" + tag, [d, keep](std::vector<Tensor>& x) { return mean(x[0], d, keep); }, {randn(s)});
      gc("max" + tag, [d, keep](std::vector<Tensor>& x) { return max(x[0], d, keep); }, {distinct(s)});
    }
  // Composite: a softmax written out by hand from reductions, and a variance.
  gc("reduction composite",
     [](std::vector<Tensor>& x) {
       const Tensor z = exp(x[0] - max(x[0], -1, true));
       const Tensor p = z / sum(z, -1, true);
       const Tensor c = x[0] - mean(x[0], 0, true);
       return p + mean(c * c, 0, true) - sum_to(x[0] * x[0], {4});
     },
     {distinct({3, 4})});
}

// --- shape ops ------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(reshape_permute_transpose_values) {
  const Tensor x = reshape(arange(6), {2, 3});
  expect(reshape(x, {3, -1}), {3, 2}, {0, 1, 2, 3, 4, 5});
  expect(reshape(x, {-1}), {6}, {0, 1, 2, 3, 4, 5});
  expect(reshape(x, {1, -1, 2}), {1, 3, 2}, {0, 1, 2, 3, 4, 5});
  expect(reshape(tensor({7.0f}), {}), {}, {7});
  expect(transpose(x, 0, 1), {3, 2}, {0, 3, 1, 4, 2, 5});
  expect(transpose(x, -1, -2), {3, 2}, {0, 3, 1, 4, 2, 5});
  expect(unsqueeze(x, 0), {1, 2, 3}, {0, 1, 2, 3, 4, 5});
  expect(unsqueeze(x, -1), {2, 3, 1}, {0, 1, 2, 3, 4, 5});
  expect(unsqueeze(x, 1), {2, 1, 3}, {0, 1, 2, 3, 4, 5});
  expect(squeeze(unsqueeze(x, 1), 1), {2, 3}, {0, 1, 2, 3, 4, 5});
  expect(squeeze(unsqueeze(x, -1), -1), {2, 3}, {0, 1, 2, 3, 4, 5});
  // permute (2, 0, 1): y[i, j, k] = x[j, k, i], checked against the definition.
  const Tensor y = reshape(arange(24), {2, 3, 4});
  const Tensor p = permute(y, {2, 0, 1});
  BOOST_TEST(shape_str(p.shape()) == "(4, 2, 3)");
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 2; ++j)
      for (int64_t k = 0; k < 3; ++k) BOOST_TEST(p.at({i, j, k}) == y.at({j, k, i}));
  expect(permute(y, {-1, 0, 1}), {4, 2, 3}, p.to_vector());
  expect(permute(x, {0, 1}), {2, 3}, {0, 1, 2, 3, 4, 5});
  // The book's transpose_qkv move: (B, T, h, d) -> (B, h, T, d).
  const Tensor q = reshape(arange(16), {1, 2, 2, 4});
  expect(permute(q, {0, 2, 1, 3}), {1, 2, 2, 4}, {0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15});
}

BOOST_AUTO_TEST_CASE(concat_stack_values) {
  const Tensor a = tensor({{1, 2}, {3, 4}});
  expect(concat({a, tensor({{5, 6}})}, 0), {3, 2}, {1, 2, 3, 4, 5, 6});
  expect(concat({a, tensor({7.0f, 8.0f}, {2, 1})}, 1), {2, 3}, {1, 2, 7, 3, 4, 8});
  expect(concat({a, tensor({7.0f, 8.0f}, {2, 1})}, -1), {2, 3}, {1, 2, 7, 3, 4, 8});
  // 3-D along the middle dim: (2, 1, 2) ++ (2, 2, 2) -> (2, 3, 2).
  expect(concat({reshape(arange(4), {2, 1, 2}), reshape(arange(8), {2, 2, 2}) + 10.0f}, 1), {2, 3, 2},
         {0, 1, 10, 11, 12, 13, 2, 3, 14, 15, 16, 17});
  expect(concat({a}, 0), {2, 2}, {1, 2, 3, 4});
  const Tensor u = tensor({1.0f, 2.0f}), v = tensor({3.0f, 4.0f});
  expect(stack({u, v}, 0), {2, 2}, {1, 2, 3, 4});
  expect(stack({u, v}, 1), {2, 2}, {1, 3, 2, 4});
  expect(stack({u, v}, -1), {2, 2}, {1, 3, 2, 4});
  expect(stack({a, a * 10.0f, a * 100.0f}, 2), {2, 2, 3}, {1, 10, 100, 2, 20, 200, 3, 30, 300, 4, 40, 400});
  expect(stack({a, a * 10.0f}, 1), {2, 2, 2}, {1, 2, 10, 20, 3, 4, 30, 40});
}

BOOST_AUTO_TEST_CASE(slice_select_values) {
  const Tensor x = arange(10);
  expect(slice(x, 0, 2, 5), {3}, {2, 3, 4});
  expect(slice(x, 0, -3, -1), {2}, {7, 8});      // x[-3:-1]
  expect(slice(x, 0, -100, 3), {3}, {0, 1, 2});  // clamped, as Python does
  expect(slice(x, 0, 8, 100), {2}, {8, 9});
  expect(slice(x, 0, 5, 2), {0}, {});  // empty, not an error
  expect(slice(x, -1, 7, 10), {3}, {7, 8, 9});
  const Tensor m = reshape(arange(12), {3, 4});
  expect(slice(m, 1, -2, 4), {3, 2}, {2, 3, 6, 7, 10, 11});
  expect(slice(m, 0, 1, 2), {1, 4}, {4, 5, 6, 7});
  expect(select(m, 0, -1), {4}, {8, 9, 10, 11});
  expect(select(m, 1, 1), {3}, {1, 5, 9});
  expect(select(m, -1, -4), {3}, {0, 4, 8});
}

BOOST_AUTO_TEST_CASE(repeat_values) {
  expect(repeat(tensor({{1, 2}}), {2, 3}), {2, 6}, {1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2});
  expect(repeat(tensor({1.0f, 2.0f}), {2, 2}), {2, 4}, {1, 2, 1, 2, 1, 2, 1, 2});  // a leading dim added
  expect(repeat(tensor({{1, 2, 3}, {4, 5, 6}}), {1, 2, 1}), {1, 4, 3}, {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6});
  expect(repeat(tensor({{1, 2}, {3, 4}}), {2, 1}), {4, 2}, {1, 2, 3, 4, 1, 2, 3, 4});
  // repeat_interleave: the book repeats valid_lens this way, torch.repeat_interleave(v, Q).
  expect(repeat_interleave(tensor({1.0f, 2.0f, 3.0f}), 2, 0), {6}, {1, 1, 2, 2, 3, 3});
  expect(repeat_interleave(tensor({{1, 2}, {3, 4}}), 2, 1), {2, 4}, {1, 1, 2, 2, 3, 3, 4, 4});
  expect(repeat_interleave(tensor({{1, 2}, {3, 4}}), 2, 0), {4, 2}, {1, 2, 1, 2, 3, 4, 3, 4});
  expect(repeat_interleave(tensor({{1, 2}, {3, 4}}), 3, -1), {2, 6}, {1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4});
}

BOOST_AUTO_TEST_CASE(gather_values_and_repeated_index_grad) {
  Tensor x = tensor({{1, 2}, {3, 4}, {5, 6}});
  expect(index_select(x, 0, tensor({2.0f, 0.0f, 2.0f})), {3, 2}, {5, 6, 1, 2, 5, 6});
  expect(index_select(x, 1, tensor({1.0f, 1.0f})), {3, 2}, {2, 2, 4, 4, 6, 6});
  expect(index_select(x, -1, tensor({0.0f})), {3, 1}, {1, 3, 5});
  // Row 2 is taken twice, so its gradient is 2 (a scatter-add), row 1 never: 0.
  x.requires_grad_();
  sum(index_select(x, 0, tensor({2.0f, 0.0f, 2.0f}))).backward();
  BOOST_TEST(grad_of(x) == std::vector<float>({1, 1, 0, 0, 2, 2}), tt::per_element());
  // embedding: W (V = 3, d = 2) gathered by tokens (2, 2) -> (2, 2, 2); token 1 appears 3 times.
  Tensor W = tensor({{0.0f, 0.1f}, {1.0f, 1.1f}, {2.0f, 2.1f}});
  const Tensor tokens = tensor({{1, 1}, {0, 1}});
  const Tensor e = embedding(W, tokens);
  expect(e, {2, 2, 2}, {1, 1.1f, 1, 1.1f, 0, 0.1f, 1, 1.1f});
  W.requires_grad_();
  embedding(W, tokens).backward(reshape(arange(8), {2, 2, 2}));
  // dW[1] = g[0,0] + g[0,1] + g[1,1] = (0,1) + (2,3) + (6,7); dW[0] = g[1,0] = (4,5); dW[2] = 0.
  BOOST_TEST(grad_of(W) == std::vector<float>({4, 5, 8, 11, 0, 0}), tt::per_element());
}

BOOST_AUTO_TEST_CASE(shape_ops_gradcheck) {
  manual_seed(7);
  gc("reshape -1", [](std::vector<Tensor>& x) { return reshape(x[0], {3, -1}); }, {randn({2, 3, 2})});
  gc("permute", [](std::vector<Tensor>& x) { return permute(x[0], {2, 0, 1}); }, {randn({2, 3, 4})});
  gc("permute 4-D", [](std::vector<Tensor>& x) { return permute(x[0], {0, 2, 1, 3}); }, {randn({2, 3, 2, 2})});
  gc("transpose", [](std::vector<Tensor>& x) { return transpose(x[0], -1, 0); }, {randn({2, 3, 4})});
  gc("unsqueeze", [](std::vector<Tensor>& x) { return unsqueeze(x[0], -2); }, {randn({2, 3})});
  gc("squeeze", [](std::vector<Tensor>& x) { return squeeze(x[0], 1); }, {randn({2, 1, 3})});
  for (int64_t d : {0, 1, 2, -1})
    gc("concat dim " + std::to_string(d), [d](std::vector<Tensor>& x) { return concat({x[0], x[1], x[0]}, d); },
       {randn({2, 3, 2}), randn({2, 3, 2})});
  gc("concat uneven", [](std::vector<Tensor>& x) { return concat({x[0], x[1]}, 1); }, {randn({2, 1, 3}), randn({2, 4, 3})});
  for (int64_t d : {0, 1, 2, -1})
    gc("stack dim " + std::to_string(d), [d](std::vector<Tensor>& x) { return stack({x[0], x[1]}, d); },
       {randn({2, 3}), randn({2, 3})});
  gc("slice", [](std::vector<Tensor>& x) { return slice(x[0], 1, 1, 3); }, {randn({2, 4, 3})});
  gc("slice negative", [](std::vector<Tensor>& x) { return slice(x[0], -1, -3, -1); }, {randn({2, 4})});
  gc("select", [](std::vector<Tensor>& x) { return select(x[0], 1, -1); }, {randn({2, 3, 2})});
  gc("repeat", [](std::vector<Tensor>& x) { return repeat(x[0], {2, 1, 3}); }, {randn({2, 3})});
  gc("repeat_interleave dim 0", [](std::vector<Tensor>& x) { return repeat_interleave(x[0], 3, 0); }, {randn({2, 3})});
  gc("repeat_interleave dim -1", [](std::vector<Tensor>& x) { return repeat_interleave(x[0], 2, -1); }, {randn({2, 3})});
  const Tensor idx = tensor({2.0f, 0.0f, 2.0f, 1.0f, 2.0f});
  gc("index_select repeated", [idx](std::vector<Tensor>& x) { return index_select(x[0], 0, idx); }, {randn({3, 2})});
  gc("index_select dim 1", [idx](std::vector<Tensor>& x) { return index_select(x[0], 1, idx); }, {randn({2, 3, 2})});
  const Tensor tokens = tensor({{1, 1, 3}, {0, 1, 1}});
  gc("embedding repeated", [tokens](std::vector<Tensor>& x) { return embedding(x[0], tokens); }, {randn({4, 3})});
  gc("gather composite",
     [idx](std::vector<Tensor>& x) { return sum(index_select(transpose(select(x[0], 0, -1), 0, 1), 1, idx) * 2.0f, 0); },
     {randn({2, 3, 4})});
  // Composite: the book's transpose_qkv and transpose_output (sec_multihead-attention),
  // with a concat, a slice, a repeat and an embedding feeding them.
  gc("shape composite",
     [tokens](std::vector<Tensor>& x) {
       const Tensor emb = embedding(x[0], tokens);                            // (2, 3, 4)
       const Tensor X = concat({emb, slice(x[1], 1, -3, 3)}, 1);              // (2, 4, 4)
       Tensor h = permute(reshape(X, {2, 4, 2, -1}), {0, 2, 1, 3});           // (2, 2, 4, 2)
       h = reshape(h, {-1, 4, 2}) * repeat(x[2], {4, 1, 1});                  // (4, 4, 2)
       h = permute(reshape(h, {2, 2, 4, 2}), {0, 2, 1, 3});                   // back to (2, 4, 2, 2)
       return stack({squeeze(reshape(h, {2, 4, 4, 1}), -1), repeat_interleave(X, 1, 0)}, 1);
     },
     {randn({4, 4}), randn({2, 5, 4}), randn({1, 4, 2})});
}

// --- matmul, bmm, linear ---------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(matmul_values) {
  expect(matmul(tensor({{1, 2}, {3, 4}}), tensor({{5, 6}, {7, 8}})), {2, 2}, {19, 22, 43, 50});
  expect(matmul(tensor({{1, 2, 3}, {4, 5, 6}}), tensor({1.0f, 0.0f, -1.0f}, {3, 1})), {2, 1}, {-2, -2});
  manual_seed(8);
  // (..., n, k) x (k, m): each leading slice times the same matrix.
  const Tensor a = randn({2, 3, 4}), w = randn({4, 5});
  const Tensor y = matmul(a, w);
  BOOST_TEST(shape_str(y.shape()) == "(2, 3, 5)");
  expect(y, {2, 3, 5}, naive_bmm(reshape(a, {1, 6, 4}), reshape(w, {1, 4, 5}), false, false, 1, 6, 5, 4), 1e-5f);
  // Batched (2, 2, 3, 4) x (2, 2, 4, 5): four independent products.
  const Tensor A = randn({2, 2, 3, 4}), B = randn({2, 2, 4, 5});
  expect(matmul(A, B), {2, 2, 3, 5}, naive_bmm(A, B, false, false, 4, 3, 5, 4), 1e-5f);
  // Degenerate: k = 0 gives zeros; m = 0 gives an empty result.
  expect(matmul(zeros({2, 0}), zeros({0, 3})), {2, 3}, std::vector<float>(6, 0.0f));
  BOOST_TEST(matmul(ones({2, 3}), ones({3, 0})).numel() == 0);
}

BOOST_AUTO_TEST_CASE(matmul_gradient_by_hand) {
  // C = A B with dC = ones: dA = ones Bᵀ (row sums of B), dB = Aᵀ ones (column sums of A).
  Tensor A = tensor({{1, 2}, {3, 4}}), B = tensor({{5, 6}, {7, 8}});
  A.requires_grad_();
  B.requires_grad_();
  sum(matmul(A, B)).backward();
  BOOST_TEST(grad_of(A) == std::vector<float>({11, 15, 11, 15}), tt::per_element());
  BOOST_TEST(grad_of(B) == std::vector<float>({4, 4, 6, 6}), tt::per_element());
}

BOOST_AUTO_TEST_CASE(bmm_all_transpose_flags) {
  manual_seed(9);
  const int64_t Bn = 2, M = 3, N = 4, K = 5;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const Shape sa = ta ? Shape{Bn, K, M} : Shape{Bn, M, K}, sb = tb ? Shape{Bn, N, K} : Shape{Bn, K, N};
      const Tensor a = randn(sa), b = randn(sb);
      const std::string tag = std::string("bmm ta=") + (ta ? "1" : "0") + " tb=" + (tb ? "1" : "0");
      BOOST_TEST_CONTEXT(tag) { expect(bmm(a, b, ta, tb), {Bn, M, N}, naive_bmm(a, b, ta, tb, Bn, M, N, K), 1e-5f); }
      gc(tag, [ta, tb](std::vector<Tensor>& x) { return bmm(x[0], x[1], ta, tb); }, {a, b});
    }
  // Q Kᵀ without a copy equals bmm against the materialised transpose.
  const Tensor q = randn({2, 3, 4}), k = randn({2, 5, 4});
  BOOST_TEST(bmm(q, k, false, true).to_vector() == bmm(q, transpose(k, 1, 2)).to_vector(), tt::per_element());
}

BOOST_AUTO_TEST_CASE(matmul_gradcheck) {
  manual_seed(10);
  gc("matmul 2-D", [](std::vector<Tensor>& x) { return matmul(x[0], x[1]); }, {randn({3, 5}), randn({5, 7})});
  gc("matmul 1x1", [](std::vector<Tensor>& x) { return matmul(x[0], x[1]); }, {randn({1, 1}), randn({1, 1})});
  gc("matmul (..., n, k) x (k, m)", [](std::vector<Tensor>& x) { return matmul(x[0], x[1]); },
     {randn({2, 3, 4}), randn({4, 2})});
  gc("matmul batched 4-D", [](std::vector<Tensor>& x) { return matmul(x[0], x[1]); },
     {randn({2, 2, 3, 4}), randn({2, 2, 4, 3})});
  // The same matrix on both sides: A·A accumulates two gradient contributions.
  gc("matmul self", [](std::vector<Tensor>& x) { return matmul(x[0], x[0]); }, {randn({3, 3})});
}

BOOST_AUTO_TEST_CASE(linear_values_and_gradcheck) {
  // y = x Wᵀ + b with W (out = 2, in = 3).
  const Tensor x = tensor({{1, 2, 3}, {0, -1, 1}}), W = tensor({{1, 0, -1}, {2, 1, 0}}), b = tensor({0.5f, -1.0f});
  expect(linear(x, W, b), {2, 2}, {-1.5f, 3, -0.5f, -2});
  expect(linear(x, W, Tensor()), {2, 2}, {-2, 4, -1, -1});
  manual_seed(11);
  const Tensor x3 = randn({2, 3, 4}), W3 = randn({5, 4}), b3 = randn({5});
  expect(linear(x3, W3, b3), {2, 3, 5}, (matmul(x3, transpose(W3, 0, 1)) + b3).to_vector(), 1e-5f);
  gc("linear with bias", [](std::vector<Tensor>& v) { return linear(v[0], v[1], v[2]); },
     {randn({3, 4}), randn({2, 4}), randn({2})});
  gc("linear without bias", [](std::vector<Tensor>& v) { return linear(v[0], v[1], Tensor()); },
     {randn({3, 4}), randn({2, 4})});
  gc("linear 3-D input", [](std::vector<Tensor>& v) { return linear(v[0], v[1], v[2]); },
     {randn({2, 3, 4}), randn({5, 4}), randn({5})});
  // Composite: a two-layer MLP whose weights are parameters the closure holds.
  Tensor W1 = randn({6, 4}), b1 = randn({6}), W2 = randn({3, 6});
  gc("MLP composite", [W1, b1, W2](std::vector<Tensor>& v) { return linear(relu(linear(v[0], W1, b1)), W2, Tensor()); },
     {randn({2, 3, 4})}, {W1, b1, W2});
}

BOOST_AUTO_TEST_CASE(sequence_mask_values_and_grad) {
  // The book's examples (sec_machine_translation's sequence_mask).
  expect(sequence_mask(tensor({{1, 2, 3}, {4, 5, 6}}), tensor({1.0f, 2.0f})), {2, 3}, {1, 0, 0, 4, 5, 0});
  expect(sequence_mask(ones({2, 3, 4}), tensor({1.0f, 2.0f}), -1.0f), {2, 3, 4},
         {1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1, -1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1});
  manual_seed(13);
  const Tensor lens = tensor({1.0f, 3.0f, 0.0f});
  gc("sequence_mask", [lens](std::vector<Tensor>& x) { return sequence_mask(x[0], lens); }, {randn({3, 3, 2})});
  // Masked positions get exactly 0 gradient: they hold the constant `value`.
  Tensor X = randn({3, 3});
  X.requires_grad_();
  sequence_mask(X, lens, -7.0f).backward(normal(0, 1, {3, 3}));
  const std::vector<float> g = grad_of(X);
  for (int64_t b = 0; b < 3; ++b)
    for (int64_t t = 0; t < 3; ++t) {
      if (t >= lens.data()[b]) {
        BOOST_TEST(g[b * 3 + t] == 0.0f);
      } else {
        BOOST_TEST(g[b * 3 + t] != 0.0f);
      }
    }
  // Composite: the book's masked softmax cross-entropy loss (sec_seq2seq).
  const Tensor labels = tensor({{1, 0, 2}, {2, 2, 1}});
  const Tensor valid = tensor({2.0f, 3.0f});
  gc("masked CE composite",
     [labels, valid](std::vector<Tensor>& x) {
       return mean(sequence_mask(softmax_cross_entropy(x[0], labels), valid), 1);
     },
     {randn({2, 3, 4})});
}

// --- dropout, layer_norm, cross-entropy ---------------------------------------------------

BOOST_AUTO_TEST_CASE(dropout_train_statistics_and_mask_grad) {
  manual_seed(15);
  const float p = 0.3f;
  const int64_t n = 100000;
  Tensor x = ones({n});
  x.requires_grad_();
  const Tensor y = dropout(x, p, true);
  int64_t zeros_seen = 0;
  double total = 0;
  bool values_ok = true;
  for (float v : y.to_vector()) {
    if (v == 0.0f) ++zeros_seen;
    else values_ok = values_ok && v == 1.0f / (1.0f - p);  // kept elements scaled by 1/(1-p)
    total += v;
  }
  BOOST_TEST(values_ok);
  // Zero fraction ~ Binomial(n, p)/n: sd = sqrt(p(1-p)/n) = 1.45e-3, so 7e-3 is ~5 sigma.
  BOOST_TEST(std::fabs(static_cast<double>(zeros_seen) / n - p) < 7e-3);
  // Mean of y: each element has mean 1 and variance p/(1-p) = 0.43, so the mean's sd is
  // sqrt(0.43/n) = 2.1e-3; 1e-2 is ~5 sigma. (Inverted dropout keeps the expectation.)
  BOOST_TEST(std::fabs(total / n - 1.0) < 1e-2);
  // Gradient: dx = dy * mask, i.e. dy/(1-p) where kept, exactly 0 where dropped.
  const Tensor g = normal(0, 1, {n});
  Tensor y2 = dropout(x, p, true);
  y2.backward(g);
  const std::vector<float> dx = grad_of(x);
  bool grad_ok = true;
  for (int64_t i = 0; i < n; ++i)
    grad_ok = grad_ok && dx[i] == (y2.data()[i] == 0.0f ? 0.0f : g.data()[i] * (1.0f / (1.0f - p)));
  BOOST_TEST(grad_ok);
  // The same seed draws the same mask; a finite-difference check therefore reseeds in f.
  gc("dropout (fixed mask)", [](std::vector<Tensor>& v) { manual_seed(99); return dropout(v[0], 0.5f, true); },
     {randn({3, 4})});
  // p = 1 drops everything.
  expect(dropout(ones({3}), 1.0f, true), {3}, {0, 0, 0});
}

BOOST_AUTO_TEST_CASE(dropout_eval_is_identity) {
  Tensor x = normal(0, 1, {4, 5});
  const Tensor y = dropout(x, 0.5f, false);
  BOOST_TEST(y.node() == x.node());  // the very same tensor, as nn.Dropout in eval mode
  BOOST_TEST(dropout(x, 0.0f, true).node() == x.node());
}

BOOST_AUTO_TEST_CASE(layer_norm_values_and_gradcheck) {
  // x = [1, 2, 3, 4]: mean 2.5, var 1.25, rstd = 1/sqrt(1.25 + 1e-5) = 0.8944236.
  const Tensor x = tensor({{1, 2, 3, 4}});
  const float r = 0.8944236f;
  expect(layer_norm(x, {4}, Tensor(), Tensor()), {1, 4}, {-1.5f * r, -0.5f * r, 0.5f * r, 1.5f * r});
  expect(layer_norm(x, {4}, tensor({1.0f, 2.0f, 1.0f, 2.0f}), tensor({0.0f, 0.0f, 1.0f, 1.0f})), {1, 4},
         {-1.3416354f, -0.8944236f, 1.4472118f, 3.6832708f});
  // Over 2 trailing dims the statistics pool 6 values: [0..5] has mean 2.5, var 35/12.
  const float r6 = 1.0f / std::sqrt(35.0f / 12.0f + 1e-5f);
  expect(layer_norm(reshape(arange(6), {1, 2, 3}), {2, 3}, Tensor(), Tensor()), {1, 2, 3},
         {-2.5f * r6, -1.5f * r6, -0.5f * r6, 0.5f * r6, 1.5f * r6, 2.5f * r6});
  manual_seed(16);
  gc("layer_norm gamma beta", [](std::vector<Tensor>& v) { return layer_norm(v[0], {5}, v[1], v[2]); },
     {randn({2, 3, 5}), randn({5}), randn({5})});
  gc("layer_norm 2 trailing dims", [](std::vector<Tensor>& v) { return layer_norm(v[0], {3, 4}, v[1], v[2]); },
     {randn({2, 3, 4}), randn({3, 4}), randn({3, 4})});
  gc("layer_norm no affine", [](std::vector<Tensor>& v) { return layer_norm(v[0], {4}, Tensor(), Tensor()); },
     {randn({3, 4})});
  // Composite: the book's AddNorm, LayerNorm(dropout(Y) + X) with dropout off, then an FFN.
  Tensor W = randn({4, 4}), gamma = randn({4}), beta = randn({4});
  gc("AddNorm composite",
     [W, gamma, beta](std::vector<Tensor>& v) {
       const Tensor Y = linear(v[0], W, Tensor());
       return relu(layer_norm(dropout(Y, 0.5f, false) + v[0], {4}, gamma, beta) + 3.0f);
     },
     {randn({2, 3, 4})}, {W, gamma, beta});
}

BOOST_AUTO_TEST_CASE(cross_entropy_values_and_gradcheck) {
  // loss = log Σ e^z − z_label; for z = [1, 2, 3], log Σ e^z = 3.40760596.
  const Tensor z = tensor({{1, 2, 3}, {1, 2, 3}});
  expect(softmax_cross_entropy(z, tensor({2.0f, 0.0f})), {2}, {0.40760596f, 2.40760596f});
  // Huge logits: computed as max + log Σ e^{z−max}, so no overflow.
  expect(softmax_cross_entropy(tensor({{1000.0f, 0.0f}}), tensor({1.0f})), {1}, {1000.0f});
  // Large equal logits: log 2 exactly-ish (m + log s − z would round to float's 1e-3 spacing at 1e4).
  expect(softmax_cross_entropy(tensor({{1e4f, 1e4f}, {-1e4f, -1e4f}}), tensor({0.0f, 1.0f})), {2},
         {0.69314718f, 0.69314718f}, 1e-6f);
  // Gradient = softmax(z) − onehot(label).
  Tensor zz = tensor({{1, 2, 3}});
  zz.requires_grad_();
  sum(softmax_cross_entropy(zz, tensor({1.0f}))).backward();
  const std::vector<float> g = grad_of(zz);
  BOOST_TEST(std::fabs(g[0] - 0.09003057f) < 1e-6f);
  BOOST_TEST(std::fabs(g[1] - (0.24472847f - 1.0f)) < 1e-6f);
  BOOST_TEST(std::fabs(g[2] - 0.66524096f) < 1e-6f);
  manual_seed(17);
  const Tensor labels = tensor({{0, 4, 2}, {1, 1, 3}});
  gc("softmax_cross_entropy", [labels](std::vector<Tensor>& v) { return softmax_cross_entropy(v[0], labels); },
     {randn({2, 3, 5})});
  const Tensor lab1 = tensor({2.0f, 0.0f, 1.0f});
  Tensor W = randn({3, 4});
  gc("classifier composite",
     [lab1, W](std::vector<Tensor>& v) { return mean(softmax_cross_entropy(linear(v[0], W, Tensor()), lab1)); },
     {randn({3, 4})}, {W});
}

BOOST_AUTO_TEST_SUITE_END()
