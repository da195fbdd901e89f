// tests/test_core_memory_efficient_attention.cpp — suite core_memory_efficient_attention:
// memory_efficient_attention (10.7 ex. 5, core/ops/memory_efficient_attention.cpp) against the
// plain DotProductAttention of 10.3: the same outputs and gradients with every kind of mask,
// a finite-difference gradient check, the errors, and the fast kernels held to the reference
// ones at any thread count (suite core_kernel_tiers_cover counts that comparison).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/autograd.h"
#include "core/kernels/fast/kernels.h"
#include "core/ops.h"
#include "core/random.h"
#include "core/kernels/reference/kernels.h"
#include "layers/attention_scoring_functions.h"
#include "tests/gradcheck.h"
#include "tests/test_util.h"
#include "tests/tier_compare.h"

using namespace d2l;

namespace {

// valid_lens for the cases below: "none", "batch" (one per batch row, 0 and past K
// included), "causal" (query i sees keys 0..i, as the Transformer decoder's mask).
Tensor lengths(const std::string& kind, int64_t B, int64_t Q, int64_t K) {
  if (kind == "none") return Tensor();
  if (kind == "batch") {
    Tensor t = empty({B});
    for (int64_t b = 0; b < B; ++b) t.data()[b] = static_cast<float>(b == 0 ? 0 : b == 1 ? K + 3 : (b * 37) % K + 1);
    return t;
  }
  Tensor t = empty({B, Q});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < Q; ++i) t.data()[b * Q + i] = static_cast<float>(std::min(i + 1, K));
  return t;
}

float largest_difference(const std::vector<float>& a, const std::vector<float>& b) {
  float d = 0.0f;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core_memory_efficient_attention)

// Outputs and gradients of the op and of DotProductAttention(0) on the same inputs. The
// shapes cross both tiers' block edges (64 query rows, 64 and 128 keys).
BOOST_AUTO_TEST_CASE(same_as_dot_product_attention) {
  const int64_t shapes[][5] = {{2, 3, 5, 4, 6}, {3, 70, 150, 8, 5}, {2, 129, 129, 16, 16}, {4, 1, 300, 4, 3}};
  for (const auto& s : shapes)
    for (const std::string kind : {"none", "batch", "causal"}) {
      const int64_t B = s[0], Q = s[1], K = s[2], D = s[3], Dv = s[4];
      const std::string at = kind + " B " + std::to_string(B) + " Q " + std::to_string(Q) + " K " + std::to_string(K);
      manual_seed(7);
      const Tensor q0 = normal(0, 1, {B, Q, D}), k0 = normal(0, 1, {B, K, D}), v0 = normal(0, 1, {B, K, Dv});
      const Tensor R = normal(0, 1, {B, Q, Dv}), lens = lengths(kind, B, Q, K);
      std::vector<std::vector<float>> got[2];
      for (int way = 0; way < 2; ++way) {
        Tensor q = d2l_test::leaf(q0.to_vector(), q0.shape()), k = d2l_test::leaf(k0.to_vector(), k0.shape()),
               v = d2l_test::leaf(v0.to_vector(), v0.shape());
        DotProductAttention plain(0.0f);
        const Tensor y = way == 0 ? plain(q, k, v, lens) : memory_efficient_attention(q, k, v, lens);
        sum(y * R).backward();
        got[way] = {y.to_vector(), d2l_test::grad_of(q), d2l_test::grad_of(k), d2l_test::grad_of(v)};
      }
      // Outputs are averages of N(0, 1) values and gradients sums of up to K such terms:
      // float's rounding in two summation orders (and the fast tier's exp) stays below 1e-4.
      const char* names[] = {"output", "dq", "dk", "dv"};
      for (int i = 0; i < 4; ++i)
        BOOST_TEST(largest_difference(got[0][i], got[1][i]) < 1e-4f, at << " " << names[i] << " differs by "
                                                                          << largest_difference(got[0][i], got[1][i]));
    }
}

BOOST_AUTO_TEST_CASE(gradcheck_with_masks) {
  for (const std::string kind : {"none", "batch", "causal"}) {
    manual_seed(3);
    const Tensor lens = lengths(kind, 3, 4, 5);
    BOOST_CHECK_MESSAGE(test::gradcheck([&](std::vector<Tensor>& x) {
      return memory_efficient_attention(x[0], x[1], x[2], lens);
    }, {normal(0, 1, {3, 4, 3}), normal(0, 1, {3, 5, 3}), normal(0, 1, {3, 5, 2})}, "memory_efficient_attention"),
                        kind);
  }
}

BOOST_AUTO_TEST_CASE(errors_name_the_op_and_shapes) {
  const Tensor q = zeros({2, 3, 4}), k = zeros({2, 5, 4}), v = zeros({2, 5, 6});
  BOOST_CHECK_EXCEPTION(memory_efficient_attention(q, zeros({2, 5, 3}), v), std::exception,
                        d2l_test::message_has({"memory_efficient_attention", "(2, 5, 3)", "(2, 3, 4)"}));
  BOOST_CHECK_EXCEPTION(memory_efficient_attention(q, k, zeros({2, 4, 6})), std::exception,
                        d2l_test::message_has({"memory_efficient_attention", "(2, 4, 6)"}));
  BOOST_CHECK_EXCEPTION(memory_efficient_attention(q, k, v, zeros({3})), std::exception,
                        d2l_test::message_has({"memory_efficient_attention", "valid_lens"}));
  Tensor bad = zeros({2});
  bad.data()[1] = 1.5f;
  BOOST_CHECK_EXCEPTION(memory_efficient_attention(q, k, v, bad), std::exception,
                        d2l_test::message_has({"memory_efficient_attention", "1.5"}));
  BOOST_CHECK_EXCEPTION(memory_efficient_attention(q, zeros({2, 0, 4}), zeros({2, 0, 6})), std::exception,
                        d2l_test::message_has({"memory_efficient_attention", "K > 0"}));
}

// The fast kernels (tiles of 64 rows x 128 keys, GEMMs, the vectorised exp) against the
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
