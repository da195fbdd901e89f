// tests/test_core_nn.cpp — suite core_nn: the torch.nn blocks of core/nn/basic.h the book's
// layers are built of (Linear, Dropout, Embedding, LayerNorm): values by hand, default
// initialisation, a finite-difference gradient check, and the errors naming the block.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/nn/basic.h"
#include "core/ops.h"
#include "core/random.h"
#include "tests/gradcheck.h"
#include "tests/test_util.h"

using d2l_test::expect_near;
using d2l_test::message_has;

using d2l::Shape;
using d2l::Tensor;

BOOST_AUTO_TEST_SUITE(core_nn)

BOOST_AUTO_TEST_CASE(linear_hand_computed) {
  d2l::Linear fc(2, 3);
  fc.weight.data()[0] = 1, fc.weight.data()[1] = 2, fc.weight.data()[2] = 3;
  fc.weight.data()[3] = 4, fc.weight.data()[4] = 5, fc.weight.data()[5] = 6;
  fc.bias.data()[0] = 1, fc.bias.data()[1] = 0, fc.bias.data()[2] = -1;
  // [1, -1] Wᵀ + b = [1-2+1, 3-4+0, 5-6-1]; [2, 0.5] -> [2+1+1, 6+2, 10+3-1]
  const Tensor y = fc(d2l::tensor({{1, -1}, {2, 0.5f}}));
  BOOST_TEST(y.shape() == (Shape{2, 3}));
  expect_near(y, {0, -1, -2, 4, 8, 12}, 1e-6f);
  const auto names = fc.named_parameters();
  BOOST_REQUIRE_EQUAL(names.size(), 2u);
  BOOST_CHECK_EQUAL(names[0].first, "weight");
  BOOST_CHECK_EQUAL(names[1].first, "bias");
  BOOST_CHECK_EQUAL(d2l::Linear(2, 3, false).parameters().size(), 1u);
}

BOOST_AUTO_TEST_CASE(linear_default_init_bounds) {
  d2l::manual_seed(1);
  d2l::Linear fc(16, 8);  // U(-1/4, 1/4) for both weight and bias
  float lo = 1, hi = -1;
  for (const Tensor& p : fc.parameters())
    for (float v : p.to_vector()) lo = std::min(lo, v), hi = std::max(hi, v);
  BOOST_CHECK(lo >= -0.25f && hi <= 0.25f);
  BOOST_CHECK(lo < -0.2f && hi > 0.2f);  // 136 draws spread over the interval
}

BOOST_AUTO_TEST_CASE(linear_gradcheck_3d) {
  d2l::manual_seed(2);
  d2l::Linear fc(3, 4);
  BOOST_CHECK(d2l::test::gradcheck([&](std::vector<Tensor>& x) { return fc(x[0]); }, {d2l::normal(0, 1, {2, 3, 3})},
                                   "Linear", fc.parameters()));
}

BOOST_AUTO_TEST_CASE(linear_errors) {
  d2l::Linear fc(3, 4);
  BOOST_CHECK_EXCEPTION(fc(d2l::ones({2, 5})), std::invalid_argument, message_has({"[Linear]", "(2, 5)", "(4, 3)"}));
  BOOST_CHECK_EXCEPTION(d2l::Linear(0, 4), std::invalid_argument, message_has({"[Linear]", "in_features (0)"}));
}

BOOST_AUTO_TEST_CASE(dropout_identity_in_eval) {
  d2l::Dropout drop(0.5f);
  drop.eval();
  const Tensor x = d2l::normal(0, 1, {4, 5});
  const Tensor y = drop(x);
  BOOST_TEST(y.to_vector() == x.to_vector(), boost::test_tools::per_element());
  d2l::Dropout none(0.0f);  // p = 0 keeps everything even in training
  BOOST_TEST(none(x).to_vector() == x.to_vector(), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(dropout_keeps_expectation_in_train) {
  d2l::manual_seed(3);
  d2l::Dropout drop(0.3f);
  BOOST_CHECK(drop.training());
  const int64_t n = 200000;
  const Tensor y = drop(d2l::ones({n}));
  int64_t zeros = 0;
  double s = 0;
  for (float v : y.to_vector()) {
    if (v == 0.0f) ++zeros;
    else BOOST_REQUIRE_CLOSE(v, 1.0f / 0.7f, 1e-4);  // survivors are scaled by 1/(1-p)
    s += v;
  }
  // Bernoulli(0.3) over 2e5 draws: the standard deviation of the zero fraction is 0.001.
  BOOST_CHECK_SMALL(static_cast<double>(zeros) / n - 0.3, 0.005);
  BOOST_CHECK_SMALL(s / n - 1.0, 0.01);  // E[y] = E[x]
  BOOST_CHECK_EXCEPTION(d2l::Dropout(1.5f), std::invalid_argument, message_has({"[Dropout]", "1.5"}));
}

BOOST_AUTO_TEST_CASE(embedding_and_layer_norm) {
  d2l::Embedding emb(5, 3);
  const Tensor y = emb(d2l::tensor({{4, 0}}));  // (1, 2) ids -> (1, 2, 3)
  BOOST_TEST(y.shape() == (Shape{1, 2, 3}));
  for (int j = 0; j < 3; ++j) {
    BOOST_CHECK_EQUAL(y.data()[j], emb.weight.data()[4 * 3 + j]);
    BOOST_CHECK_EQUAL(y.data()[3 + j], emb.weight.data()[j]);
  }
  d2l::LayerNorm ln(3);
  // [1, 2, 3]: mean 2, biased variance 2/3 -> (x - 2) / sqrt(2/3 + 1e-5)
  const float s = 1.0f / std::sqrt(2.0f / 3.0f + 1e-5f);
  expect_near(ln(d2l::tensor({{1, 2, 3}})), {-s, 0, s}, 1e-5f);
  BOOST_CHECK_EQUAL(ln.named_parameters()[0].first, "weight");
  BOOST_CHECK(d2l::test::gradcheck([&](std::vector<Tensor>& x) { return ln(x[0]); }, {d2l::normal(0, 1, {2, 3})},
                                   "LayerNorm", ln.parameters()));
}

BOOST_AUTO_TEST_SUITE_END()
