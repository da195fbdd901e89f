// tests/test_core_memory_efficient_attention.cpp — suite core_memory_efficient_attention:
// memory_efficient_attention (10.7 ex. 5, core/ops/memory_efficient_attention.cpp) against the
// plain DotProductAttention of 10.3: the same outputs and gradients with every kind of mask,
// a finite-difference gradient check and the errors. (Its fast kernels against the reference
// ones: test_core_kernel_tiers.cpp.)
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "core/autograd.h"
#include "core/ops.h"
#include "core/random.h"
#include "layers/attention_scoring_functions.h"
#include "tests/gradcheck.h"
#include "tests/test_util.h"

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

BOOST_AUTO_TEST_SUITE_END()
