// core/kernels/fast/gemm_small.cpp — the GEMM drivers for products too small or too thin for the
// packed path's MR x NR register tile: one or two rows of C, one or two columns, and small
// blocks of at most 64 x 32 with K <= 128 (one attention head's scores or weighted values).
#include <algorithm>

#include "core/kernels/fast/gemm_kernels.h"
#include "core/kernels/fast/lane_sum.h"

namespace d2l {
namespace fast {
namespace detail {

// One or two rows of C (a single query in attention, a decoder step) whose operands are too
// big for the tiny and unpacked kernels (which take the others, gemm.cpp): the MR-row tile
// would be mostly zero padding, so a plain loop does it, walking B along its rows whichever
// way it is stored (j innermost for B (K, N), so the loop vectorises; dot products for
// B (N, K)). Up to M = 2 it is at least as fast as the packed path (tools/bench/README.md,
// "GEMM paths").
void gemm_small(const Job& j) {
  auto a = [&](int64_t i, int64_t k) { return j.trans_a ? j.A[k * j.M + i] : j.A[i * j.K + k]; };  // op(A)[i, k]
  for (int64_t i = 0; i < j.M; ++i) {
    float* c = j.C + i * j.N;
    if (j.trans_b) {  // B stored (N, K): each c[q] is a dot product with the contiguous row q of B
      for (int64_t q = 0; q < j.N; ++q) {
        float s = 0.0f;
        for (int64_t k = 0; k < j.K; ++k) s += a(i, k) * j.B[q * j.K + k];
        c[q] = j.accumulate ? c[q] + s : s;
      }
      continue;
    }
    if (!j.accumulate) std::fill(c, c + j.N, 0.0f);
    for (int64_t k = 0; k < j.K; ++k)
      for (int64_t q = 0; q < j.N; ++q) c[q] += a(i, k) * j.B[k * j.N + q];
  }
}

// One or two columns of C with A not transposed (a Linear to 1 output, such as Bahdanau's
// score layer w_v): the NR-column tile would be 31/32 padding, so each C element is a dot
// product of a contiguous row of A with a column of op(B), summed in vector lanes in a
// fixed order that depends on K only (lane_sum.h).
template <int64_t BK>  // the k-stride of op(B): 1 when B is stored (N, K), else 0 = "N"
void gemm_narrow_rows(const Job& j) {
  const int64_t bk = BK ? BK : j.N, bq = BK ? j.K : 1;  // op(B)[k, q] = B[k*bk + q*bq]
  for (int64_t i = 0; i < j.M; ++i) {
    const float* a = j.A + i * j.K;
    for (int64_t q = 0; q < j.N; ++q) {
      const float* b = j.B + q * bq;
      const float s = lane_sum(j.K, [&](int64_t k) { return a[k] * b[k * bk]; });
      float& c = j.C[i * j.N + q];
      c = j.accumulate ? c + s : s;
    }
  }
}
void gemm_narrow(const Job& j) {
#if defined(__AVX512F__)
  if (j.trans_b || j.N == 1) return narrow_blocks(j);  // 16 rows at a time (gemm_direct.cpp)
#endif
  j.trans_b || j.N == 1 ? gemm_narrow_rows<1>(j) : gemm_narrow_rows<0>(j);
}

// Small products with at most 32 columns (one attention head's Q Kᵀ or weights·V: the book's
// 10 x 10 x 8, batches of 256 of them): a 14 x 32 register tile would be mostly padding and
// the packing would cost more than the arithmetic. Instead op(B) is copied into a K x W
// block on the stack (W = 16 or 32 columns, zero-padded), and each row of C is W
// accumulators (one or two vector registers) updated by one fused multiply-add per k:
//   c[i, :] = Σ_k op(A)[i, k] · Bpad[k, :]    (k in order: the bits depend on the shape only)
constexpr int64_t kPadMaxM = 64, kPadMaxN = 32, kPadMaxK = 128;
bool use_padded(int64_t M, int64_t N, int64_t K) { return M <= kPadMaxM && N <= kPadMaxN && K <= kPadMaxK; }
template <int64_t W, bool kTransA>
void gemm_padded_w(const Job& j) {
  alignas(64) float Bpad[kPadMaxK * W];
  std::fill_n(Bpad, j.K * W, 0.0f);  // the padding columns are never stored; zero keeps them tame
  if (j.trans_b)
    for (int64_t q = 0; q < j.N; ++q)
      for (int64_t k = 0; k < j.K; ++k) Bpad[k * W + q] = j.B[q * j.K + k];
  else
    for (int64_t k = 0; k < j.K; ++k) std::copy_n(j.B + k * j.N, j.N, Bpad + k * W);
  // kPadRows rows at a time, their op(A) values packed k-major (rows past M are 0), so the
  // inner loop has no branch and kPadRows independent chains of multiply-adds hide the FMA
  // latency (a single row waits ~4 cycles per k for its own previous result).
  alignas(64) float Apad[kPadMaxK * kPadRows];
  for (int64_t i0 = 0; i0 < j.M; i0 += kPadRows) {
    const int64_t rows = std::min(kPadRows, j.M - i0);
    for (int64_t k = 0; k < j.K; ++k)
      for (int64_t r = 0; r < kPadRows; ++r)
        Apad[k * kPadRows + r] = r < rows ? (kTransA ? j.A[k * j.M + i0 + r] : j.A[(i0 + r) * j.K + k]) : 0.0f;
    alignas(64) float out[kPadRows][W];
    pad_rows_kernel<W>(j.K, Apad, Bpad, &out[0][0]);
    for (int64_t r = 0; r < rows; ++r) {
      float* c = j.C + (i0 + r) * j.N;
      if (j.accumulate)
        for (int64_t q = 0; q < j.N; ++q) c[q] += out[r][q];
      else
        for (int64_t q = 0; q < j.N; ++q) c[q] = out[r][q];
    }
  }
}
void gemm_padded(const Job& j) {
  if (j.N <= 16) j.trans_a ? gemm_padded_w<16, true>(j) : gemm_padded_w<16, false>(j);
  else j.trans_a ? gemm_padded_w<32, true>(j) : gemm_padded_w<32, false>(j);
}

}  // namespace detail
}  // namespace fast
}  // namespace d2l
