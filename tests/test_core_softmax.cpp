// tests/test_core_softmax.cpp — suite core_softmax: numerics of softmax and log_softmax on
// large inputs, masked_softmax on the book's own examples (10.3,
// sec_attention-scoring-functions): rows sum to 1, masked entries are exactly 0; and the
// three's values and finite-difference gradient checks, alone and inside attention.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <functional>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/autograd.h"
#include "core/kernels/fast/fast_exp.h"
#include "core/kernels/fast/lane_sum.h"
#include "core/ops.h"
#include "core/random.h"
#include "tests/gradcheck.h"
#include "tests/test_util.h"

using namespace d2l;
using d2l_test::expect_near;
using d2l_test::grad_of;
namespace tt = boost::test_tools;
namespace utf = boost::unit_test;

namespace {

bool all_finite(const Tensor& t) {
  for (int64_t i = 0; i < t.numel(); ++i)
    if (!std::isfinite(t.data()[i])) return false;
  return true;
}

// Checks y = masked_softmax(X, valid) row by row: the first v entries are the softmax of
// X's first v entries (computed here in double), the rest exactly 0, and the row sums to 1.
// v = 0 is the book's corner case: every score is -1e6, so the row is uniform.
// Tolerance, in either tier: p_j = e_j / s. The shift x_j − m rounds by up to eps/2 |x_j − m|,
// which moves e_j by as much relative; the exp itself is within 3 eps relative (fast_exp;
// std::exp within 1). So with D = max_k |x_k − m| every e_k is within (3 + D/2) eps
// relative, s, a float sum of v of them, within (v/2 + 3 + D/2) eps, and after the
// division (or a reciprocal and a multiply): |p_j − exact| <= (v + 8 + 2D) eps p_j. The
// entries of a row then sum to 1 within (v + 8 + 2D) eps.
void check_masked_rows(const Tensor& X, const Tensor& y, const std::vector<int64_t>& row_len) {
  const int64_t K = X.shape().back(), R = X.numel() / K;
  BOOST_REQUIRE_EQUAL(static_cast<int64_t>(row_len.size()), R);
  for (int64_t r = 0; r < R; ++r) {
    const int64_t v = std::min(row_len[r], K);
    const float* x = X.data() + r * K;
    const float* p = y.data() + r * K;
    double m = -INFINITY, s = 0, row_sum = 0;
    for (int64_t j = 0; j < v; ++j) m = std::max(m, static_cast<double>(x[j]));
    double D = 0;
    for (int64_t j = 0; j < v; ++j) s += std::exp(x[j] - m), D = std::max(D, m - x[j]);
    const double rel = (v + 8 + 2 * D) * FLT_EPSILON;
    for (int64_t j = 0; j < K; ++j) {
      row_sum += p[j];
      if (v == 0) {
        BOOST_TEST(p[j] == 1.0f / static_cast<float>(K), "row " << r << " col " << j);
      } else if (j >= v) {
        BOOST_TEST(p[j] == 0.0f, "row " << r << " col " << j);  // exactly 0
      } else {
        const double exact = std::exp(x[j] - m) / s;
        BOOST_TEST(std::fabs(p[j] - exact) <= rel * exact, "row " << r << " col " << j);
      }
    }
    BOOST_TEST(std::fabs(row_sum - 1.0) <= rel, "row " << r);
  }
}

// A finite-difference check of f's gradient (tests/gradcheck.h), named in the failure.
void check_grad(const char* name, const std::function<Tensor(std::vector<Tensor>&)>& f, std::vector<Tensor> inputs,
                std::vector<Tensor> params = {}) {
  BOOST_TEST(d2l::test::gradcheck(f, std::move(inputs), name, std::move(params)), name);
}
Tensor randn(const Shape& s) { return normal(0.0f, 1.0f, s); }

}  // namespace

BOOST_AUTO_TEST_SUITE(core_softmax)

