// tests/test_sec_attention_scoring.cpp — 10.3 注意力评分函数 (sec_attention-scoring-functions):
// AdditiveAttention and DotProductAttention (and the exercise's BilinearAttention). The
// core/nn/basic.h blocks they are built of (Linear, Dropout) are checked in test_core_nn.cpp.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/ops.h"
#include "core/random.h"
#include "layers/attention_scoring_functions.h"
#include "layers/exercises/attention_scoring_functions.h"
#include "core/nn/basic.h"
#include "tests/gradcheck.h"
#include "tests/test_util.h"

using d2l_test::expect_near;
using d2l_test::message_has;

using d2l::Shape;
using d2l::Tensor;

namespace {

// The book's toy inputs: keys ones (2, 10, 2), values arange(40).reshape(1, 10, 4)
// repeated twice, valid_lens [2, 6].
Tensor book_keys() { return d2l::ones({2, 10, 2}); }
Tensor book_values() { return d2l::repeat(d2l::reshape(d2l::arange(40), {1, 10, 4}), {2, 1, 1}); }
Tensor book_valid_lens() { return d2l::tensor({2, 6}); }
const std::vector<float> kBookOutput = {2, 3, 4, 5, 10, 11, 12, 13};

// A scoring layer's finite-difference gradient check in eval mode (dropout off): queries
// (2, 3, 4), keys (2, 5, 3), values (2, 5, 2), without valid lengths, with 1-D and with 2-D ones.
template <class Attention>
void check_scoring_gradients(Attention& attention, const char* name) {
  attention.eval();
  const std::vector<Tensor> in = {d2l::normal(0, 1, {2, 3, 4}), d2l::normal(0, 1, {2, 5, 3}),
                                  d2l::normal(0, 1, {2, 5, 2})};
  for (const Tensor& lens : {Tensor(), d2l::tensor({2, 5}), d2l::tensor({{1, 2, 3}, {5, 4, 1}})})
    BOOST_CHECK(d2l::test::gradcheck([&](std::vector<Tensor>& x) { return attention(x[0], x[1], x[2], lens); }, in,
                                     name, attention.parameters()));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sec_attention_scoring)

// --- AdditiveAttention ---------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(additive_attention_book_output) {
  // Identical keys give identical scores, so the weights are uniform over the valid keys
  // and the output is the mean of the first 2 (resp. 6) value rows, whatever the weights.
  for (uint64_t seed : {0u, 1u, 42u}) {
    d2l::manual_seed(seed);
    const Tensor queries = d2l::normal(0, 1, {2, 1, 20});
    d2l::AdditiveAttention attention(2, 20, 8, 0.1f);
    attention.eval();
    const Tensor out = attention(queries, book_keys(), book_values(), book_valid_lens());
    BOOST_TEST(out.shape() == (Shape{2, 1, 4}));
    expect_near(out, kBookOutput, 1e-5f);
    BOOST_TEST(attention.attention_weights.shape() == (Shape{2, 1, 10}));
    d2l_test::expect_masked_rows(attention.attention_weights, {2, 6});
    for (int k = 0; k < 2; ++k) BOOST_CHECK_CLOSE(attention.attention_weights.data()[k], 0.5f, 1e-4);
    for (int k = 0; k < 6; ++k) BOOST_CHECK_CLOSE(attention.attention_weights.data()[10 + k], 1.0f / 6, 1e-4);
  }
}

BOOST_AUTO_TEST_CASE(additive_attention_parameters_named_as_the_book) {
  d2l::AdditiveAttention attention(2, 20, 8, 0.1f);
  const auto p = attention.named_parameters();
  BOOST_REQUIRE_EQUAL(p.size(), 3u);  // no biases
  BOOST_CHECK_EQUAL(p[0].first, "W_k.weight");
  BOOST_TEST(p[0].second.shape() == (Shape{8, 2}));
  BOOST_CHECK_EQUAL(p[1].first, "W_q.weight");
  BOOST_TEST(p[1].second.shape() == (Shape{8, 20}));
  BOOST_CHECK_EQUAL(p[2].first, "w_v.weight");
  BOOST_TEST(p[2].second.shape() == (Shape{1, 8}));
}

