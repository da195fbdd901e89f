// tests/test_sec_multihead_attention.cpp — 10.5 多头注意力 (sec_multihead-attention):
// transpose_qkv / transpose_output and MultiHeadAttention against a naive per-head loop.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/ops.h"
#include "core/random.h"
#include "layers/multihead_attention.h"
#include "tests/gradcheck.h"

using d2l::Shape;
using d2l::Tensor;

namespace {

// x (n, in) Wᵀ + b in double, W (out, in) row-major; b may be null.
std::vector<double> affine(const float* x, int64_t n, int64_t in, const Tensor& W, const Tensor& b) {
  const int64_t out = W.size(0);
  std::vector<double> y(static_cast<size_t>(n * out));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t o = 0; o < out; ++o) {
      double s = b.defined() ? b.data()[o] : 0.0;
      for (int64_t i = 0; i < in; ++i) s += static_cast<double>(x[r * in + i]) * W.data()[o * in + i];
      y[r * out + o] = s;
    }
  return y;
}

// Multi-head attention as the section's formulas state it, one head at a time: head i
// uses rows [i p, (i+1) p) of W_q, W_k, W_v (p = num_hiddens / num_heads), scaled dot
// products, masking beyond len(b, q), softmax; the heads are concatenated and W_o applied.
std::vector<double> mha_reference(const d2l::MultiHeadAttention& m, const Tensor& Qx, const Tensor& Kx, const Tensor& Vx,
                                  const std::vector<std::vector<int64_t>>& len) {
  const int64_t B = Qx.size(0), Q = Qx.size(1), K = Kx.size(1), H = m.W_o.out_features, h = m.num_heads, p = H / h;
  std::vector<double> out;
  for (int64_t b = 0; b < B; ++b) {
    const auto q = affine(Qx.data() + b * Q * Qx.size(2), Q, Qx.size(2), m.W_q.weight, m.W_q.bias);
    const auto k = affine(Kx.data() + b * K * Kx.size(2), K, Kx.size(2), m.W_k.weight, m.W_k.bias);
    const auto v = affine(Vx.data() + b * K * Vx.size(2), K, Vx.size(2), m.W_v.weight, m.W_v.bias);
    std::vector<float> concat(static_cast<size_t>(Q * H));
    for (int64_t i = 0; i < h; ++i)
      for (int64_t t = 0; t < Q; ++t) {
        const int64_t L = std::min(len[b][t], K);
        std::vector<double> w(static_cast<size_t>(K), 0.0);
        double mx = -1e300, z = 0;
        for (int64_t j = 0; j < L; ++j) {
          double s = 0;
          for (int64_t c = 0; c < p; ++c) s += q[t * H + i * p + c] * k[j * H + i * p + c];
          w[j] = s / std::sqrt(static_cast<double>(p));
          mx = std::max(mx, w[j]);
        }
        for (int64_t j = 0; j < L; ++j) z += (w[j] = std::exp(w[j] - mx));
        for (int64_t c = 0; c < p; ++c) {
          double o = 0;
          for (int64_t j = 0; j < L; ++j) o += w[j] / z * v[j * H + i * p + c];
          concat[t * H + i * p + c] = static_cast<float>(o);
        }
      }
    const auto y = affine(concat.data(), Q, H, m.W_o.weight, m.W_o.bias);
    out.insert(out.end(), y.begin(), y.end());
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sec_multihead_attention)

BOOST_AUTO_TEST_CASE(transpose_qkv_hand_computed) {
  // X (1, 2, 4) = [[0 1 2 3], [4 5 6 7]], 2 heads of size 2: head 0 takes columns 0-1 of
  // both rows, head 1 columns 2-3.
  const Tensor Y = d2l::transpose_qkv(d2l::reshape(d2l::arange(8), {1, 2, 4}), 2);
  BOOST_TEST(Y.shape() == (Shape{2, 2, 2}));
  const std::vector<float> want = {0, 1, 4, 5, 2, 3, 6, 7};
  BOOST_TEST(Y.to_vector() == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(transpose_output_inverts_transpose_qkv) {
  d2l::manual_seed(20);
  const Tensor X = d2l::normal(0, 1, {2, 3, 6});
  for (int64_t heads : {1, 2, 3, 6}) {
    const Tensor Y = d2l::transpose_qkv(X, heads);
    BOOST_TEST(Y.shape() == (Shape{2 * heads, 3, 6 / heads}));
    BOOST_TEST(d2l::transpose_output(Y, heads).to_vector() == X.to_vector(), boost::test_tools::per_element());
    BOOST_TEST(d2l::transpose_qkv(d2l::transpose_output(Y, heads), heads).to_vector() == Y.to_vector(),
               boost::test_tools::per_element());
  }
  BOOST_CHECK(d2l::test::gradcheck([](std::vector<Tensor>& x) { return d2l::transpose_qkv(x[0], 3); }, {X},
                                   "transpose_qkv"));
  BOOST_CHECK_EXCEPTION(d2l::transpose_qkv(X, 4), std::invalid_argument, [](const std::invalid_argument& e) {
    const std::string m = e.what();
    return m.find("[transpose_qkv]") != std::string::npos && m.find("(2, 3, 6)") != std::string::npos;
  });
}

BOOST_AUTO_TEST_CASE(matches_per_head_reference) {
  d2l::manual_seed(21);
  const Tensor q = d2l::normal(0, 1, {2, 3, 4}), k = d2l::normal(0, 1, {2, 5, 3}), v = d2l::normal(0, 1, {2, 5, 2});
  for (bool bias : {false, true}) {
    d2l::MultiHeadAttention mha(3, 4, 2, 6, 3, 0.5f, bias);
    mha.eval();
    BOOST_CHECK_EQUAL(mha.parameters().size(), bias ? 8u : 4u);
    struct Case {
      Tensor lens;
      std::vector<std::vector<int64_t>> per_query;
    };
    const std::vector<Case> cases = {{Tensor(), {{5, 5, 5}, {5, 5, 5}}},
                                     {d2l::tensor({2, 4}), {{2, 2, 2}, {4, 4, 4}}},
                                     {d2l::tensor({{1, 5, 3}, {2, 1, 4}}), {{1, 5, 3}, {2, 1, 4}}}};
    for (const Case& c : cases) {
      const Tensor out = mha(q, k, v, c.lens);
      BOOST_TEST(out.shape() == (Shape{2, 3, 6}));
      const std::vector<double> want = mha_reference(mha, q, k, v, c.per_query);
      for (size_t i = 0; i < want.size(); ++i) BOOST_CHECK_SMALL(out.data()[i] - want[i], 1e-5);
      // The heads' weights: (batch_size * num_heads, no. of queries, no. of kv pairs).
      BOOST_TEST(mha.attention->attention_weights.shape() == (Shape{6, 3, 5}));
    }
  }
}

BOOST_AUTO_TEST_CASE(gradcheck_all_parameters_and_inputs) {
  d2l::manual_seed(22);
  const std::vector<Tensor> in = {d2l::normal(0, 1, {2, 3, 4}), d2l::normal(0, 1, {2, 4, 3}),
                                  d2l::normal(0, 1, {2, 4, 5})};
  for (bool bias : {false, true}) {
    d2l::MultiHeadAttention mha(3, 4, 5, 6, 2, 0.3f, bias);
    mha.eval();
    for (const Tensor& lens : {Tensor(), d2l::tensor({2, 4}), d2l::tensor({{1, 2, 3}, {4, 3, 2}})})
      BOOST_CHECK(d2l::test::gradcheck([&](std::vector<Tensor>& x) { return mha(x[0], x[1], x[2], lens); }, in,
                                       bias ? "MultiHeadAttention(bias)" : "MultiHeadAttention", mha.parameters()));
  }
}

BOOST_AUTO_TEST_CASE(book_example_shape) {
  // num_hiddens 100, 5 heads, X ones (2, 4, 100), Y ones (2, 6, 100), valid_lens [3, 2].
  d2l::MultiHeadAttention attention(100, 100, 100, 100, 5, 0.5f);
  attention.eval();
  const Tensor X = d2l::ones({2, 4, 100}), Y = d2l::ones({2, 6, 100});
  BOOST_CHECK_EQUAL(d2l::shape_str(attention(X, Y, Y, d2l::tensor({3, 2})).shape()), "(2, 4, 100)");
  const auto p = attention.named_parameters();
  BOOST_REQUIRE_EQUAL(p.size(), 4u);
  BOOST_CHECK_EQUAL(p[0].first, "W_q.weight");
  BOOST_CHECK_EQUAL(p[3].first, "W_o.weight");
}

BOOST_AUTO_TEST_CASE(self_attention_shape_parameter_count_and_masks_per_head) {
  // MultiHeadAttention(num_hiddens=128, num_heads=8, dropout=0.1) as self-attention on X
  // (4, 12, 128) with valid_lens [12, 10, 7, 5] -> (4, 12, 128). Training mode, as written.
  d2l::MultiHeadAttention self_att(128, 8, 0.1f);
  BOOST_CHECK_EQUAL(self_att.num_parameters(), 4 * 128 * 128);
  const Tensor X = d2l::normal(0, 1, {4, 12, 128});
  const Tensor out = self_att(X, X, X, d2l::tensor({12, 10, 7, 5}));
  BOOST_CHECK_EQUAL(d2l::shape_str(out.shape()), "(4, 12, 128)");
  // Row 8 of the heads is batch item 1, head 0: its valid length is 10, repeated per head.
  const Tensor& w = self_att.attention->attention_weights;
  BOOST_TEST(w.shape() == (Shape{32, 12, 12}));
  for (int64_t r : {8, 15})
    for (int64_t k = 10; k < 12; ++k) BOOST_CHECK_EQUAL(w.data()[(r * 12 + 3) * 12 + k], 0.0f);
  BOOST_CHECK(w.data()[(16 * 12 + 3) * 12 + 6] > 0.0f);   // item 2 (length 7) keeps key 6
  BOOST_CHECK_EQUAL(w.data()[(16 * 12 + 3) * 12 + 7], 0.0f);
}

BOOST_AUTO_TEST_CASE(errors) {
  BOOST_CHECK_EXCEPTION(d2l::MultiHeadAttention(100, 100, 100, 100, 3, 0.5f), std::invalid_argument,
                        [](const std::invalid_argument& e) {
                          return std::string(e.what()) ==
                                 "[MultiHeadAttention] num_hiddens (100) is not divisible by num_heads (3)";
                        });
  d2l::MultiHeadAttention mha(3, 4, 5, 6, 2, 0.0f);
  BOOST_CHECK_EXCEPTION(mha(d2l::ones({2, 3, 4}), d2l::ones({2, 4, 3}), d2l::ones({2, 4, 4})), std::invalid_argument,
                        [](const std::invalid_argument& e) {
                          const std::string m = e.what();
                          return m.find("[MultiHeadAttention]") != std::string::npos &&
                                 m.find("value_size = 5") != std::string::npos && m.find("(2, 4, 4)") != std::string::npos;
                        });
  BOOST_CHECK_EXCEPTION(mha(d2l::ones({2, 3, 4}), d2l::ones({2, 4, 3}), d2l::ones({2, 4, 5}), d2l::tensor({1, 2, 3})),
                        std::invalid_argument, [](const std::invalid_argument& e) {
                          return std::string(e.what()).find("[MultiHeadAttention] valid_lens") != std::string::npos;
                        });
}

BOOST_AUTO_TEST_SUITE_END()
