// core/fast/gemm_direct.cpp — the GEMM without packing, for the products of the book's
// seq2seq models (10.4, 10.7) and their GRU (9.1): a few hundred rows at most (640 = batch 64
// x 10 steps), K = 32..640, N = 32..201. Everything such a product reads fits in L2 (A is
// 640 x 32 floats = 80 KiB), so the cache blocking and packing of gemm_packed.cpp buy
// nothing there and cost a copy of both operands: a dW = dyᵀ x with K = 640 (A stored
// transposed, dealt out into 14-row panels) ran at 60% of the speed of a forward product.
//
// Here the micro-kernel reads both operands where they are:
//   op(A)[i, k]  broadcast from A itself: A[k*M + i] when A is stored (K, M) (each k one row
//                of A, the tile's rows at constant offsets), A[i*K + k] when stored (M, K)
//                (MR row pointers, each walking its row)
//   op(B)[k, :]  a row of B, when B is stored (K, N): up to two vectors of 16, the second
//                masked at the last column panel (N = 201 ends in a 9-column panel, 96 in
//                three full ones). A B stored (N, K) (nn.Linear's x Wᵀ) is transposed once
//                per call into a scratch block, N*K floats (W is small: 32 x 32, 201 x 32).
// The rows are cut into tiles as equal as possible, at most 14 (the register tile of
// gemm_kernels.h): M = 32 is 11 + 11 + 10 rows, not 14 + 14 + 4. At one zmm multiply-add
// per cycle (this core's rate) four independent chains hide the latency, so every tile of
// 2 or more rows runs at the full rate.
//
// Each C element is one chain of fused multiply-adds over k = 0..K-1 in order, added to C at
// the end when accumulating: the bits depend on the sizes alone. AVX-512 only; other builds
// never take this path (use_direct is false there).
#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "core/fast/gemm_kernels.h"

namespace d2l {
namespace fast {
namespace detail {

#if defined(__AVX512F__)
// One thread's products only (the size test of gemm.cpp sends bigger ones to gemm_parallel),
// K up to 1024 (the dW of a 640-row Linear is K = 640), both operands small enough for L2.
bool use_direct(int64_t M, int64_t N, int64_t K) {
  return K <= 1024 && M * K <= (int64_t(1) << 17) && N * K <= (int64_t(1) << 17) &&
         double(M) * double(N) * double(K) < kGemmParallelMin;
}

namespace {

constexpr int64_t kDirectMR = kMR, kDirectNV = 2;  // tile: up to 14 rows x 2 vectors (32 columns)

// C tile (MR x up to 16*NV columns, the first nr stored) = op(A) tile · op(B) panel.
//   A:  kTransA ? op(A)[i, k] = A[k*lda + i] : A[i*lda + k]   (A points at the tile's row 0)
//   B:  op(B)[k, q] = B[k*ldb + q]                              (B points at the panel's column 0)
//   bias: nullptr, or the panel's columns of a bias added to every row (overwrite only)
template <int MR, int NV, bool kTransA>
void direct_tile(int64_t K, const float* __restrict A, int64_t lda, const float* __restrict B, int64_t ldb,
                 float* __restrict C, int64_t ldc, int64_t nr, bool overwrite, const float* __restrict bias) {
  const int64_t tail = nr - 16 * (NV - 1);  // live lanes of the last vector, 1..16
  const __mmask16 last = tail >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << tail) - 1);
  __m512 acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
    for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_setzero_ps();
  for (int64_t k = 0; k < K; ++k) {
    __m512 b[NV];
    for (int v = 0; v + 1 < NV; ++v) b[v] = _mm512_loadu_ps(B + k * ldb + 16 * v);
    b[NV - 1] = _mm512_maskz_loadu_ps(last, B + k * ldb + 16 * (NV - 1));
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const __m512 a = _mm512_set1_ps(kTransA ? A[k * lda + i] : A[i * lda + k]);
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_fmadd_ps(a, b[v], acc[i][v]);
    }
  }
  // Every load of C before any store: a load that overlaps a masked store still in flight
  // waits for it (no forwarding from masked stores), see gemm_tiny.cpp.
  if (!overwrite) {
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      for (int v = 0; v + 1 < NV; ++v) acc[i][v] = _mm512_add_ps(_mm512_loadu_ps(C + i * ldc + 16 * v), acc[i][v]);
      acc[i][NV - 1] = _mm512_add_ps(_mm512_maskz_loadu_ps(last, C + i * ldc + 16 * (NV - 1)), acc[i][NV - 1]);
    }
  } else if (bias) {
    __m512 bv[NV];
    for (int v = 0; v + 1 < NV; ++v) bv[v] = _mm512_loadu_ps(bias + 16 * v);
    bv[NV - 1] = _mm512_maskz_loadu_ps(last, bias + 16 * (NV - 1));
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i)
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_add_ps(acc[i][v], bv[v]);
  }
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
    for (int v = 0; v + 1 < NV; ++v) _mm512_storeu_ps(C + i * ldc + 16 * v, acc[i][v]);
    _mm512_mask_storeu_ps(C + i * ldc + 16 * (NV - 1), last, acc[i][NV - 1]);
  }
}