BOOST_AUTO_TEST_CASE(additive_attention_matches_formula) {
  // a(q, k) = w_vᵀ tanh(W_q q + W_k k), softmax over the keys, computed naively in double.
  d2l::manual_seed(5);
  d2l::AdditiveAttention attention(3, 2, 4, 0.0f);
  const Tensor q = d2l::normal(0, 1, {1, 2, 2}), k = d2l::normal(0, 1, {1, 3, 3}), v = d2l::normal(0, 1, {1, 3, 2});
  const Tensor out = attention(q, k, v);
  const float *Wq = attention.W_q.weight.data(), *Wk = attention.W_k.weight.data(), *wv = attention.w_v.weight.data();
  for (int i = 0; i < 2; ++i) {
    double score[3], z = 0;
    for (int j = 0; j < 3; ++j) {
      score[j] = 0;
      for (int h = 0; h < 4; ++h) {
        double f = 0;
        for (int a = 0; a < 2; ++a) f += Wq[h * 2 + a] * q.data()[i * 2 + a];
        for (int a = 0; a < 3; ++a) f += Wk[h * 3 + a] * k.data()[j * 3 + a];
        score[j] += wv[h] * std::tanh(f);
      }
      z += std::exp(score[j]);
    }
    for (int c = 0; c < 2; ++c) {
      double o = 0;
      for (int j = 0; j < 3; ++j) o += std::exp(score[j]) / z * v.data()[j * 2 + c];
      BOOST_CHECK_SMALL(out.data()[i * 2 + c] - o, 1e-5);
    }
  }
}

BOOST_AUTO_TEST_CASE(additive_attention_gradcheck) {
  d2l::manual_seed(6);
  d2l::AdditiveAttention attention(3, 4, 5, 0.1f);
  check_scoring_gradients(attention, "AdditiveAttention");
}

BOOST_AUTO_TEST_CASE(additive_attention_dropout_acts_on_weights) {
  d2l::manual_seed(7);
  d2l::AdditiveAttention attention(2, 20, 8, 0.5f);  // training mode: dropout on
  const Tensor out = attention(d2l::normal(0, 1, {2, 1, 20}), book_keys(), book_values(), book_valid_lens());
  // attention_weights are kept before dropout (the book plots them), so rows still sum to 1;
  // the output is a sum of value rows each weighted 0 or 2 × (1/2 resp. 1/6).
  d2l_test::expect_masked_rows(attention.attention_weights, {2, 6});
  BOOST_TEST(out.shape() == (Shape{2, 1, 4}));
  // Dropout's backward through the weights: fix the mask by reseeding inside f.
  const std::vector<Tensor> in = {d2l::normal(0, 1, {2, 1, 20}), d2l::normal(0, 1, {2, 10, 2}),
                                  d2l::normal(0, 1, {2, 10, 4})};  // unit-size values: float noise stays small
  BOOST_CHECK(d2l::test::gradcheck(
      [&](std::vector<Tensor>& x) {
        d2l::manual_seed(8);
        return attention(x[0], x[1], x[2], book_valid_lens());
      },
      in, "AdditiveAttention(train, fixed mask)", attention.parameters()));
}

BOOST_AUTO_TEST_CASE(additive_attention_with_dropout_output_shape) {
  // AdditiveAttention(key_size=2, query_size=20, num_hiddens=8, dropout=0.1) -> (2, 1, 4)
  d2l::AdditiveAttention attention(2, 20, 8, 0.1f);
  const Tensor out = attention(d2l::normal(0, 1, {2, 1, 20}), book_keys(), book_values(), book_valid_lens());
  BOOST_CHECK_EQUAL(d2l::shape_str(out.shape()), "(2, 1, 4)");
}