// The fast tier's fast_exp (core/kernels/fast/fast_exp.h) against std::exp: within 3 ulp over the
// whole float range that does not underflow, including the exact ties of the 2^n rounding;
// the edges exact.
BOOST_AUTO_TEST_CASE(fast_exp_matches_std_exp) {
  float worst = 0.0f;
  for (float x = -87.0f; x <= 88.0f; x += 0.0137f) {
    const double want = std::exp(double(x));
    worst = std::max(worst, float(std::fabs(d2l::fast::fast_exp(x) - want) / want));
  }
  for (int n = -125; n <= 126; ++n) {  // x·log2(e) = n + 1/2: the round-to-even ties
    const float x = float((n + 0.5) * 0.6931471805599453);
    const double want = std::exp(double(x));
    worst = std::max(worst, float(std::fabs(d2l::fast::fast_exp(x) - want) / want));
  }
  BOOST_TEST(worst < 3 * FLT_EPSILON, "worst relative error " << worst);
  BOOST_TEST(d2l::fast::fast_exp(0.0f) == 1.0f);
  BOOST_TEST(d2l::fast::fast_exp(-1e6f) == 0.0f);  // the book's mask value
  BOOST_TEST(std::isinf(d2l::fast::fast_exp(100.0f)));
  BOOST_TEST(std::isnan(d2l::fast::fast_exp(NAN)));  // and no undefined NaN-to-int conversion (UBSan)
}

#if defined(__AVX512F__)
// The 16-lane form (short softmax rows) against std::exp, as above, 16 points at a time,
// and the same special values in every lane.
BOOST_AUTO_TEST_CASE(fast_exp16_matches_std_exp) {
  float worst = 0.0f, in[16], out[16];
  for (float x0 = -87.0f; x0 <= 88.0f; x0 += 16 * 0.0137f) {
    for (int l = 0; l < 16; ++l) in[l] = std::min(x0 + 0.0137f * l, 88.0f);
    _mm512_storeu_ps(out, d2l::fast::fast_exp16(_mm512_loadu_ps(in)));
    for (int l = 0; l < 16; ++l) {
      const double want = std::exp(double(in[l]));
      worst = std::max(worst, float(std::fabs(out[l] - want) / want));
    }
  }
  BOOST_TEST(worst < 3 * FLT_EPSILON, "worst relative error " << worst);
  const float special[16] = {0.0f, -1e6f, 100.0f, NAN, -87.5f, 88.5f, -INFINITY, INFINITY,
                             0.0f, -1e6f, 100.0f, NAN, -87.5f, 88.5f, -INFINITY, INFINITY};
  _mm512_storeu_ps(out, d2l::fast::fast_exp16(_mm512_loadu_ps(special)));
  for (int l = 0; l < 16; l += 8) {
    BOOST_TEST(out[l] == 1.0f);
    BOOST_TEST(out[l + 1] == 0.0f);  // the book's mask value
    BOOST_TEST(std::isinf(out[l + 2]));
    BOOST_TEST(std::isnan(out[l + 3]));
    BOOST_TEST(out[l + 4] == 0.0f);  // below -87.3365: 0, as the scalar form
    BOOST_TEST(std::isinf(out[l + 5]));
    BOOST_TEST(out[l + 6] == 0.0f);
    BOOST_TEST(std::isinf(out[l + 7]));
  }
}
#endif

// The fast tier's lane_sum adds in a fixed order that differs from left to right only by
// rounding: exact on integers, and within n eps of the double sum on random values.
BOOST_AUTO_TEST_CASE(lane_sum_is_a_sum) {
  std::vector<float> v(1000);
  for (int i = 0; i < 1000; ++i) v[i] = float(i);
  for (int64_t n : {0, 1, 15, 16, 17, 33, 1000}) BOOST_TEST(d2l::fast::lane_sum(v.data(), n) == float(n * (n - 1) / 2));
  d2l::manual_seed(3);
  const std::vector<float> r = d2l::normal(0.0f, 1.0f, {777}).to_vector();
  double want = 0, mag = 0;
  for (float x : r) want += x, mag += std::fabs(x);
  BOOST_TEST(std::fabs(d2l::fast::lane_sum(r.data(), 777) - want) <= 777 * FLT_EPSILON * mag);
}

