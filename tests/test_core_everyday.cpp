// tests/test_core_everyday.cpp — suite core_everyday: what a training loop of one's own needs
// beyond the layers, reached through the one umbrella header core/d2l.h: randint, the
// comparisons, abs (with its gradient check), allclose, accuracy and printing large tensors
// as PyTorch does. Values are worked out by hand in the comments, or printed by PyTorch
// (tests/torch_printed.h).
#include "core/d2l.h"  // first: this file must compile with nothing else from core/

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/gradcheck.h"
#include "tests/test_util.h"
#include "tests/torch_printed.h"

using namespace d2l;
using d2l_test::message_has;
namespace tt = boost::test_tools;

BOOST_AUTO_TEST_SUITE(core_everyday)

BOOST_AUTO_TEST_CASE(umbrella_header_trains_a_classifier) {
  // A module, an initialiser, an optimiser, a loss and the metric, all from core/d2l.h: a
  // linear 2-class classifier learns "class 1 iff the first feature is positive" on four
  // points, from 2 of 4 right at the start (worked out below) to 4 of 4.
  struct Classifier : Module {
    Tensor weight;
    Classifier() {
      weight = register_parameter("weight", empty({2, 3}));
      normal_(weight, 0.0f, 0.0f);  // all zero: every logit 0, argmax picks class 0
    }
  } net;
  Adam trainer(net.parameters(), 0.1f);
  const Tensor X = tensor({{1.0f, 0.0f, 0.0f}, {2.0f, 1.0f, 0.0f}, {-1.0f, 0.0f, 1.0f}, {-2.0f, 1.0f, 1.0f}});
  const Tensor y = tensor({1.0f, 1.0f, 0.0f, 0.0f});
  auto logits = [&] { return matmul(X, transpose(net.weight, 0, 1)); };
  BOOST_TEST(accuracy(logits(), y) == 2.0);  // ties go to class 0: the two class-0 rows are right
  for (int step = 0; step < 50; ++step) {
    trainer.zero_grad();
    mean(softmax_cross_entropy(logits(), y)).backward();
    trainer.step();
  }
  BOOST_TEST(accuracy(logits(), y) == 4.0);
}

// --- randint -----------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(randint_draws_from_the_seeded_generator) {
  // Element i is low + random_int(high - low), drawn in order: the naive reference.
  manual_seed(42);
  const Tensor t = randint(-2, 3, {4, 250});
  manual_seed(42);
  std::vector<float> want;
  for (int i = 0; i < 1000; ++i) want.push_back(static_cast<float>(-2 + random_int(5)));
  BOOST_TEST(t.to_vector() == want, tt::per_element());
  BOOST_TEST(shape_str(t.shape()) == "(4, 250)");
  // Every value in [-2, 3) occurs (each has probability 1/5 over 1000 draws), none outside.
  std::vector<int> seen(5, 0);
  for (float v : want) {
    BOOST_REQUIRE((v >= -2.0f && v <= 2.0f && v == std::floor(v)));
    ++seen[static_cast<int>(v) + 2];
  }
  for (int c : seen) BOOST_TEST(c > 0);
  BOOST_TEST(!t.requires_grad());
  // One value possible: always low.
  BOOST_TEST(randint(7, 8, {3}).to_vector() == std::vector<float>({7, 7, 7}), tt::per_element());
  BOOST_CHECK_EXCEPTION(randint(3, 3, {2}), std::invalid_argument, message_has({"[randint]", "low 3", "high 3"}));
  BOOST_CHECK_EXCEPTION(randint(0, (int64_t{1} << 24) + 1, {2}), std::invalid_argument,
                        message_has({"[randint]", "16777216"}));
}

