// core/kernels/fast/gemm_long_sum.cpp — products with a long sum and a small result: a weight's
// gradient dW = dYᵀ X summed over every row of a batch (15.5's f, g and h: 200 x 200 from
// 12800 rows of 256 sentences x 50 tokens).
//
// Shared the usual way (gemm_packed.cpp), such a product splits C's 200 rows between the
// threads and packs op(B) in groups of K slices that both then read: a barrier per group, and
// half of every packed group crossing from one core's cache to the other's. It ran 1.2-1.35x
// faster on 2 threads than on 1, against 1.8x for the same work with a short sum.
// Here the sum itself is cut: C = P_0 + P_1 + ... + P_15, P_p the product over the p-th
// sixteenth of k. Each part is an independent one-thread product (gemm_serial on contiguous
// rows of A and B, since A is stored (K, M) and B (K, N)), into its own buffer; the threads
// take parts as they come (one fork, no barrier inside), then add the 16 buffers element by
// element, in order.
//
// Bits: the parts and their order depend on the sizes alone, so the result is the same at any
// thread count (one thread takes the same 16 parts in turn). It differs from the unsplit sum
// only by rounding (a different association of the same terms).
#include <algorithm>

#include "core/engine/storage.h"  // Buffer
#include "core/kernels/fast/gemm_kernels.h"
#include "core/kernels/fast/parallel.h"

namespace d2l {
namespace fast {
namespace detail {

namespace {
constexpr int64_t kLongSumParts = 16;
// 16 parts of 256 or more: each a whole KC slice.
constexpr int64_t kLongSumMinK = 4096;
// The 16 buffers take at most 16 MiB; a bigger C has rows and columns enough to share out.
constexpr int64_t kLongSumMaxMN = 1 << 18;
}  // namespace

bool use_long_sum(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K) {
  return trans_a && !trans_b && K >= kLongSumMinK && M > kFewRows && N >= 16 && M * N <= kLongSumMaxMN &&
         double(M) * double(N) * double(K) >= kGemmParallelMin;
}

void gemm_long_sum(const Job& j) {
  const int64_t MN = j.M * j.N;
  Buffer parts(static_cast<size_t>(kLongSumParts * MN));
  shared_blocks(kLongSumParts, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t k0 = p * j.K / kLongSumParts, k1 = (p + 1) * j.K / kLongSumParts;
      // Rows k0..k1 of A (K, M) and of B (K, N): op(A)'s and op(B)'s k0..k1 slice.
      gemm_serial(Job{true, false, j.M, j.N, k1 - k0, j.A + k0 * j.M, j.B + k0 * j.N, parts.get() + p * MN, false});
    }
  });
  // C (+)= P_0 + P_1 + ... in order, element by element; blocks of 1024 elements shared.
  const float* P = parts.get();
  constexpr int64_t kBlock = 1024;
  parallel_for(ceil_div(MN, kBlock), MN >= kParallelMin / kLongSumParts, [&](int64_t b) {
    const int64_t e0 = b * kBlock, n = std::min(MN - e0, kBlock);
    float s[kBlock];
    for (int64_t e = 0; e < n; ++e) s[e] = j.accumulate ? j.C[e0 + e] + P[e0 + e] : P[e0 + e];
    for (int64_t p = 1; p < kLongSumParts; ++p)
      for (int64_t e = 0; e < n; ++e) s[e] += P[p * MN + e0 + e];
    std::copy(s, s + n, j.C + e0);
  });
}

}  // namespace detail
}  // namespace fast
}  // namespace d2l