BOOST_AUTO_TEST_CASE(softmax_stable_on_large_inputs) {
  // Without subtracting the row max, exp(1e4) overflows to inf and inf/inf is NaN.
  const Tensor x = tensor({{1e4f, 1e4f - 1, 1e4f - 2},
                           {-1e4f, -1e4f + 1, -1e4f + 2},
                           {1e4f, 0.0f, -1e4f},
                           {1e4f, 1e4f, 1e4f},
                           {FLT_MAX, -FLT_MAX, 0.0f}});
  const Tensor y = softmax(x);
  BOOST_TEST(all_finite(y));
  // Softmax ignores a shift, so the first two rows are softmax([2, 1, 0]) and its mirror.
  expect_near(y, {0.66524096f, 0.24472847f, 0.09003057f, 0.09003057f, 0.24472847f, 0.66524096f, 1, 0, 0,
                  1.0f / 3, 1.0f / 3, 1.0f / 3, 1, 0, 0},
              1e-6f);
  const Tensor l = log_softmax(tensor({{1e4f, 0.0f}, {-1e4f, -1e4f}, {100.0f, 90.0f}}));
  BOOST_TEST(all_finite(l));
  // log_softmax(100, 90) = (0, -10) - log(1 + e^-10) = -4.54e-5 and -10.0000454.
  expect_near(l, {0.0f, -1e4f, -0.69314718f, -0.69314718f, -4.5398899e-5f, -10.0000454f}, 2e-6f);
  // The gradients are finite too.
  Tensor xg = tensor({{1e4f, 0.0f, -1e4f}, {3e4f, 3e4f, 2e4f}});
  xg.requires_grad_();
  sum(softmax(xg) * tensor({{1, 2, 3}, {4, 5, 6}}) + log_softmax(xg)).backward();
  BOOST_TEST(all_finite(xg.grad()));
}

BOOST_AUTO_TEST_CASE(book_example_1d_valid_lens) {
  // masked_softmax(torch.rand(2, 2, 4), torch.tensor([2, 3])): batch 0 keeps 2 keys, batch 1
  // keeps 3, for both of its queries.
  manual_seed(0);
  const Tensor X = rand({2, 2, 4});
  const Tensor y = masked_softmax(X, tensor({2.0f, 3.0f}));
  BOOST_TEST_MESSAGE("masked_softmax(rand(2, 2, 4), [2, 3]) =\n" << y);
  BOOST_TEST(shape_str(y.shape()) == "(2, 2, 4)");
  check_masked_rows(X, y, {2, 2, 3, 3});
}

BOOST_AUTO_TEST_CASE(book_example_2d_valid_lens) {
  // masked_softmax(torch.rand(2, 2, 4), d2l.tensor([[1, 3], [2, 4]])): one length per query.
  manual_seed(1);
  const Tensor X = rand({2, 2, 4});
  const Tensor y = masked_softmax(X, tensor({{1, 3}, {2, 4}}));
  BOOST_TEST_MESSAGE("masked_softmax(rand(2, 2, 4), [[1, 3], [2, 4]]) =\n" << y);
  check_masked_rows(X, y, {1, 3, 2, 4});
  // valid length 1: the single kept entry is exactly 1.
  BOOST_TEST(y.at({0, 0, 0}) == 1.0f);
}

BOOST_AUTO_TEST_CASE(valid_len_zero_gives_uniform) {
  // All four scores become -1e6, so softmax is uniform: exp(0) / 4 = 0.25 exactly, as the
  // book's value gives (with -inf it would be 0/0 = NaN).
  manual_seed(2);
  const Tensor X = rand({2, 3, 4});
  const Tensor y = masked_softmax(X, tensor({0.0f, 4.0f}));
  for (int64_t q = 0; q < 3; ++q)
    for (int64_t k = 0; k < 4; ++k) BOOST_TEST(y.at({0, q, k}) == 0.25f);
  check_masked_rows(X, y, {0, 0, 0, 4, 4, 4});
  expect_near(slice(y, 0, 1, 2), softmax(slice(X, 0, 1, 2)).to_vector(), 0.0f);  // 4 of 4: no mask
}

BOOST_AUTO_TEST_CASE(lengths_beyond_keys_and_no_lengths) {
  // A valid length past the number of keys masks nothing (the book's predict_seq2seq
  // passes the untruncated source length); no valid_lens at all is the plain softmax.
  manual_seed(3);
  const Tensor X = normal(0, 1, {2, 2, 3});
  const std::vector<float> plain = softmax(X).to_vector();
  BOOST_TEST(masked_softmax(X, tensor({10.0f, 3.0f})).to_vector() == plain, tt::per_element());
  BOOST_TEST(masked_softmax(X, Tensor()).to_vector() == plain, tt::per_element());
}