// --- comparisons ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(comparisons_give_zero_one_tensors_with_broadcasting) {
  // a (2, 3) against the row b (3,), broadcast down the rows:
  //   a = [[1, 2, 3],    b = [2, 2, 7]
  //        [4, nan, 7]]
  const Tensor a = tensor({1.0f, 2.0f, 3.0f, 4.0f, NAN, 7.0f}, {2, 3}), b = tensor({2.0f, 2.0f, 7.0f});
  auto values = [](const Tensor& t) {
    BOOST_TEST(shape_str(t.shape()) == "(2, 3)");
    return t.to_vector();
  };
  // NaN is unequal to everything: 0 in every comparison but ne.
  BOOST_TEST(values(eq(a, b)) == std::vector<float>({0, 1, 0, 0, 0, 1}), tt::per_element());
  BOOST_TEST(values(ne(a, b)) == std::vector<float>({1, 0, 1, 1, 1, 0}), tt::per_element());
  BOOST_TEST(values(lt(a, b)) == std::vector<float>({1, 0, 1, 0, 0, 0}), tt::per_element());
  BOOST_TEST(values(le(a, b)) == std::vector<float>({1, 1, 1, 0, 0, 1}), tt::per_element());
  BOOST_TEST(values(gt(a, b)) == std::vector<float>({0, 0, 0, 1, 0, 0}), tt::per_element());
  BOOST_TEST(values(ge(a, b)) == std::vector<float>({0, 1, 0, 1, 0, 1}), tt::per_element());
  // Against a scalar.
  BOOST_TEST(values(gt(a, 2.5f)) == std::vector<float>({0, 0, 1, 1, 0, 1}), tt::per_element());
  BOOST_TEST(values(le(a, 2.0f)) == std::vector<float>({1, 1, 0, 0, 0, 0}), tt::per_element());
  BOOST_TEST(eq(a, 7.0f).to_vector() == std::vector<float>({0, 0, 0, 0, 0, 1}), tt::per_element());
  BOOST_TEST(ne(a, 1.0f).to_vector() == std::vector<float>({0, 1, 1, 1, 1, 1}), tt::per_element());
  BOOST_TEST(lt(a, 2.0f).to_vector() == std::vector<float>({1, 0, 0, 0, 0, 0}), tt::per_element());
  BOOST_TEST(ge(a, 4.0f).to_vector() == std::vector<float>({0, 0, 0, 1, 0, 1}), tt::per_element());
  // Both sides broadcast: (2, 1) against (3,) gives (2, 3).
  const Tensor col = tensor({1.0f, 3.0f}, {2, 1}), row = tensor({1.0f, 2.0f, 3.0f});
  BOOST_TEST(lt(col, row).to_vector() == std::vector<float>({0, 1, 1, 0, 0, 0}), tt::per_element());
  BOOST_CHECK_EXCEPTION(eq(ones({2, 3}), ones({2})), std::invalid_argument,
                        message_has({"[eq]", "(2, 3)", "(2,)"}));
}

BOOST_AUTO_TEST_CASE(comparisons_carry_no_gradient) {
  // loss = sum(x * (x > 0)): the mask is a constant, so dloss/dx = the mask itself.
  Tensor x = tensor({-1.0f, 2.0f, 0.0f, 3.0f}).requires_grad_();
  const Tensor mask = gt(x, 0.0f);
  BOOST_TEST(!mask.requires_grad());
  BOOST_TEST(std::string(mask.op_name()) == "gt");
  BOOST_TEST(mask.node()->inputs.empty());  // not linked into the graph
  Tensor loss = sum(x * mask);
  BOOST_TEST(loss.item() == 5.0f);
  loss.backward();
  BOOST_TEST(d2l_test::grad_of(x) == std::vector<float>({0, 1, 0, 1}), tt::per_element());
}

// --- abs -------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(abs_forward_and_subgradient) {
  // |x| and, by backward of sum(|x|), sign(x): -1, 0 at 0 (either zero), +1; NaN gets 0.
  Tensor x = tensor({-2.0f, 0.0f, -0.0f, 3.0f, -0.5f, NAN}).requires_grad_();
  const Tensor y = abs(x);
  const std::vector<float> v = y.to_vector();
  BOOST_TEST(std::vector<float>(v.begin(), v.end() - 1) == std::vector<float>({2, 0, 0, 3, 0.5f}), tt::per_element());
  BOOST_TEST(std::isnan(v.back()));
  BOOST_TEST(!std::signbit(v[2]));  // |-0| = +0
  sum(slice(y, 0, 0, 5)).backward();  // the NaN is left out of the loss, not of abs
  BOOST_TEST(d2l_test::grad_of(x) == std::vector<float>({-1, 0, 0, 1, -1, 0}), tt::per_element());
  // With an explicit gradient g: dx = g * sign(x).
  Tensor z = tensor({-1.0f, 4.0f}).requires_grad_();
  abs(z).backward(tensor({10.0f, 100.0f}));
  BOOST_TEST(d2l_test::grad_of(z) == std::vector<float>({-10, 100}), tt::per_element());
}

