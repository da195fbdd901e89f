// core/kernels/fast/gemm_direct.cpp — the GEMM without packing, for the products of the book's
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
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 says its own AVX-512 shuffles (unpack, shuffle_f32x4: built on an undefined vector,
// _mm512_undefined_ps) "may be used uninitialized" once inlined: a false positive.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
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
  const __mmask16 last = first_lanes(std::min<int64_t>(tail, 16));
  __m512 acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
    for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_setzero_ps();
    // C is only touched at the end; a freshly allocated output is often not in cache, and
    // fetching its lines then stalls the stores (a 640 x 32 -> 32 Linear whose y and x came
    // from memory ran at 2/3 speed). Asking for them now overlaps that with the k loop.
    _mm_prefetch(reinterpret_cast<const char*>(C + i * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(C + i * ldc + nr - 1), _MM_HINT_T0);
  }
  fma_tile<MR, NV, kTransA, false>(K, A, lda, B, ldb, last, acc);
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

// One or two columns of C, A stored (M, K), each column of op(B) contiguous (B stored (N, K),
// or N = 1): c[i, q] = Σ_k A[i, k] B_q[k], as Bahdanau's score layer w_v (640 x 32 -> 1).
// A dot product per row ended in a horizontal sum of its 16 lanes, which cost more than the
// multiply-adds (9 ns a row); here 16 rows run at once, each summing its row in 16 lanes
// (lane l takes k = l, l + 16, ...), and one register transpose then turns the 16 x 16
// partial sums around so that 15 vector adds (halves, in a fixed tree) finish all 16 rows.
void narrow_blocks(const Job& j) {
  for (int64_t q = 0; q < j.N; ++q) {
    const float* w = j.trans_b ? j.B + q * j.K : j.B;  // B_q (N = 1 when B is stored (K, N))
    for (int64_t i0 = 0; i0 < j.M; i0 += 16) {
      const int64_t rows = std::min<int64_t>(16, j.M - i0);
      __m512 r[16];
      for (int i = 0; i < 16; ++i) r[i] = _mm512_setzero_ps();
      for (int64_t k0 = 0; k0 < j.K; k0 += 16) {
        const int64_t nk = std::min<int64_t>(16, j.K - k0);
        const __mmask16 mk = __mmask16((1u << nk) - 1);
        const __m512 wv = _mm512_maskz_loadu_ps(mk, w + k0);
#pragma GCC unroll 16
        for (int i = 0; i < 16; ++i)
          if (i < rows) r[i] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mk, j.A + (i0 + i) * j.K + k0), wv, r[i]);
      }
      transpose16(r);  // r[l] lane i: row i0 + i's lane l
      for (int h = 8; h > 0; h /= 2)
        for (int l = 0; l < h; ++l) r[l] = _mm512_add_ps(r[l], r[l + h]);
      alignas(64) float out[16];
      _mm512_store_ps(out, r[0]);
      for (int64_t i = 0; i < rows; ++i) {
        float& c = j.C[(i0 + i) * j.N + q];
        c = j.accumulate ? c + out[i] : j.bias ? out[i] + j.bias[q] : out[i];
      }
    }
  }
}

// In 16 x 16 blocks through registers (masked loads at the edges, zeros past them): the
// element-by-element copy cost a third of a 64 x 32 -> 96 Linear (one decoder step).
void transpose_blocks(int64_t rows, int64_t cols, const float* in, float* out, int64_t ld_out) {
  for (int64_t q0 = 0; q0 < rows; q0 += 16)
    for (int64_t k0 = 0; k0 < cols; k0 += 16) {
      const int64_t nq = std::min<int64_t>(16, rows - q0), nk = std::min<int64_t>(16, cols - k0);
      const __mmask16 mk = __mmask16((1u << nk) - 1), mq = __mmask16((1u << nq) - 1);
      __m512 r[16];
      for (int i = 0; i < 16; ++i)
        r[i] = i < nq ? _mm512_maskz_loadu_ps(mk, in + (q0 + i) * cols + k0) : _mm512_setzero_ps();
      transpose16(r);
      for (int c = 0; c < nk; ++c) _mm512_mask_storeu_ps(out + (k0 + c) * ld_out + q0, mq, r[c]);
    }
}

namespace {
// Rows [i0, i1) x columns [c0, c1) of j's C, op(B) read as K rows of ldb floats from B: the rows
// cut into tiles as equal as possible (at most 14), the columns in panels of 32 from c0.
void direct_block(const Job& j, const float* B, int64_t ldb, int64_t i0, int64_t i1, int64_t c0, int64_t c1) {
  const int64_t lda = j.trans_a ? j.M : j.K, tiles = ceil_div(i1 - i0, kDirectMR), W = 16 * kDirectNV;
  for (int64_t t = 0; t < tiles; ++t) {  // tile t: rows i0 + [t m / tiles, (t+1) m / tiles)
    const int64_t r0 = i0 + t * (i1 - i0) / tiles, mr = i0 + (t + 1) * (i1 - i0) / tiles - r0;
    const float* a = j.trans_a ? j.A + r0 : j.A + r0 * lda;
    for (int64_t q = c0; q < c1; q += W) {
      const int64_t nr = std::min(W, c1 - q);
      const DirectFn fn = j.trans_a ? direct_fn<true>(mr, nr) : direct_fn<false>(mr, nr);
      fn(j.K, a, lda, B + q, ldb, j.C + r0 * j.N + q, j.N, nr, !j.accumulate, j.bias ? j.bias + q : nullptr);
    }
  }
}

// op(B) as K rows of *ldb floats: B itself when stored (K, N), else transposed into the calling
// thread's scratch (ldb a multiple of 16).
const float* direct_b(const Job& j, int64_t* ldb) {
  *ldb = j.N;
  if (!j.trans_b) return j.B;
  *ldb = ceil_div(j.N, 16) * 16;
  std::vector<float>& Bt = tl_transposed_b;
  if (Bt.size() < size_t(j.K * *ldb)) Bt.resize(size_t(j.K * *ldb));
  transpose_blocks(j.N, j.K, j.B, Bt.data(), *ldb);
  return Bt.data();
}
}  // namespace