BOOST_AUTO_TEST_CASE(masked_logits_cannot_leak) {
  // Masked scores are replaced before the max is taken, so a huge masked value changes nothing.
  const Tensor X = tensor({1.0f, 2.0f, 1e30f, INFINITY}, {1, 1, 4});
  const Tensor y = masked_softmax(X, tensor({2.0f}));
  expect_near(y, {0.26894142f, 0.73105858f, 0.0f, 0.0f}, 1e-6f);
  BOOST_TEST(y.data()[2] == 0.0f);
  BOOST_TEST(y.data()[3] == 0.0f);
}

BOOST_AUTO_TEST_CASE(fused_equals_book_formulation) {
  // The book: X.reshape(-1, K), sequence_mask(..., repeat_interleave(valid_lens, Q), -1e6),
  // softmax, reshape back. The fused op must give the same numbers and the same gradient.
  manual_seed(4);
  const int64_t B = 3, Q = 2, K = 5;
  const Tensor lens1 = tensor({1.0f, 5.0f, 3.0f}), lens2 = tensor({{2, 0}, {5, 4}, {1, 3}});
  for (const Tensor& lens : {lens1, lens2}) {
    Tensor X = normal(0, 1, {B, Q, K});
    X.requires_grad_();
    const Tensor G = normal(0, 1, {B, Q, K});
    Tensor fused = masked_softmax(X, lens);
    fused.backward(G);
    const std::vector<float> fused_grad = X.grad().to_vector();
    X.zero_grad();
    const Tensor flat_lens = lens.ndim() == 1 ? repeat_interleave(lens, Q, 0) : reshape(lens, {-1});
    Tensor book = reshape(softmax(sequence_mask(reshape(X, {-1, K}), flat_lens, -1e6f)), {B, Q, K});
    book.backward(G);
    BOOST_TEST(fused.to_vector() == book.to_vector(), tt::per_element());
    const std::vector<float> book_grad = X.grad().to_vector();
    for (size_t i = 0; i < book_grad.size(); ++i) BOOST_TEST(std::fabs(fused_grad[i] - book_grad[i]) < 1e-6f);
  }
}

// 4 x 400 x 200 = 320,000 scores, above kParallelMin, so the rows are split across threads;
// one random valid length per row, 0 to K.
// Rows of 200 keys (the blocked path), and of 10 (the short-row path of the book's
// attention); both above the fast tier's thread threshold.
struct LargeMasked {
  int64_t B = 4, Q, K;
  Tensor X, lens;
  std::vector<int64_t> row_len;
  LargeMasked(int64_t Q_, int64_t K_) : Q(Q_), K(K_) {
    manual_seed(5);
    X = normal(0, 3, {B, Q, K});
    std::vector<float> lens_v(static_cast<size_t>(B * Q));
    for (float& v : lens_v) v = static_cast<float>(random_int(K + 1));
    lens = tensor(lens_v, {B, Q});
    row_len.assign(lens_v.begin(), lens_v.end());
  }
};

BOOST_AUTO_TEST_CASE(parallel_rows_match_reference) {
  for (const LargeMasked& in : {LargeMasked(400, 200), LargeMasked(6600, 10)}) {
    check_masked_rows(in.X, masked_softmax(in.X, in.lens), in.row_len);
    check_masked_rows(in.X, softmax(in.X), std::vector<int64_t>(static_cast<size_t>(in.B * in.Q), in.K));
  }
}

// Each row is one thread's work in a fixed order: bit-identical for 1 and 2 threads,
// forward and backward.
BOOST_AUTO_TEST_CASE(parallel_rows_same_bits_at_1_and_2_threads, *utf::precondition(d2l_test::openmp_build)) {
#ifdef _OPENMP
  const int saved = omp_get_max_threads();
  for (const LargeMasked& in : {LargeMasked(400, 200), LargeMasked(6600, 10)}) {
    // The forward's output, and the backward's gradient for Σ y w with a fixed w.
    auto run = [&in](int threads) {
      omp_set_num_threads(threads);
      Tensor X = in.X.detach().requires_grad_();
      Tensor y = masked_softmax(X, in.lens);
      sum(y * (arange(in.K) * 0.01f)).backward();
      std::vector<float> out = y.to_vector(), grad = X.grad().to_vector();
      out.insert(out.end(), grad.begin(), grad.end());
      return out;
    };
    const std::vector<float> one = run(1), two = run(2);
    BOOST_TEST(one == two, tt::per_element());
  }
  omp_set_num_threads(saved);
#endif
}

