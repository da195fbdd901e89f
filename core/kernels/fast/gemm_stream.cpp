// core/kernels/fast/gemm_stream.cpp — products above the fork size with few rows of C (a decoder
// step's batch of 32 by a 1536 x 512 GRU weight), shared among threads without packing.
//
// The packed path (gemm_packed.cpp) copies all of op(B) into panels on every call. That pays
// when each packed float then feeds many rows of C; with M = 32 it feeds 32 multiply-adds,
// and the copy took a fifth of a seq2seq step at the seed's sizes (vocab 5000, hidden 512,
// batch 32: tools/bench/README.md) while the threads waited for each other at its barriers.
// Here the threads compute blocks of C's columns from the operands where they lie, one fork
// and no barrier inside.
//
// The product is computed as its transpose, Cᵀ = op(B)ᵀ op(A)ᵀ:
// a tile is 14 columns q of C (broadcast from op(B), which is read once in all) by up to 32
// rows i (two vectors of op(A)ᵀ, which is small: K x M, transposed once per call unless A is
// stored (K, M) already), and is stored back transposed through registers (transpose16).
//
// Bits: each C element is one chain of fused multiply-adds over k = 0..K-1 in order, then
// added to C (accumulate) or to the bias: where the tiles or the threads' blocks begin
// changes nothing, so the result is the same at any thread count.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12's false positives, see gemm_direct.cpp
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "core/kernels/fast/gemm_kernels.h"