BOOST_AUTO_TEST_CASE(abs_gradcheck) {
  // Values at least 0.1 from the kink at 0 (eps is 1e-3), alone and inside a composite.
  manual_seed(5);
  Tensor x = normal(0, 1, {3, 4});
  for (int64_t i = 0; i < x.numel(); ++i)
    if (std::fabs(x.data()[i]) < 0.1f) x.data()[i] = x.data()[i] < 0 ? -0.1f : 0.1f;
  BOOST_TEST(d2l::test::gradcheck([](std::vector<Tensor>& in) { return abs(in[0]); }, {x}, "abs"));
  const Tensor w = normal(0, 1, {4, 2});
  BOOST_TEST(d2l::test::gradcheck([&w](std::vector<Tensor>& in) { return abs(matmul(in[0], w)) * 0.5f; }, {x},
                                  "abs(matmul)"));
}

// --- allclose --------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(allclose_matches_torch) {
  // Each case with what torch.allclose returned (python3-torch 1.13), and why, in float32.
  auto t = [](std::vector<float> v) { return tensor(v, {static_cast<int64_t>(v.size())}); };
  // 1.00001f - 1 = 1.00136e-5 > 1e-8 + 1e-5 * 1.00001 = 1.00101e-5: False.
  BOOST_TEST(!allclose(t({1.0f}), t({1.00001f})));
  // 100.001f - 100 = 9.9945e-4 <= 1e-8 + 1e-5 * 100.001 = 1.00002e-3: True.
  BOOST_TEST(allclose(t({100.0f}), t({100.001f})));
  BOOST_TEST(allclose(t({100.0f}), t({100.0009f})));
  // Around 0 only atol counts: 1e-8 is within 1e-8 (+ 1e-13), 2e-8 is not.
  BOOST_TEST(allclose(t({0.0f}), t({1e-8f})));
  BOOST_TEST(!allclose(t({0.0f}), t({2e-8f})));
  // Equal infinities are close, opposite ones not; NaN only with equal_nan.
  BOOST_TEST(allclose(t({INFINITY}), t({INFINITY})));
  BOOST_TEST(!allclose(t({INFINITY}), t({-INFINITY})));
  BOOST_TEST(!allclose(t({NAN}), t({NAN})));
  BOOST_TEST(allclose(t({NAN}), t({NAN}), 1e-5f, 1e-8f, true));
  // rtol 0.05: |1 - 1.05| = 0.05 <= 0.0525 and 0.1 <= 0.105: True; 0.11 > 0.1055: False.
  BOOST_TEST(allclose(t({1.0f, 2.0f}), t({1.05f, 2.1f}), 0.05f));
  BOOST_TEST(!allclose(t({1.0f, 2.0f}), t({1.05f, 2.11f}), 0.05f));
  // atol 0.1: 1.1f - 1 = 0.1000000238 <= 0.1 + 1.1e-5: True; with atol 0.099: False.
  BOOST_TEST(allclose(t({1.0f, 2.0f}), t({1.1f, 2.1f}), 1e-5f, 0.1f));
  BOOST_TEST(!allclose(t({1.0f, 2.0f}), t({1.1f, 2.1f}), 1e-5f, 0.099f));
  // Broadcasting: both rows of (2, 2) against the row (2,).
  BOOST_TEST(allclose(tensor({{1.0f, 2.0f}, {1.0f, 2.0f}}), t({1.0f, 2.0f})));
  BOOST_TEST(!allclose(tensor({{1.0f, 2.0f}, {1.0f, 2.5f}}), t({1.0f, 2.0f})));
  BOOST_CHECK_EXCEPTION(allclose(ones({2, 3}), ones({4})), std::invalid_argument,
                        message_has({"[allclose]", "(2, 3)", "(4,)"}));
  BOOST_CHECK_EXCEPTION(allclose(ones({2}), ones({2}), -1.0f), std::invalid_argument, message_has({"[allclose]", "rtol"}));
}

BOOST_AUTO_TEST_CASE(isclose_element_by_element) {
  // The same rule as allclose, element by element, broadcast: row 0 of a against b is
  // 1 vs 1 (equal), 2 vs 2.00001f (|d| = 1.0014e-5 <= 1e-8 + 2.00001e-5), NaN vs NaN (not close
  // without equal_nan); row 1: 1.1 vs 1 (far), inf vs 2.00001 (inf - finite: far), 3 vs NaN.
  const Tensor a = tensor({{1.0f, 2.0f, NAN}, {1.1f, INFINITY, 3.0f}});
  const Tensor b = tensor({1.0f, 2.00001f, NAN});
  BOOST_TEST(isclose(a, b).to_vector() == std::vector<float>({1, 1, 0, 0, 0, 0}), tt::per_element());
  BOOST_TEST(isclose(a, b, 1e-5f, 1e-8f, true).to_vector() == std::vector<float>({1, 1, 1, 0, 0, 0}), tt::per_element());
  BOOST_TEST(isclose(a, b, 0.2f).to_vector() == std::vector<float>({1, 1, 0, 1, 0, 0}), tt::per_element());
  BOOST_TEST((isclose(a, b).shape() == Shape{2, 3}));
  // A tensor too large for a float count of ones (2^24 + 1 elements, one of them far).
  Tensor big = zeros({(int64_t{1} << 24) + 1});
  BOOST_TEST(allclose(big, zeros({1})));
  big.data()[int64_t{1} << 24] = 1.0f;
  BOOST_TEST(!allclose(big, zeros({1})));
  BOOST_CHECK_EXCEPTION(isclose(ones({2}), ones({2}), 0.0f, -1.0f), std::invalid_argument,
                        message_has({"[isclose]", "atol"}));
}