BOOST_AUTO_TEST_CASE(additive_attention_errors) {
  d2l::AdditiveAttention attention(2, 20, 8, 0.1f);
  const Tensor q = d2l::ones({2, 1, 20});
  BOOST_CHECK_EXCEPTION(attention(d2l::ones({2, 1, 19}), book_keys(), book_values()), std::invalid_argument,
                        message_has({"[AdditiveAttention]", "(2, 1, 19)", "(2, 10, 2)", "query_size = 20"}));
  BOOST_CHECK_EXCEPTION(attention(q, book_keys(), d2l::ones({2, 9, 4})), std::invalid_argument,
                        message_has({"[AdditiveAttention]", "(2, 10, 2)", "(2, 9, 4)"}));
  BOOST_CHECK_EXCEPTION(attention(q, book_keys(), book_values(), d2l::tensor({2, 6, 1})), std::invalid_argument,
                        message_has({"[AdditiveAttention]", "valid_lens (3,)", "(2, 1, 20)"}));
  BOOST_CHECK_EXCEPTION(attention(q, book_keys(), book_values(), d2l::tensor({2, -1})), std::invalid_argument,
                        message_has({"[masked_softmax]", "-1"}));
  BOOST_CHECK_EXCEPTION(attention(d2l::ones({2, 20}), book_keys(), book_values()), std::invalid_argument,
                        message_has({"[AdditiveAttention]", "3-D", "(2, 20)"}));
}

// --- DotProductAttention -------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(dot_product_attention_book_output) {
  for (uint64_t seed : {0u, 3u}) {
    d2l::manual_seed(seed);
    d2l::DotProductAttention attention(0.5f);
    attention.eval();
    const Tensor out = attention(d2l::normal(0, 1, {2, 1, 2}), book_keys(), book_values(), book_valid_lens());
    BOOST_TEST(out.shape() == (Shape{2, 1, 4}));
    expect_near(out, kBookOutput, 1e-5f);
    d2l_test::expect_masked_rows(attention.attention_weights, {2, 6});
  }
}

BOOST_AUTO_TEST_CASE(dot_product_attention_scaled_by_sqrt_d) {
  // One query q = [1, 1, 1, 1], keys [2, 0, 0, 0] and 0: scores 2/√4 = 1 and 0, so the
  // weights are softmax([1, 0]) = [e/(1+e), 1/(1+e)].
  d2l::DotProductAttention attention(0.0f);
  const Tensor keys = d2l::tensor({2, 0, 0, 0, 0, 0, 0, 0}, {1, 2, 4});
  const Tensor values = d2l::tensor({1, 0}, {1, 2, 1});
  const Tensor out = attention(d2l::ones({1, 1, 4}), keys, values);
  const double e = std::exp(1.0);
  BOOST_CHECK_SMALL(out.item() - e / (1 + e), 1e-6);
  // 2-D valid_lens: one length per query.
  attention(d2l::ones({1, 2, 4}), keys, values, d2l::tensor({{1, 2}}));
  expect_near(attention.attention_weights, {1, 0, static_cast<float>(e / (1 + e)), static_cast<float>(1 / (1 + e))}, 1e-6f);
}

BOOST_AUTO_TEST_CASE(dot_product_attention_gradcheck) {
  d2l::manual_seed(9);
  d2l::DotProductAttention attention(0.2f);
  attention.eval();
  const std::vector<Tensor> in = {d2l::normal(0, 1, {2, 3, 4}), d2l::normal(0, 1, {2, 5, 4}),
                                  d2l::normal(0, 1, {2, 5, 3})};
  for (const Tensor& lens : {Tensor(), d2l::tensor({2, 5}), d2l::tensor({{1, 2, 3}, {5, 4, 1}})})
    BOOST_CHECK(d2l::test::gradcheck([&](std::vector<Tensor>& x) { return attention(x[0], x[1], x[2], lens); }, in,
                                     "DotProductAttention"));
}

BOOST_AUTO_TEST_CASE(dot_product_attention_masked_keys_get_no_gradient) {
  d2l::manual_seed(10);
  d2l::DotProductAttention attention(0.0f);
  Tensor k = d2l::normal(0, 1, {2, 4, 3}), v = d2l::normal(0, 1, {2, 4, 2});
  k.requires_grad_();
  v.requires_grad_();
  d2l::sum(d2l::mul(attention(d2l::normal(0, 1, {2, 2, 3}), k, v, d2l::tensor({1, 3})), d2l::normal(0, 1, {2, 2, 2})))
      .backward();
  const std::vector<float> gk = k.grad().to_vector(), gv = v.grad().to_vector();
  // Batch 0 keeps key 0 only, batch 1 keys 0..2: every masked key and value row gets exactly 0.
  for (int t : {1, 2, 3})
    for (int c = 0; c < 3; ++c) BOOST_CHECK_EQUAL(gk[t * 3 + c], 0.0f);
  for (int c = 0; c < 3; ++c) BOOST_CHECK_EQUAL(gk[(4 + 3) * 3 + c], 0.0f);
  for (int c = 0; c < 2; ++c) BOOST_CHECK_EQUAL(gv[(4 + 3) * 2 + c], 0.0f);
  BOOST_CHECK(gv[0] != 0.0f);
}