void gemm_direct(const Job& j) {
  int64_t ldb;
  const float* B = direct_b(j, &ldb);
  direct_block(j, B, ldb, 0, j.M, 0, j.N);
}

// A short sum above the fork size: a decoder step's weight gradient dW = dYᵀ X, K = the batch
// of 32 rows, C = a 1536 x 512 GRU weight's gradient. Packing would copy both operands for
// only K multiply-adds per element of C, and the packed path's threads meet at a barrier after
// packing B (under OMP_WAIT_POLICY=PASSIVE the caller waits there for the worker to wake);
// here nothing is packed into panels (both operands, K x M and K x N floats with K <= 64, stay
// in L2; see short_sum_b below for the one copy) and each thread takes its own block of C's
// rows first (shared_blocks, parallel.h): one fork, no barrier inside, and thread p updates
// the same rows of a gradient at every step, which may still be in its core's cache.
bool use_short_sum(int64_t M, int64_t N, int64_t K) {
  return double(M) * double(N) * double(K) >= kGemmParallelMin && K <= kShortSumMaxK && M > kFewRows &&
         N > kSmallN;
}

// Operands a power of two apart: the K rows of a (K, 1536) dYᵀ or a (K, 512) B are 6 or 2 KiB
// apart, so a tile's 32 rows fall in two or four of the L1's 64 sets (12 ways each) and evict
// each other (1536 x 512 x 32 ran at 66 GFLOP/s against the packed path's 77). So op(B) is copied once per
// call (by the caller, before the fork: K x N floats, against K x N x M multiply-adds) with
// rows one cache line longer than a multiple of 16 floats, and, when A is stored (K, M), each
// tile's columns of A into a k-major block of 16 floats per k on the stack.
namespace {
thread_local std::vector<float> tl_short_b;  // grow-only
const float* short_sum_b(const Job& j, int64_t* ldb) {
  *ldb = ceil_div(j.N, 16) * 16 + 16;
  std::vector<float>& Bc = tl_short_b;
  if (Bc.size() < size_t(j.K * *ldb)) Bc.resize(size_t(j.K * *ldb));
  if (j.trans_b)
    transpose_blocks(j.N, j.K, j.B, Bc.data(), *ldb);
  else
    for (int64_t k = 0; k < j.K; ++k) std::copy(j.B + k * j.N, j.B + (k + 1) * j.N, Bc.data() + k * *ldb);
  return Bc.data();
}

// Rows [i0, i1) of C, all its columns, op(B) as K rows of ldb floats.
void short_sum_rows(const Job& j, const float* B, int64_t ldb, int64_t i0, int64_t i1) {
  if (!j.trans_a) return direct_block(j, B, ldb, i0, i1, 0, j.N);  // A's rows: K floats each, contiguous
  alignas(64) float at[kShortSumMaxK * 16];  // op(A)[r0 + i, k] at at[16 k + i]
  const int64_t tiles = ceil_div(i1 - i0, kDirectMR), W = 16 * kDirectNV;
  for (int64_t t = 0; t < tiles; ++t) {  // tile t: rows i0 + [t m / tiles, (t+1) m / tiles), as direct_block
    const int64_t r0 = i0 + t * (i1 - i0) / tiles, mr = i0 + (t + 1) * (i1 - i0) / tiles - r0;
    for (int64_t k = 0; k < j.K; ++k) std::copy(j.A + k * j.M + r0, j.A + k * j.M + r0 + mr, at + 16 * k);
    for (int64_t q = 0; q < j.N; q += W) {
      const int64_t nr = std::min(W, j.N - q);
      direct_fn<true>(mr, nr)(j.K, at, 16, B + q, ldb, j.C + r0 * j.N + q, j.N, nr, !j.accumulate,
                              j.bias ? j.bias + q : nullptr);
    }
  }
}
}  // namespace

void gemm_short_sum(const Job& j) {
  int64_t ldb;
  const float* B = short_sum_b(j, &ldb);
  // Rows in whole tiles of kDirectMR, each thread its own block first, 8 tiles a claim
  shared_blocks(ceil_div(j.M, kDirectMR), 8, [&](int64_t t0, int64_t t1) {
    short_sum_rows(j, B, ldb, t0 * kDirectMR, std::min(j.M, t1 * kDirectMR));
  });
}
#else
bool use_direct(int64_t, int64_t, int64_t) { return false; }
bool use_short_sum(int64_t, int64_t, int64_t) { return false; }
void gemm_short_sum(const Job&) {}  // never called: use_short_sum is false on this target
void transpose_blocks(int64_t rows, int64_t cols, const float* in, float* out, int64_t ld_out) {
  for (int64_t q = 0; q < rows; ++q)
    for (int64_t k = 0; k < cols; ++k) out[k * ld_out + q] = in[q * cols + k];
}
void narrow_blocks(const Job&) {}  // never called: gemm_narrow only calls it under AVX-512
void gemm_direct(const Job&) {}  // never called: use_direct is false on this target
#endif

}  // namespace detail

void transpose(int64_t rows, int64_t cols, const float* in, float* out, int64_t ld_out) {
  detail::transpose_blocks(rows, cols, in, out, ld_out);
}

}  // namespace fast
}  // namespace d2l
