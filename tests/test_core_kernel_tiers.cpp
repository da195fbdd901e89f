// tests/test_core_kernel_tiers.cpp — suite core_kernel_tiers: every fast kernel (core/kernels/fast/)
// against its reference (core/kernels/reference/) on random inputs at edge sizes: 0, 1, odd sizes,
// sizes that are not multiples of the vector width (16 floats) or of the GEMM's register
// tile, large K, every transpose flag, masked rows with valid length 0, and sizes above the
// fast tier's thread thresholds. Both tiers are compiled into every build, so this runs in
// the fast and the reference build alike. This file: the products, the softmax family,
// dropout, Adam's update and memory_efficient_attention; test_core_kernel_tiers_basic.cpp: the
// rest; test_core_kernel_tiers_cover.cpp: the check that every kernel of core/kernels/list.h
// was compared. (Both tiers declare every kernel from
// that one list, and core/kernels/seam.cpp names both definitions of each: a kernel missing from
// a tier, or defined with other parameters, fails the link.)
//
// Each tolerance is derived next to its check from the rounding of float arithmetic (see
// kEps in tests/tier_compare.h). Backward kernels add into gradients, so every gradient
// starts from random values, which the tolerance counts as one more term.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/kernels/fast/kernels.h"
#include "core/kernels/reference/kernels.h"
#include "tests/tier_compare.h"

using namespace tier_test;
namespace fast = d2l::fast;
namespace ref = d2l::reference;