BOOST_AUTO_TEST_CASE(dot_product_attention_with_dropout_output_shape) {
  // DotProductAttention(dropout=0.1) on queries (2, 4, 64), keys (2, 6, 64), values (2, 6, 32)
  d2l::DotProductAttention attention(0.1f);
  const Tensor out = attention(d2l::normal(0, 1, {2, 4, 64}), d2l::normal(0, 1, {2, 6, 64}),
                               d2l::normal(0, 1, {2, 6, 32}), d2l::tensor({6, 5}));
  BOOST_CHECK_EQUAL(d2l::shape_str(out.shape()), "(2, 4, 32)");
  BOOST_TEST(attention.attention_weights.shape() == (Shape{2, 4, 6}));
}

BOOST_AUTO_TEST_CASE(dot_product_attention_errors) {
  d2l::DotProductAttention attention(0.1f);
  BOOST_CHECK_EXCEPTION(attention(d2l::ones({2, 1, 3}), book_keys(), book_values()), std::invalid_argument,
                        message_has({"[DotProductAttention]", "(2, 1, 3)", "(2, 10, 2)"}));
  BOOST_CHECK_EXCEPTION(attention(d2l::ones({3, 1, 2}), book_keys(), book_values()), std::invalid_argument,
                        message_has({"[DotProductAttention]", "batch", "(3, 1, 2)", "(2, 10, 2)", "(2, 10, 4)"}));
  BOOST_CHECK_EXCEPTION(attention(d2l::ones({2, 1, 2}), book_keys(), book_values(), d2l::tensor({{1, 2}, {3, 4}})),
                        std::invalid_argument, message_has({"[DotProductAttention]", "valid_lens (2, 2)"}));
}

// --- BilinearAttention (the section's exercise 2) ------------------------------------------

namespace {

// Inputs built from formulas, so PyTorch can build the same ones (see the script below).
std::vector<float> formula(int64_t n, float (*f)(float)) {
  std::vector<float> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(f(static_cast<float>(i)));
  return v;
}

}  // namespace