namespace d2l {
namespace fast {
namespace detail {

#if defined(__AVX512F__)
namespace {

constexpr int64_t kFewRowsMaxK = 4096;  // op(A)ᵀ (K x 32 floats at most 512 KiB) stays in L2

// Cᵀ tile: MR columns of C from q0 by up to 16 NV rows from i0 (nr of them live).
//   P = op(B)ᵀ from column q0: op(B)[k, q0 + q] = kTransP ? P[k*ldp + q] : P[q*ldp + k]
//   Q = op(A)ᵀ from row i0:    op(A)[i0 + i, k] = Q[k*ldq + i]
//   C at (i0, q0), row stride ldc; bias: nullptr or bias[q0..], added to every row (overwrite only)
template <int MR, int NV, bool kTransP>
void few_rows_tile(int64_t K, const float* __restrict P, int64_t ldp, const float* __restrict Q, int64_t ldq,
                   float* __restrict C, int64_t ldc, int64_t nr, bool overwrite, const float* __restrict bias) {
  const int64_t tail = nr - 16 * (NV - 1);  // live lanes of the last vector, 1..16
  const __mmask16 last = first_lanes(std::min<int64_t>(tail, 16)), cols = first_lanes(MR);
  __m512 acc[MR][NV];
#pragma GCC unroll 16
  for (int q = 0; q < MR; ++q)
    for (int v = 0; v < NV; ++v) acc[q][v] = _mm512_setzero_ps();
  // Stored (K, N), op(B)ᵀ's tile is a run of MR floats per k, rows N floats apart: prefetched.
  fma_tile<MR, NV, kTransP, kTransP>(K, P, ldp, Q, ldq, last, acc);
  const __m512 bv = bias ? _mm512_maskz_loadu_ps(cols, bias) : _mm512_setzero_ps();
  // Unrolled, so that acc[q][v] names registers: a loop indexing acc by a run-time v would put
  // acc in memory for the whole k loop above (that ran at a fifth of the speed).
#pragma GCC unroll 2
  for (int v = 0; v < NV; ++v) {
    __m512 r[16];
#pragma GCC unroll 16
    for (int q = 0; q < 16; ++q) r[q] = q < MR ? acc[q][v] : _mm512_setzero_ps();
    transpose16(r);  // r[l] lane q: row i0 + 16 v + l of C, column q0 + q
    const int64_t rows = v + 1 < NV ? 16 : tail;
    for (int64_t l = 0; l < rows; ++l) {
      float* c = C + (16 * v + l) * ldc;
      __m512 x = r[l];
      if (!overwrite) x = _mm512_add_ps(_mm512_maskz_loadu_ps(cols, c), x);
      else if (bias) x = _mm512_add_ps(x, bv);
      _mm512_mask_storeu_ps(c, cols, x);
    }
  }
}

using FewRowsFn = void (*)(int64_t, const float*, int64_t, const float*, int64_t, float*, int64_t, int64_t, bool,
                           const float*);
template <bool kTransP, size_t... I>
constexpr std::array<FewRowsFn, sizeof...(I)> few_rows_table(std::index_sequence<I...>) {
  return {&few_rows_tile<int(I) / 2 + 1, int(I) % 2 + 1, kTransP>...};
}
template <bool kTransP>
FewRowsFn few_rows_fn(int64_t mr, int64_t nr) {
  static constexpr auto table = few_rows_table<kTransP>(std::make_index_sequence<size_t(kMR * 2)>());
  return table[(mr - 1) * 2 + ceil_div(nr, 16) - 1];
}

thread_local std::vector<float> tl_q;  // op(A)ᵀ when A is stored (M, K); grow-only

}  // namespace

bool use_stream(int64_t M, int64_t N, int64_t K) {
  return double(M) * double(N) * double(K) >= kGemmParallelMin && M > kSmallM && M <= kFewRows && N > kSmallN &&
         K <= kFewRowsMaxK;
}

const float* few_rows_q(const Job& j, int64_t* ldq) {
  if (j.trans_a) return *ldq = j.M, j.A;  // A stored (K, M) is op(A)ᵀ
  *ldq = ceil_div(j.M, 16) * 16;
  if (tl_q.size() < size_t(j.K * *ldq)) tl_q.resize(size_t(j.K * *ldq));
  transpose_blocks(j.M, j.K, j.A, tl_q.data(), *ldq);
  return tl_q.data();
}

void few_rows_block(const Job& j, const float* Q, int64_t ldq, int64_t q0, int64_t q1) {
  if (q1 <= q0) return;
  const int64_t tiles = ceil_div(q1 - q0, kMR), ldp = j.trans_b ? j.K : j.N;
  for (int64_t t = 0; t < tiles; ++t) {  // tile t: columns q0 + [t n / tiles, (t+1) n / tiles)
    const int64_t qa = q0 + t * (q1 - q0) / tiles, mr = q0 + (t + 1) * (q1 - q0) / tiles - qa;
    const float* p = j.trans_b ? j.B + qa * j.K : j.B + qa;
    for (int64_t i0 = 0; i0 < j.M; i0 += 32) {  // the P tile (14 x K) stays in L1 for the next 32 rows
      const int64_t nr = std::min<int64_t>(32, j.M - i0);
      const FewRowsFn fn = j.trans_b ? few_rows_fn<false>(mr, nr) : few_rows_fn<true>(mr, nr);
      fn(j.K, p, ldp, Q + i0, ldq, j.C + i0 * j.N + qa, j.N, nr, !j.accumulate, j.bias ? j.bias + qa : nullptr);
    }
  }
}

// One fork, no barrier inside: thread p takes its own block of C's columns first (whole groups
// of 16, so no two threads write one cache line), the same at every call, so the rows of a
// weight it read at the last decoder step (half of a 1536 x 512 GRU weight is 1.5 MiB, about
// one core's L2) are partly still in its cache; then it helps with the others' (shared_blocks).
// A claim is up to 7 groups (112 columns, 8 tiles of 14). op(A)ᵀ is made before the fork, by
// the calling thread, for all.
void gemm_stream(const Job& j) {
  int64_t ldq;
  const float* Q = few_rows_q(j, &ldq);
  shared_blocks(ceil_div(j.N, 16), 7, [&](int64_t g0, int64_t g1) {
    few_rows_block(j, Q, ldq, 16 * g0, std::min(j.N, 16 * g1));
  });
}
#else
bool use_stream(int64_t, int64_t, int64_t) { return false; }
const float* few_rows_q(const Job& j, int64_t* ldq) { return *ldq = j.M, j.A; }  // never called here
void few_rows_block(const Job&, const float*, int64_t, int64_t, int64_t) {}     // never called here
void gemm_stream(const Job&) {}                                                  // never called here
#endif

}  // namespace detail
}  // namespace fast
}  // namespace d2l