// --- accuracy --------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(accuracy_counts_as_the_book) {
  // Rows' argmax: 1, 0, 2, 2 against labels 1, 2, 2, 0: rows 0 and 2 are right.
  const Tensor y_hat = tensor({{0.1f, 0.7f, 0.2f}, {0.5f, 0.3f, 0.2f}, {0.0f, 0.1f, 0.9f}, {0.2f, 0.2f, 0.6f}});
  const Tensor y = tensor({1.0f, 2.0f, 2.0f, 0.0f});
  BOOST_TEST(accuracy(y_hat, y) == 2.0);
  // Predicted labels already (1-D, or one column): compared as they are; 3 of 4 agree.
  BOOST_TEST(accuracy(tensor({1.0f, 2.0f, 0.0f, 0.0f}), y) == 3.0);
  BOOST_TEST(accuracy(tensor({1.0f, 2.0f}, {2, 1}), tensor({1.0f, 0.0f}, {2, 1})) == 1.0);
  BOOST_TEST(accuracy(y_hat, tensor({1.0f, 0.0f, 2.0f, 2.0f})) == 4.0);
  BOOST_CHECK_EXCEPTION(accuracy(y_hat, tensor({1.0f, 2.0f})), std::invalid_argument,
                        message_has({"[accuracy]", "(4,)", "(4, 3)", "(2,)"}));
}

// --- printing --------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(large_tensors_print_summarised_as_pytorch) {
  using namespace torch_printed;
  // 100 x 100: 10,000 elements shown as 6 x 6 with "..." (it used to be 71,000 characters).
  BOOST_TEST(str(reshape(arange(10000), {100, 100})) == kGrid100x100);
  BOOST_TEST(str(reshape(arange(10000), {100, 100}) * 0.0001f + 0.5f) == kHalf100x100);
  BOOST_TEST(str(arange(2000) * 0.37f) == kRamp2000);
  BOOST_TEST(str((reshape(arange(1280), {8, 8, 20}) + 1000.0f) * 0.001f) == kCube8x8x20);
  Tensor ones_grad = ones({2000});
  ones_grad.requires_grad_();
  BOOST_TEST(str(ones_grad) == kOnes2000Grad);
  // The threshold: 1000 elements print in full, 1001 are summarised.
  BOOST_TEST(str(arange(1001)) == kArange1001);
  const std::string full = str(arange(1000));
  BOOST_TEST(full.find("...") == std::string::npos);
  BOOST_TEST(full.find("999.]") != std::string::npos);
  BOOST_TEST(str(reshape(arange(10000), {100, 100})).size() < 1000u);
}

BOOST_AUTO_TEST_CASE(rows_wrap_and_formats_switch_as_pytorch) {
  using namespace torch_printed;
  BOOST_TEST(str(reshape(arange(30), {2, 15}) * 1.5f) == kWide2x15);
  Tensor wrap = arange(10) * 1.5f;
  wrap.requires_grad_();
  BOOST_TEST(str(wrap) == kGradWrap);
  Tensor suffix = arange(8) * 1.5f;
  suffix.requires_grad_();
  BOOST_TEST(str(suffix) == kSuffixWrap);
  BOOST_TEST(str(tensor({1e-5f, 1.0f, 123.0f})) == kSciSmall);
  BOOST_TEST(str(tensor({1.0f, 1e9f})) == kSciInt);
  BOOST_TEST(str(tensor({1.0f, NAN, INFINITY, -2.5f})) == kNonFinite);
  BOOST_TEST(str(tensor({1.0f, NAN})) == kIntNan);
  BOOST_TEST(str(zeros({0})) == kEmpty1d);
}

BOOST_AUTO_TEST_SUITE_END()