// Output, weights and gradients against PyTorch 2.x (python3-torch), from these lines:
//   q = torch.sin(torch.arange(16.)).reshape(2, 2, 4).requires_grad_()
//   k = torch.cos(torch.arange(30.) * 0.7).reshape(2, 5, 3).requires_grad_()
//   v = (torch.arange(20.) * 0.1).reshape(2, 5, 2)
//   W = (torch.sin(torch.arange(12.) * 0.37) * 0.8).reshape(4, 3).requires_grad_()
//   valid = torch.tensor([2, 5])
//   scores = torch.bmm(q, (k @ W.T).transpose(1, 2))
//   mask = torch.arange(5)[None, None, :] < valid[:, None, None]
//   w = torch.softmax(scores.masked_fill(~mask, -1e6), -1)
//   out = torch.bmm(w, v)
//   R = torch.cos(torch.arange(8.)).reshape(2, 2, 2)
//   (out * R).sum().backward()
//   print(out, w, W.grad, q.grad, k.grad)     (each flattened, rounded to 7 digits)
BOOST_AUTO_TEST_CASE(bilinear_attention_matches_pytorch) {
  d2l::BilinearAttention attention(3, 4, 0.0f);
  attention.eval();
  BOOST_REQUIRE(attention.W.weight.shape() == (Shape{4, 3}));
  const std::vector<float> W = formula(12, [](float i) { return std::sin(i * 0.37f) * 0.8f; });
  std::copy(W.begin(), W.end(), attention.W.weight.data());
  Tensor q = d2l_test::leaf(formula(16, [](float i) { return std::sin(i); }), {2, 2, 4});
  Tensor k = d2l_test::leaf(formula(30, [](float i) { return std::cos(i * 0.7f); }), {2, 5, 3});
  const Tensor v = d2l::tensor(formula(20, [](float i) { return i * 0.1f; }), {2, 5, 2});
  const Tensor R = d2l::tensor(formula(8, [](float i) { return std::cos(i); }), {2, 2, 2});
  const Tensor out = attention(q, k, v, d2l::tensor({2, 5}));
  expect_near(out, {0.0029492f, 0.1029492f, 0.1992492f, 0.2992493f, 1.3826723f, 1.4826722f, 1.4602168f, 1.5602167f},
              2e-6f);
  expect_near(attention.attention_weights,
              {0.9852538f, 0.0147462f, 0, 0, 0, 0.0037538f, 0.9962462f, 0, 0, 0, 0.2879633f, 0.2060725f, 0.0100207f,
               0.2965268f, 0.1994167f, 0.0798794f, 0.3799069f, 0.0792884f, 0.0811017f, 0.3798236f},
              2e-6f);
  d2l::sum(out * R).backward();
  expect_near(attention.W.weight.grad(),
              {-0.0674248f, -0.0292219f, 0.0227244f, 0.0147642f, 0.0029036f, -0.0103225f, 0.0833791f, 0.0323596f,
               -0.0338789f, 0.0753357f, 0.0320643f, -0.0262872f},
              2e-6f);
  expect_near(q.grad(),
              {-0.0048816f, -0.0147216f, -0.0082107f, 0.0074197f, 0.0011471f, 0.0034593f, 0.0019294f, -0.0017435f,
               0.0034869f, -0.0165726f, -0.0182253f, 0.0003644f, -0.002279f, 0.0654251f, 0.0604631f, -0.0116539f},
              2e-6f);
  // Keys 2..4 of item 1 are masked: no gradient reaches them.
  expect_near(k.grad(),
              {-0.006211f, -0.0058888f, -0.0047697f, 0.006211f, 0.0058889f, 0.0047697f, 0, 0, 0, 0, 0, 0, 0, 0, 0,
               -0.0485951f, 0.0129254f, 0.0726964f, -0.1401033f, -0.0427996f, 0.0602968f, -0.006839f, -0.0026642f,
               0.0018712f, 0.0138761f, -0.0131186f, -0.0383377f, 0.1816612f, 0.045657f, -0.0965267f},
              2e-6f);
}

BOOST_AUTO_TEST_CASE(bilinear_attention_gradcheck) {
  d2l::manual_seed(7);
  d2l::BilinearAttention attention(3, 4, 0.1f);
  check_scoring_gradients(attention, "BilinearAttention");
}

// With equal lengths and W = I the bilinear score is the unscaled dot product: the weights
// are scaled dot product's for queries multiplied by √d.
BOOST_AUTO_TEST_CASE(bilinear_attention_with_identity_is_dot_product) {
  d2l::manual_seed(8);
  d2l::BilinearAttention bilinear(4, 4, 0.0f);
  bilinear.eval();
  std::fill(bilinear.W.weight.data(), bilinear.W.weight.data() + 16, 0.0f);
  for (int i = 0; i < 4; ++i) bilinear.W.weight.data()[i * 5] = 1.0f;
  d2l::DotProductAttention dot(0.0f);
  dot.eval();
  const Tensor q = d2l::normal(0, 1, {2, 3, 4}), k = d2l::normal(0, 1, {2, 6, 4}), v = d2l::normal(0, 1, {2, 6, 5});
  const Tensor a = bilinear(q, k, v, book_valid_lens());
  const Tensor b = dot(q * 2.0f, k, v, book_valid_lens());  // √4 = 2 undoes the scaling
  expect_near(a, b.to_vector(), 1e-5f);
  d2l_test::expect_masked_rows(bilinear.attention_weights, {2, 2, 2, 6, 6, 6});
}

BOOST_AUTO_TEST_CASE(bilinear_attention_errors) {
  d2l::BilinearAttention attention(2, 20, 0.1f);
  BOOST_CHECK_EXCEPTION(attention(d2l::ones({2, 1, 19}), book_keys(), book_values()), std::invalid_argument,
                        message_has({"[BilinearAttention]", "(2, 1, 19)", "(2, 10, 2)", "query_size = 20",
                                     "key_size = 2"}));
  BOOST_CHECK_EXCEPTION(attention(d2l::ones({2, 1, 20}), book_keys(), d2l::ones({2, 9, 4})), std::invalid_argument,
                        message_has({"[BilinearAttention]", "(2, 10, 2)", "(2, 9, 4)"}));
}

BOOST_AUTO_TEST_SUITE_END()
