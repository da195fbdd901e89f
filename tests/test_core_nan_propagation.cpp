// tests/test_core_nan_propagation.cpp — suite core_nan_propagation: a NaN reaching relu, max
// and argmax (and the softmax's row maximum) comes out as NaN in both kernel tiers, as in
// PyTorch, so a poisoned weight shows in the loss instead of turning into a clean 0.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/kernels/fast/kernels.h"
#include "core/ops.h"
#include "core/kernels/reference/kernels.h"
#include "tests/test_util.h"

using namespace d2l;
using Vec = std::vector<float>;

namespace {

const float kNaN = std::nanf("");

// x = (NaN, -1, 2, 0, 3) and relu(x), as both tiers compute it: NaN, 0, 2, 0, 3. (A relu of
// x > 0 ? x : 0 gave 0 for the NaN.)
template <class Tier>
Vec relu_of(const Vec& x) {
  Vec y(x.size());
  Tier::unary_forward(y.data(), x.data(), static_cast<int64_t>(x.size()), kernels::Unary::relu, 0.0f);
  return y;
}

struct Fast {
  static void unary_forward(float* y, const float* x, int64_t n, kernels::Unary f, float s) {
    fast::unary_forward(y, x, n, f, s);
  }
};
struct Reference {
  static void unary_forward(float* y, const float* x, int64_t n, kernels::Unary f, float s) {
    reference::unary_forward(y, x, n, f, s);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(core_nan_propagation)

BOOST_AUTO_TEST_CASE(relu_keeps_nan_in_both_tiers) {
  // 37 elements: the fast tier's vector loop (16 lanes) and its remainder both see a NaN.
  Vec x(37);
  for (size_t i = 0; i < x.size(); ++i) x[i] = i % 5 == 0 ? kNaN : (i % 2 ? -1.0f : 2.0f);
  for (const Vec& y : {relu_of<Fast>(x), relu_of<Reference>(x)})
    for (size_t i = 0; i < x.size(); ++i) {
      if (i % 5 == 0) BOOST_TEST(std::isnan(y[i]), "element " << i);
      else BOOST_TEST(y[i] == (i % 2 ? 0.0f : 2.0f), "element " << i);
    }
  // Through the op (the build's tier), forward and backward: the gradient at a NaN is 0, as
  // PyTorch's (NaN > 0 is false), and the loss is NaN.
  Tensor t = tensor({kNaN, -1.0f, 2.0f});
  t.requires_grad_();
  const Tensor y = relu(t);
  BOOST_TEST(std::isnan(y.to_vector()[0]));
  Tensor loss = sum(y);
  BOOST_TEST(std::isnan(loss.item()));
  loss.backward();
  BOOST_TEST(t.grad().to_vector() == (Vec{0.0f, 0.0f, 1.0f}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(max_argmax_and_softmax_keep_nan) {
  // max over dim 1 of (2, 3): a NaN in row 0 is its maximum, at its index; row 1 is clean.
  const Vec x = {1.0f, kNaN, 5.0f, 4.0f, 7.0f, 6.0f};
  for (int tier = 0; tier < 2; ++tier) {
    Vec values(2);
    std::vector<int64_t> where(2);
    (tier ? reference::max_forward : fast::max_forward)(values.data(), where.data(), x.data(), 2, 3, 1);
    BOOST_TEST(std::isnan(values[0]));
    BOOST_TEST(where[0] == 1);
    BOOST_TEST(values[1] == 7.0f);
    BOOST_TEST(where[1] == 1);
    // The softmax of a row holding a NaN is NaN throughout, never a row of clean weights.
    Vec y(6);
    (tier ? reference::softmax_forward : fast::softmax_forward)(y.data(), x.data(), 2, 3);
    for (int j = 0; j < 3; ++j) BOOST_TEST(std::isnan(y[j]), "tier " << tier << " element " << j);
    BOOST_TEST(std::fabs(y[3] + y[4] + y[5] - 1.0f) < 1e-6f);
  }
  const Tensor t = tensor(x, {2, 3});
  BOOST_TEST(std::isnan(max(t).item()));
  BOOST_TEST(argmax(t, 1).to_vector() == (Vec{1.0f, 1.0f}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