using DirectFn = void (*)(int64_t, const float*, int64_t, const float*, int64_t, float*, int64_t, int64_t, bool,
                          const float*);
template <bool kTransA, size_t... I>
constexpr std::array<DirectFn, sizeof...(I)> direct_table(std::index_sequence<I...>) {
  return {&direct_tile<int(I) / kDirectNV + 1, int(I) % kDirectNV + 1, kTransA>...};
}
template <bool kTransA>
DirectFn direct_fn(int64_t mr, int64_t nr) {
  static constexpr auto table = direct_table<kTransA>(std::make_index_sequence<size_t(kDirectMR * kDirectNV)>());
  return table[(mr - 1) * kDirectNV + ceil_div(nr, 16) - 1];
}

thread_local std::vector<float> tl_transposed_b;  // grow-only: no allocation once warm

}  // namespace

void gemm_direct(const Job& j) {
  const float* B = j.B;
  int64_t ldb = j.N;
  if (j.trans_b) {  // B stored (N, K): op(B) into K rows of ldb floats (ldb a multiple of 16)
    ldb = ceil_div(j.N, 16) * 16;
    std::vector<float>& Bt = tl_transposed_b;
    if (Bt.size() < size_t(j.K * ldb)) Bt.resize(size_t(j.K * ldb));
    for (int64_t q = 0; q < j.N; ++q)
      for (int64_t k = 0; k < j.K; ++k) Bt[k * ldb + q] = j.B[q * j.K + k];
    B = Bt.data();
  }
  const int64_t lda = j.trans_a ? j.M : j.K, tiles = ceil_div(j.M, kDirectMR), W = 16 * kDirectNV;
  for (int64_t t = 0; t < tiles; ++t) {  // tile t: rows [t M / tiles, (t+1) M / tiles)
    const int64_t i0 = t * j.M / tiles, mr = (t + 1) * j.M / tiles - i0;
    const float* a = j.trans_a ? j.A + i0 : j.A + i0 * lda;
    for (int64_t j0 = 0; j0 < j.N; j0 += W) {
      const int64_t nr = std::min(W, j.N - j0);
      const DirectFn fn = j.trans_a ? direct_fn<true>(mr, nr) : direct_fn<false>(mr, nr);
      fn(j.K, a, lda, B + j0, ldb, j.C + i0 * j.N + j0, j.N, nr, !j.accumulate, j.bias ? j.bias + j0 : nullptr);
    }
  }
}
#else
bool use_direct(int64_t, int64_t, int64_t) { return false; }
void gemm_direct(const Job&) {}  // never called: use_direct is false on this target
#endif

}  // namespace detail
}  // namespace fast
}  // namespace d2l