namespace {

// Products. Each output element of a forward or backward product is a float sum of n
// products (n = K forward; N for dA, M for dB), the fast tier summing in KC-blocks with
// fused multiply-adds, the reference one dot product in k order: sum_tolerance
// (tier_compare.h), a starting gradient and a bias counting as one more term each. Σ|terms|
// for every element at once: the reference kernel run on the absolute values of its
// inputs (a product is linear in each operand).
struct Product {
  int64_t batch, M, N, K;
};

int check_matmul(const Product& p, bool ta, bool tb) {
  const int64_t b = p.batch, M = p.M, N = p.N, K = p.K;
  const Vec A = uniform(b * M * K), B = uniform(b * K * N), dC = uniform(b * M * N);
  const Vec dA0 = uniform(b * M * K), dB0 = uniform(b * K * N);
  const std::string at = "batch " + std::to_string(b) + " M " + std::to_string(M) + " N " + std::to_string(N) +
                         " K " + std::to_string(K) + " ta " + std::to_string(ta) + " tb " + std::to_string(tb);
  Vec Cf(b * M * N), Cr(b * M * N), Cabs(b * M * N);
  fast::matmul_forward(Cf.data(), A.data(), B.data(), b, M, N, K, ta, tb);
  ref::matmul_forward(Cr.data(), A.data(), B.data(), b, M, N, K, ta, tb);
  ref::matmul_forward(Cabs.data(), abs_of(A).data(), abs_of(B).data(), b, M, N, K, ta, tb);
  int bad = mismatches("matmul_forward " + at, Cf, Cr, sum_tolerance(K, {}, Cabs));
  Vec dAf = dA0, dBf = dB0, dAr = dA0, dBr = dB0, dAabs(dA0.size()), dBabs(dB0.size());
  fast::matmul_backward(dAf.data(), dBf.data(), dC.data(), A.data(), B.data(), b, M, N, K, ta, tb);
  ref::matmul_backward(dAr.data(), dBr.data(), dC.data(), A.data(), B.data(), b, M, N, K, ta, tb);
  ref::matmul_backward(dAabs.data(), dBabs.data(), abs_of(dC).data(), abs_of(A).data(), abs_of(B).data(), b, M, N,
                       K, ta, tb);
  bad += mismatches("matmul_backward dA " + at, dAf, dAr, sum_tolerance(N, dA0, dAabs));
  bad += mismatches("matmul_backward dB " + at, dBf, dBr, sum_tolerance(M, dB0, dBabs));
  // A null gradient is skipped: dA alone.
  Vec dAf1 = dA0, dAr1 = dA0;
  fast::matmul_backward(dAf1.data(), nullptr, dC.data(), A.data(), B.data(), b, M, N, K, ta, tb);
  ref::matmul_backward(dAr1.data(), nullptr, dC.data(), A.data(), B.data(), b, M, N, K, ta, tb);
  bad += mismatches("matmul_backward dA only " + at, dAf1, dAr1, sum_tolerance(N, dA0, dAabs));
  return bad;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core_kernel_tiers)

// Shapes aimed at every path of the fast GEMM (core/kernels/fast/gemm.cpp): empty, one or two rows
// or columns, the tiny kernel (M, N <= 16, K <= 64: one attention head's products, a batch of
// 256 as in the Transformer), the padded small kernel (M <= 64, N <= 32, K <= 128) and just past it, sizes
// off the AVX-512 tile (14 x 32) and the AVX2 one (6 x 16), K beyond the KC block (256)
// and beyond 1024, and a product above the thread threshold (M N K >= 2^22).
BOOST_AUTO_TEST_CASE(matmul_every_path_and_transpose) {
  const Product shapes[] = {{1, 0, 5, 3},   {1, 4, 0, 3},    {1, 3, 4, 0},     {0, 3, 3, 3},    {1, 1, 1, 1},
                            {1, 1, 37, 5},  {3, 2, 19, 33},  {1, 29, 1, 13},   {2, 70, 2, 17},  {4, 10, 10, 8},
                            {3, 7, 17, 9},  {2, 64, 32, 128}, {2, 65, 33, 129}, {1, 15, 33, 31}, {1, 97, 101, 103},
                            {1, 13, 5, 1100}, {1, 131, 127, 300}, {256, 10, 10, 8}, {5, 16, 16, 16},
                            {3, 16, 9, 65},   {6, 13, 17, 20},   {4, 1, 16, 3}};
  for (const Product& p : shapes)
    for (int flags = 0; flags < 4; ++flags) {
      const bool ta = flags & 1, tb = flags & 2;
      BOOST_TEST(check_matmul(p, ta, tb) == 0, "batch " << p.batch << " M " << p.M << " N " << p.N << " K " << p.K
                                                        << " ta " << ta << " tb " << tb);
    }
}

// nn.Linear: y = x Wᵀ + b is a sum of K products plus the bias; dx sums N products, dW and
// db sum over the M rows. Tolerances as for the products above. The shapes take the fast
// tier's bias added by the unpacked GEMM as it stores y (640 x 32 -> 201, 64 x 32 -> 96),
// added after the product (the small, tiny, packed and threaded paths), with K = 0 (y = b),
// and db's one-thread and threaded column sums (M N below and above 2^18); one or two
// outputs (Bahdanau's w_v: 16 rows at a time, the bias added as they are stored).
BOOST_AUTO_TEST_CASE(linear_with_and_without_bias) {
  const Product shapes[] = {{1, 0, 4, 3}, {1, 1, 1, 1}, {1, 2, 5, 7}, {1, 9, 1, 16}, {1, 33, 2, 17},
                            {1, 10, 31, 8}, {1, 70, 48, 129}, {1, 640, 80, 96}, {1, 400, 128, 90},
                            {1, 640, 201, 32}, {1, 64, 96, 32}, {1, 201, 32, 640}, {1, 5, 7, 0},
                            {1, 640, 1, 32},  {1, 21, 2, 40}};
  for (const Product& p : shapes)
    for (bool with_bias : {false, true}) {
      const int64_t M = p.M, N = p.N, K = p.K;
      const Vec x = uniform(M * K), W = uniform(N * K), b = uniform(N), dy = uniform(M * N);
      const Vec dx0 = uniform(M * K), dW0 = uniform(N * K), db0 = uniform(N);
      const float* bias = with_bias ? b.data() : nullptr;
      const Vec b_abs = abs_of(b);
      Vec yf(M * N), yr(M * N), yabs(M * N);
      fast::linear_forward(yf.data(), x.data(), W.data(), bias, M, N, K);
      ref::linear_forward(yr.data(), x.data(), W.data(), bias, M, N, K);
      ref::linear_forward(yabs.data(), abs_of(x).data(), abs_of(W).data(), with_bias ? b_abs.data() : nullptr, M, N, K);
      const std::string at = "M " + std::to_string(M) + " N " + std::to_string(N) + " K " + std::to_string(K) +
                             (with_bias ? " with bias" : " no bias");
      BOOST_TEST(mismatches("linear_forward " + at, yf, yr, sum_tolerance(K, {}, yabs)) == 0, at);
      Vec dxf = dx0, dWf = dW0, dbf = db0, dxr = dx0, dWr = dW0, dbr = db0;
      Vec dxa(dx0.size()), dWa(dW0.size()), dba(db0.size());
      fast::linear_backward(dxf.data(), dWf.data(), with_bias ? dbf.data() : nullptr, dy.data(), x.data(), W.data(), M,
                            N, K);
      ref::linear_backward(dxr.data(), dWr.data(), with_bias ? dbr.data() : nullptr, dy.data(), x.data(), W.data(), M,
                           N, K);
      ref::linear_backward(dxa.data(), dWa.data(), dba.data(), abs_of(dy).data(), abs_of(x).data(), abs_of(W).data(),
                           M, N, K);
      BOOST_TEST(mismatches("linear_backward dx " + at, dxf, dxr, sum_tolerance(N, dx0, dxa)) == 0, at);
      BOOST_TEST(mismatches("linear_backward dW " + at, dWf, dWr, sum_tolerance(M, dW0, dWa)) == 0, at);
      BOOST_TEST(mismatches("linear_backward db " + at, dbf, dbr, sum_tolerance(M, db0, dba)) == 0, at);
    }
}

// softmax rows. Both tiers subtract the same row max (the same float operation). The fast
// e^x is within 3 kEps relative of e^x (core_softmax/fast_exp_matches_std_exp), std::exp
// within 1, so the exponentials differ by 4 kEps relative; the row sums of C terms by
// (C + 4) kEps relative (different orders, tier_compare.h); the division (fast: a
// reciprocal and a multiply) adds 3 more roundings. So |Δy| <= (C + 12) kEps y. Masked keys
// become exactly 0 in both (e^{-1e6 - m} underflows), and a row of valid length 0 comes out
// as 1/K in both.
Vec softmax_tolerance(const Vec& y, int64_t C) {
  Vec tol(y.size());
  for (size_t i = 0; i < y.size(); ++i) tol[i] = float(C + 12) * kEps * std::fabs(y[i]) + 1e-30f;
  return tol;
}

// Backward: dx_i += y_i (dy_i − Σ_j dy_j y_j), given the same y. The C-term dot product
// differs by at most C kEps Σ|dy_j y_j| (orders), and two roundings remain, so
// |Δdx_i| <= (C + 4) kEps (|start_i| + |y_i| (|dy_i| + Σ_j |dy_j y_j|)).
Vec softmax_backward_tolerance(const Vec& y, const Vec& dy, const Vec& start, int64_t C) {
  Vec tol(y.size());
  for (size_t r = 0; C > 0 && r < y.size() / C; ++r) {
    float dot = 0.0f;
    for (int64_t j = 0; j < C; ++j) dot += std::fabs(dy[r * C + j] * y[r * C + j]);
    for (int64_t j = 0; j < C; ++j) {
      const size_t i = r * C + j;
      tol[i] = float(C + 4) * kEps * (std::fabs(start[i]) + std::fabs(y[i]) * (std::fabs(dy[i]) + dot)) + 1e-30f;
    }
  }
  return tol;
}

BOOST_AUTO_TEST_CASE(softmax_and_log_softmax) {
  // Rows of 512 and more take the fast tier's one-pass exp (with and without a tail of < 16).
  const int64_t sizes[][2] = {{0, 5}, {1, 1}, {3, 2}, {4, 7}, {5, 10}, {2, 16}, {3, 17}, {2, 33}, {50, 100},
                              {3, 512}, {2, 527}, {2, 1000}, {300, 1000}};  // the last is above the thread threshold
  for (const auto& s : sizes) {
    const int64_t R = s[0], C = s[1];
    const std::string at = "R " + std::to_string(R) + " C " + std::to_string(C);
    const Vec x = uniform(R * C, -8.0f, 8.0f), dy = uniform(R * C), dx0 = uniform(R * C);
    Vec yf(R * C), yr(R * C);
    fast::softmax_forward(yf.data(), x.data(), R, C);
    ref::softmax_forward(yr.data(), x.data(), R, C);
    BOOST_TEST(mismatches("softmax_forward " + at, yf, yr, softmax_tolerance(yr, C)) == 0, at);
    Vec dxf = dx0, dxr = dx0;
    fast::softmax_backward(dxf.data(), dy.data(), yr.data(), R, C);
    ref::softmax_backward(dxr.data(), dy.data(), yr.data(), R, C);
    BOOST_TEST(mismatches("softmax_backward " + at, dxf, dxr, softmax_backward_tolerance(yr, dy, dx0, C)) == 0, at);
    // log_softmax: y = (x − m) − log s with the same m. s differs by (C + 4) kEps relative
    // (above), so log s by (C + 4) kEps absolute, and three roundings of values at most
    // |y| + log s <= |y| + C remain: |Δy| <= (C + 8) kEps (1 + |y|).
    fast::log_softmax_forward(yf.data(), x.data(), R, C);
    ref::log_softmax_forward(yr.data(), x.data(), R, C);
    Vec tol(yr.size());
    for (size_t i = 0; i < tol.size(); ++i) tol[i] = float(C + 8) * kEps * (1.0f + std::fabs(yr[i]));
    BOOST_TEST(mismatches("log_softmax_forward " + at, yf, yr, tol) == 0, at);
    // Backward: dx += dy − e^y Σ dy. Both sum dy in index order; e^y differs by 4 kEps
    // relative; two roundings: |Δdx| <= 6 kEps (|start| + |dy| + e^y |Σ dy|).
    dxf = dx0, dxr = dx0;
    fast::log_softmax_backward(dxf.data(), dy.data(), yr.data(), R, C);
    ref::log_softmax_backward(dxr.data(), dy.data(), yr.data(), R, C);
    for (int64_t r = 0; r < R; ++r) {
      float sum_dy = 0.0f;
      for (int64_t j = 0; j < C; ++j) sum_dy += dy[r * C + j];
      for (int64_t j = 0; j < C; ++j) {
        const size_t i = r * C + j;
        tol[i] = 6 * kEps * (std::fabs(dx0[i]) + std::fabs(dy[i]) + std::exp(yr[i]) * std::fabs(sum_dy)) + 1e-30f;
      }
    }
    BOOST_TEST(mismatches("log_softmax_backward " + at, dxf, dxr, tol) == 0, at);
  }
}

// masked_softmax: the fast tier's fused pass against the book's three steps. Lengths 0 (a
// uniform row), 1, K, beyond K, and random ones; per batch row and per query.
BOOST_AUTO_TEST_CASE(masked_softmax_with_every_kind_of_length) {
  const int64_t shapes[][3] = {{0, 2, 3},   {1, 1, 1},     {2, 3, 5},   {3, 2, 17}, {4, 10, 10},
                               {2, 5, 33},  {4, 400, 200}, {3, 2, 515}, {2, 3, 1024}};
  for (const auto& s : shapes)
    for (bool per_query : {false, true}) {
      const int64_t B = s[0], Q = s[1], K = s[2], L = per_query ? B * Q : B;
      std::vector<int64_t> lens(static_cast<size_t>(L));
      for (int64_t i = 0; i < L; ++i) {
        const int64_t fixed[] = {0, 1, K, K + 7};
        lens[i] = i < 4 ? fixed[i] : std::uniform_int_distribution<int64_t>(0, K)(gen());
      }
      const std::string at = "B " + std::to_string(B) + " Q " + std::to_string(Q) + " K " + std::to_string(K) +
                             (per_query ? " per query" : " per batch");
      const Vec X = uniform(B * Q * K, -8.0f, 8.0f), dy = uniform(B * Q * K), dX0 = uniform(B * Q * K);
      Vec yf(X.size()), yr(X.size());
      fast::masked_softmax_forward(yf.data(), X.data(), lens.data(), B, Q, K, per_query);
      ref::masked_softmax_forward(yr.data(), X.data(), lens.data(), B, Q, K, per_query);
      BOOST_TEST(mismatches("masked_softmax_forward " + at, yf, yr, softmax_tolerance(yr, K)) == 0, at);
      Vec dXf = dX0, dXr = dX0;
      fast::masked_softmax_backward(dXf.data(), dy.data(), yr.data(), lens.data(), B, Q, K, per_query);
      ref::masked_softmax_backward(dXr.data(), dy.data(), yr.data(), lens.data(), B, Q, K, per_query);
      BOOST_TEST(mismatches("masked_softmax_backward " + at, dXf, dXr, softmax_backward_tolerance(yr, dy, dX0, K)) == 0,
                 at);
    }
}

// The fast tier uses the reference sequence_mask itself: the same bits.
BOOST_AUTO_TEST_CASE(sequence_mask_is_shared) {
  const int64_t B = 3, T = 4, I = 5;
  const std::vector<int64_t> len = {0, 2, 9};
  const Vec X = uniform(B * T * I), dy = uniform(B * T * I), dX0 = uniform(B * T * I);
  Vec yf(X.size()), yr(X.size()), dXf = dX0, dXr = dX0;
  fast::sequence_mask_forward(yf.data(), X.data(), len.data(), B, T, I, -1e6f);
  ref::sequence_mask_forward(yr.data(), X.data(), len.data(), B, T, I, -1e6f);
  fast::sequence_mask_backward(dXf.data(), dy.data(), len.data(), B, T, I);
  ref::sequence_mask_backward(dXr.data(), dy.data(), len.data(), B, T, I);
  BOOST_TEST(mismatches("sequence_mask_forward", yf, yr, 0.0f) == 0);
  BOOST_TEST(mismatches("sequence_mask_backward", dXf, dXr, 0.0f) == 0);
}

// Dropout: both tiers keep element i iff dropout_keeps(i, key, threshold) and multiply by
// scale, one rounding each: the forward is bit for bit equal (tolerance 0). The backward
// adds dy · scale into the gradient, which a tier may fuse into one rounding instead of
// two: |Δdx| <= 2 kEps (|start| + |dy scale|). n up to 300,000: above the fast tier's
// thread threshold and across its 16k-element blocks. p = 1 is threshold 0 with scale 0.
BOOST_AUTO_TEST_CASE(dropout_same_mask) {
  const int64_t sizes[] = {0, 1, 17, 1000, 300000};
  const struct {
    uint32_t threshold;  // p 2^32
    float scale;         // 1 / (1 - p)
  } rates[] = {{429496730u, 1.0f / 0.9f}, {2147483648u, 2.0f}, {0u, 0.0f}};
  for (int64_t n : sizes)
    for (const auto& rate : rates) {
      const uint64_t key = 0x9e3779b97f4a7c15ULL * uint64_t(n + 1);
      const Vec x = uniform(n), dy = uniform(n), dx0 = uniform(n);
      Vec yf(n), yr(n), dxf = dx0, dxr = dx0;
      fast::dropout_forward(yf.data(), x.data(), n, key, rate.threshold, rate.scale);
      ref::dropout_forward(yr.data(), x.data(), n, key, rate.threshold, rate.scale);
      const std::string at = "n " + std::to_string(n) + " threshold " + std::to_string(rate.threshold);
      BOOST_TEST(mismatches("dropout_forward " + at, yf, yr, 0.0f) == 0, at);
      fast::dropout_backward(dxf.data(), dy.data(), n, key, rate.threshold, rate.scale);
      ref::dropout_backward(dxr.data(), dy.data(), n, key, rate.threshold, rate.scale);
      Vec tol(n);
      for (int64_t i = 0; i < n; ++i) tol[i] = 2 * kEps * (std::fabs(dx0[i]) + std::fabs(dy[i] * rate.scale));
      BOOST_TEST(mismatches("dropout_backward " + at, dxf, dxr, tol) == 0, at);
    }
}

// Adam's update, element by element, from the same start in both tiers (the fast tier's is
// vectorised). m = β1 m + (1 − β1) g' and v = β2 v + (1 − β2) g'² take two or three
// roundings, and a tier may fuse a multiply with an add: |Δm| <= 3 kEps (|β1 m| + |(1 − β1)
// g'|), likewise v with g'². The step s m / (sqrt(v) / c + eps) then differs by the relative
// errors of m (3 kEps), of sqrt(v) (1.5 from v, 1 of its own), and four more roundings:
// |Δw| <= kEps |w| + 10 kEps |step|. Weight decay on and off; n across the vector width.
BOOST_AUTO_TEST_CASE(adam_step_same_update) {
  for (int64_t n : {0, 1, 15, 17, 1000, 100003})
    for (float wd : {0.0f, 0.01f}) {
      const Vec w0 = uniform(n), m0 = uniform(n, -0.1f, 0.1f), v0 = abs_of(uniform(n, 0.0f, 0.01f)), g = uniform(n);
      const float b1 = 0.9f, b2 = 0.999f, eps = 1e-8f, step_size = 0.005f / (1.0f - 0.9f * 0.9f * 0.9f),
                  bc2_sqrt = std::sqrt(1.0f - 0.999f * 0.999f * 0.999f);
      Vec wf = w0, mf = m0, vf = v0, wr = w0, mr = m0, vr = v0;
      fast::adam_step(wf.data(), mf.data(), vf.data(), g.data(), n, b1, b2, eps, wd, step_size, bc2_sqrt);
      ref::adam_step(wr.data(), mr.data(), vr.data(), g.data(), n, b1, b2, eps, wd, step_size, bc2_sqrt);
      Vec tm(n), tv(n), tw(n);
      for (int64_t i = 0; i < n; ++i) {
        const float gi = g[i] + wd * w0[i];
        tm[i] = 3 * kEps * (std::fabs(b1 * m0[i]) + std::fabs((1 - b1) * gi)) + 1e-30f;
        tv[i] = 3 * kEps * (std::fabs(b2 * v0[i]) + (1 - b2) * gi * gi) + 1e-30f;
        tw[i] = kEps * std::fabs(w0[i]) + 10 * kEps * std::fabs(w0[i] - wr[i]) + 1e-30f;
      }
      const std::string at = "n " + std::to_string(n) + " weight_decay " + std::to_string(wd);
      BOOST_TEST(mismatches("adam_step m " + at, mf, mr, tm) == 0, at);
      BOOST_TEST(mismatches("adam_step v " + at, vf, vr, tv) == 0, at);
      BOOST_TEST(mismatches("adam_step w " + at, wf, wr, tw) == 0, at);
    }
}

// memory_efficient_attention (10.7 ex. 5): the fast kernels (tiles of 64 rows x 128 keys, GEMMs, the vectorised exp) against the
// reference's row-by-row loops, and against themselves at 1 and 2 threads.
BOOST_AUTO_TEST_CASE(memory_efficient_attention_tiers) {
  using namespace tier_test;
  // The last: one batch item, large enough that the fast backward splits its key blocks into
  // groups, each with its own part of dq.
  const int64_t shapes[][5] = {{1, 1, 1, 1, 1}, {2, 3, 5, 4, 6}, {3, 70, 150, 8, 5}, {2, 200, 300, 32, 32},
                               {1, 300, 400, 32, 24}};
  for (const auto& s : shapes)
    for (int mask = 0; mask < 3; ++mask) {  // none, per batch row, per query
      const int64_t B = s[0], Q = s[1], K = s[2], D = s[3], Dv = s[4];
      const bool per_query = mask == 2;
      std::vector<int64_t> lens(static_cast<size_t>(per_query ? B * Q : B));
      for (size_t i = 0; i < lens.size(); ++i)
        lens[i] = i == 0 ? 0 : i == 1 ? K + 2 : std::uniform_int_distribution<int64_t>(1, K)(gen());
      const int64_t* vl = mask ? lens.data() : nullptr;
      const std::string at = "mask " + std::to_string(mask) + " B " + std::to_string(B) + " Q " + std::to_string(Q) +
                             " K " + std::to_string(K);
      const Vec q = uniform(B * Q * D, -2, 2), k = uniform(B * K * D, -2, 2), v = uniform(B * K * Dv);
      const Vec dO = uniform(B * Q * Dv), dq0 = uniform(q.size()), dk0 = uniform(k.size()), dv0 = uniform(v.size());
      Vec Or(B * Q * Dv), Lr(B * Q), Sr(B * Q), Of(Or.size()), Lf(Lr.size()), Sf(Sr.size());
      d2l::reference::memory_efficient_attention_forward(Or.data(), Lr.data(), Sr.data(), q.data(), k.data(), v.data(), vl, B,
                                                         Q, K, D, Dv, per_query);
      d2l::fast::memory_efficient_attention_forward(Of.data(), Lf.data(), Sf.data(), q.data(), k.data(), v.data(), vl, B, Q, K,
                                                    D, Dv, per_query);
      // O is a weighted average of K values in [-1, 1], its weights from scores that are dot
      // products of D terms of size <= 4 and from an exp within a few ulp: a tolerance of
      // (K + D + Dv + 16) kEps times the quantity's scale (1 + |O|; for the max, 4 D; for the
      // sum of K terms <= 1, |s|).
      const float n_terms = static_cast<float>(K + D + Dv + 16);
      Vec tolO(Or.size()), tolL(Lr.size());
      for (size_t i = 0; i < Or.size(); ++i) tolO[i] = n_terms * kEps * (1.0f + std::fabs(Or[i]));
      Vec tolS(Sr.size());
      for (size_t i = 0; i < Lr.size(); ++i) tolL[i] = n_terms * kEps * 4.0f * static_cast<float>(D);
      for (size_t i = 0; i < Sr.size(); ++i) tolS[i] = n_terms * kEps * std::fabs(Sr[i]);
      BOOST_TEST(mismatches("memory_efficient_attention_forward O " + at, Of, Or, tolO) == 0, at);
      BOOST_TEST(mismatches("memory_efficient_attention_forward max " + at, Lf, Lr, tolL) == 0, at);
      BOOST_TEST(mismatches("memory_efficient_attention_forward sum " + at, Sf, Sr, tolS) == 0, at);
      Vec dqr = dq0, dkr = dk0, dvr = dv0, dqf = dq0, dkf = dk0, dvf = dv0;
      d2l::reference::memory_efficient_attention_backward(dqr.data(), dkr.data(), dvr.data(), dO.data(), Or.data(),
                                                          Lr.data(), Sr.data(), q.data(), k.data(), v.data(), vl, B, Q, K, D, Dv,
                                                          per_query);
      d2l::fast::memory_efficient_attention_backward(dqf.data(), dkf.data(), dvf.data(), dO.data(), Or.data(),
                                                     Lr.data(), Sr.data(), q.data(), k.data(), v.data(), vl, B, Q, K, D, Dv,
                                                     per_query);
      // Gradients: sums over K keys (dq) or Q queries (dk, dv) of terms of size <= ~8 D.
      for (auto [name, f, r, n] : {std::make_tuple("dq", &dqf, &dqr, K), std::make_tuple("dk", &dkf, &dkr, Q),
                                   std::make_tuple("dv", &dvf, &dvr, Q)}) {
        Vec tol(r->size());
        for (size_t i = 0; i < tol.size(); ++i)
          tol[i] = static_cast<float>(n + D + Dv + 16) * kEps * 8.0f * static_cast<float>(D) * (1.0f + std::fabs((*r)[i]));
        BOOST_TEST(mismatches(std::string("memory_efficient_attention_backward ") + name + " " + at, *f, *r, tol) == 0, at);
      }
      // Only some gradients asked for (an input without requires_grad): the same bits.
      Vec dq2 = dq0, dk2 = dk0, dv2 = dv0;
      d2l::fast::memory_efficient_attention_backward(nullptr, dk2.data(), dv2.data(), dO.data(), Or.data(), Lr.data(),
                                                     Sr.data(), q.data(), k.data(), v.data(), vl, B, Q, K, D, Dv, per_query);
      d2l::fast::memory_efficient_attention_backward(dq2.data(), nullptr, nullptr, dO.data(), Or.data(), Lr.data(),
                                                     Sr.data(), q.data(), k.data(), v.data(), vl, B, Q, K, D, Dv, per_query);
      BOOST_TEST(mismatches("some grads dq " + at, dq2, dqf, 0.0f) == 0);
      BOOST_TEST(mismatches("some grads dk " + at, dk2, dkf, 0.0f) == 0);
      BOOST_TEST(mismatches("some grads dv " + at, dv2, dvf, 0.0f) == 0);
#ifdef _OPENMP
      // The same bits at 1 and 2 threads.
      const int saved = omp_get_max_threads();
      Vec O1(Or.size()), L1(Lr.size()), S1(Sr.size()), dq1 = dq0, dk1 = dk0, dv1 = dv0;
      omp_set_num_threads(saved == 1 ? 2 : 1);
      d2l::fast::memory_efficient_attention_forward(O1.data(), L1.data(), S1.data(), q.data(), k.data(), v.data(), vl, B, Q, K,
                                                    D, Dv, per_query);
      d2l::fast::memory_efficient_attention_backward(dq1.data(), dk1.data(), dv1.data(), dO.data(), Or.data(),
                                                     Lr.data(), Sr.data(), q.data(), k.data(), v.data(), vl, B, Q, K, D, Dv,
                                                     per_query);
      omp_set_num_threads(saved);
      BOOST_TEST(mismatches("threads O " + at, O1, Of, 0.0f) == 0);
      BOOST_TEST(mismatches("threads dq " + at, dq1, dqf, 0.0f) == 0);
      BOOST_TEST(mismatches("threads dk " + at, dk1, dkf, 0.0f) == 0);
      BOOST_TEST(mismatches("threads dv " + at, dv1, dvf, 0.0f) == 0);
#endif
    }
}

BOOST_AUTO_TEST_SUITE_END()