// --- values and finite-difference gradients ---------------------------------------------------

BOOST_AUTO_TEST_CASE(softmax_values_and_gradcheck) {
  expect_near(softmax(tensor({1.0f, 2.0f, 3.0f})), {0.09003057f, 0.24472847f, 0.66524096f}, 2e-5f);
  expect_near(log_softmax(tensor({1.0f, 2.0f, 3.0f})), {-2.40760596f, -1.40760596f, -0.40760596f}, 2e-5f);
  expect_near(softmax(tensor({{0, 0}, {0, 100}})), {0.5f, 0.5f, 0, 1}, 2e-5f);
  manual_seed(12);
  check_grad("softmax", [](std::vector<Tensor>& x) { return softmax(x[0]); }, {randn({2, 3, 5})});
  check_grad("softmax 1-D", [](std::vector<Tensor>& x) { return softmax(x[0]); }, {randn({4})});
  check_grad("log_softmax", [](std::vector<Tensor>& x) { return log_softmax(x[0]); }, {randn({2, 3, 5})});
  check_grad("softmax composite", [](std::vector<Tensor>& x) { return log_softmax(matmul(softmax(x[0] * 2.0f), x[1])); },
     {randn({3, 4}), randn({4, 5})});
}

BOOST_AUTO_TEST_CASE(masked_softmax_gradcheck_and_zero_masked_grad) {
  manual_seed(14);
  const Tensor lens1 = tensor({2.0f, 3.0f}), lens2 = tensor({{1, 3}, {2, 4}});
  check_grad("masked_softmax 1-D valid_lens", [lens1](std::vector<Tensor>& x) { return masked_softmax(x[0], lens1); },
     {randn({2, 2, 4})});
  check_grad("masked_softmax 2-D valid_lens", [lens2](std::vector<Tensor>& x) { return masked_softmax(x[0], lens2); },
     {randn({2, 2, 4})});
  check_grad("masked_softmax no valid_lens", [](std::vector<Tensor>& x) { return masked_softmax(x[0], Tensor()); },
     {randn({2, 2, 4})});
  for (const Tensor& lens : {lens1, lens2}) {
    Tensor X = randn({2, 2, 4});
    X.requires_grad_();
    masked_softmax(X, lens).backward(normal(0, 1, {2, 2, 4}));
    const std::vector<float> g = grad_of(X);
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t q = 0; q < 2; ++q) {
        const float v = lens.ndim() == 1 ? lens.data()[b] : lens.data()[b * 2 + q];
        for (int64_t k = 0; k < 4; ++k) {
          if (k >= v) BOOST_TEST(g[(b * 2 + q) * 4 + k] == 0.0f);  // exactly, not approximately
        }
      }
  }
  // Composite: the book's DotProductAttention, softmax(Q Kᵀ / sqrt(d)) V with 1-D valid_lens,
  // and AdditiveAttention's scores w_vᵀ tanh(W_q q + W_k k) with broadcasting over (q, k).
  check_grad("DotProductAttention composite",
     [lens1](std::vector<Tensor>& x) {
       const Tensor scores = bmm(x[0], x[1], false, true) / std::sqrt(4.0f);
       return bmm(masked_softmax(scores, lens1), x[2]);
     },
     {randn({2, 3, 4}), randn({2, 4, 4}), randn({2, 4, 2})});
  Tensor W_q = randn({3, 2}), W_k = randn({3, 5}), w_v = randn({1, 3});
  check_grad("AdditiveAttention composite",
     [lens1, W_q, W_k, w_v](std::vector<Tensor>& x) {
       const Tensor features = tanh(unsqueeze(linear(x[0], W_q, Tensor()), 2) + unsqueeze(linear(x[1], W_k, Tensor()), 1));
       const Tensor scores = squeeze(linear(features, w_v, Tensor()), -1);  // (2, 1, 4)
       return bmm(masked_softmax(scores, lens1), x[2]);
     },
     {randn({2, 1, 2}), randn({2, 4, 5}), randn({2, 4, 3})}, {W_q, W_k, w_v});
}

BOOST_AUTO_TEST_SUITE_END()
