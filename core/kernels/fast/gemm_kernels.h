// core/kernels/fast/gemm_kernels.h — the innermost pieces of the fast GEMM, for the drivers in
// gemm_packed.cpp and gemm_small.cpp: the register blocking of each instruction set, the
// micro-kernel that keeps an MR x NR tile of C in registers, the padded small-product
// kernel, and the description of one product (Job). AVX-512, AVX2+FMA or portable C++ is
// chosen at compile time from the target (-march).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "core/kernels/fast/lane_sum.h"
#include "core/kernels/fast/parallel.h"

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

namespace d2l {
namespace fast {
namespace detail {

struct Job {  // one product, as described in gemm.h
  bool trans_a, trans_b;
  int64_t M, N, K;
  const float* A;
  const float* B;
  float* C;
  bool accumulate;
  const float* bias = nullptr;  // added to each row of C after the product (gemm.h); only
                                // gemm_direct and narrow_blocks add it themselves (gemm.cpp's
                                // adds_bias), gemm() does it for the others
};

// ---------------------------------------------------------------- micro-kernels
// The micro-kernel (kc, Ap, Bp, C, ldc, overwrite):
//   Ap  MR x kc panel of op(A), element (i, k) at Ap[i*RS + k*CS]   (layouts: see pack_A)
//   Bp  kc x NR panel of op(B), element (k, j) at Bp[k*NR + j]
//   C   MR x NR tile with row stride ldc:  C = Ap Bp  (overwrite)  or  C += Ap Bp
// Per k it loads one row of Bp (NR floats, in vectors), broadcasts each of the MR values of
// column k of Ap and does MR x (NR / vector width) fused multiply-adds into accumulators.
// Each sum runs over k = 0..kc-1 in order and is added to C once at the end: the summation
// order of every C element is fixed by KC alone. RS and CS are compile-time constants, so
// every broadcast is one instruction with a constant offset, for either A layout.
// (micro_tile below, with MR = kMR and NV = 2, is that kernel.)
// Prefetch of C: the C tile is only read at the end, and for a large C (1024 x 1024 is 4 MiB,
// more than L2) that read would stall on L3 once per tile; prefetching it when the tile
// starts lets the loads overlap with the kc steps of arithmetic.
#if defined(__AVX512F__)
constexpr const char* kMicroKernel = "AVX-512";
// 32 zmm registers: 14 x 32 tile = 28 accumulators + 2 for the row of B + 1 broadcast.
// An FMA has 4 cycles latency and two issue per cycle, so at least 8 independent chains are
// needed; 28 keeps both FMA units busy while loads (2 of B + 14 broadcasts per 28 FMAs) stay
// well under the 2-3 loads per cycle the core can do.
constexpr int64_t kMR = 14, kNR = 32, kKC = 256, kMC = 14 * 12, kNC = 2048, kW = 16;
using Vec = __m512;  // kW floats
inline Vec vzero() { return _mm512_setzero_ps(); }
inline Vec vload(const float* p) { return _mm512_load_ps(p); }  // 64-byte aligned
inline Vec vloadu(const float* p) { return _mm512_loadu_ps(p); }
inline void vstoreu(float* p, Vec v) { _mm512_storeu_ps(p, v); }
inline Vec vbroadcast(const float* p) { return _mm512_set1_ps(*p); }
inline Vec vfma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }  // a*b + c, one rounding
inline Vec vadd(Vec a, Vec b) { return _mm512_add_ps(a, b); }
#elif defined(__AVX2__) && defined(__FMA__)
constexpr const char* kMicroKernel = "AVX2";
// 16 ymm registers: 6 x 16 tile = 12 accumulators + 2 for the row of B + 1 broadcast (the
// tile BLIS uses on Haswell): 12 chains cover the FMA latency x throughput product of 10.
constexpr int64_t kMR = 6, kNR = 16, kKC = 256, kMC = 6 * 24, kNC = 2048, kW = 8;
using Vec = __m256;
inline Vec vzero() { return _mm256_setzero_ps(); }
inline Vec vload(const float* p) { return _mm256_load_ps(p); }
inline Vec vloadu(const float* p) { return _mm256_loadu_ps(p); }
inline void vstoreu(float* p, Vec v) { _mm256_storeu_ps(p, v); }
inline Vec vbroadcast(const float* p) { return _mm256_broadcast_ss(p); }
inline Vec vfma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
inline Vec vadd(Vec a, Vec b) { return _mm256_add_ps(a, b); }
#endif

// micro_tile<RS, CS, MR, NV>: the same for a tile of MR <= kMR rows and NV vectors of
// columns (NV = 1: up to kW columns, NV = 2: up to NR), of which only the first nr are
// stored (a masked store for the last vector). Edge tiles of C (the last rows and columns of
// a product whose sizes are not multiples of MR and NR) then run the arithmetic they need and
// write straight into C: a 64-row product is 4 tiles of 14 rows and one of 8 (not of 14 into a
// stack buffer), a 201-column one ends in a 9-column tile of one vector. Every C element is
// still one chain of fused multiply-adds over k in order, so all variants give the same bits.
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
// Stores the first n (1..kW) lanes of v at p, or adds them to what is there.
inline void vstore_first(float* p, Vec v, int64_t n, bool overwrite) {
  if (n >= kW) {
    vstoreu(p, overwrite ? v : vadd(vloadu(p), v));
    return;
  }
#if defined(__AVX512F__)
  const __mmask16 m = first_lanes(n);
  _mm512_mask_storeu_ps(p, m, overwrite ? v : _mm512_add_ps(_mm512_maskz_loadu_ps(m, p), v));
#else
  const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  _mm256_maskstore_ps(p, m, overwrite ? v : _mm256_add_ps(_mm256_maskload_ps(p, m), v));
#endif
}

template <int64_t RS, int64_t CS, int MR, int NV>
void micro_tile(int64_t kc, const float* __restrict Ap, const float* __restrict Bp, float* __restrict C, int64_t ldc,
                bool overwrite, int64_t nr) {
  Vec acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
    for (int v = 0; v < NV; ++v) acc[i][v] = vzero();
    _mm_prefetch(reinterpret_cast<const char*>(C + i * ldc), _MM_HINT_T0);  // prefetch of C, see above
    _mm_prefetch(reinterpret_cast<const char*>(C + i * ldc + NV * kW - 1), _MM_HINT_T0);
  }
  for (int64_t k = 0; k < kc; ++k, Ap += CS, Bp += kNR) {
    Vec b[NV];
    for (int v = 0; v < NV; ++v) b[v] = vload(Bp + v * kW);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const Vec a = vbroadcast(Ap + i * RS);
      for (int v = 0; v < NV; ++v) acc[i][v] = vfma(a, b[v], acc[i][v]);
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
    for (int v = 0; v < NV; ++v) vstore_first(C + i * ldc + v * kW, acc[i][v], nr - v * kW, overwrite);
}
constexpr int kMaxNV = 2;
#else
constexpr const char* kMicroKernel = "portable";
// Portable C++: a 4 x 16 tile of plain floats. The j loop is unit-stride over 16 floats, so
// the compiler's auto-vectoriser turns it into SSE (or whatever the target has).
constexpr int64_t kMR = 4, kNR = 16, kKC = 256, kMC = 4 * 32, kNC = 2048;
constexpr int kMaxNV = 1;
template <int64_t RS, int64_t CS, int MR, int NV>
void micro_tile(int64_t kc, const float* __restrict Ap, const float* __restrict Bp, float* __restrict C, int64_t ldc,
                bool overwrite, int64_t nr) {
  float acc[MR][kNR] = {};
  for (int64_t k = 0; k < kc; ++k, Ap += CS, Bp += kNR)
    for (int64_t i = 0; i < MR; ++i)
      for (int64_t j = 0; j < kNR; ++j) acc[i][j] += Ap[i * RS] * Bp[j];
  for (int64_t i = 0; i < MR; ++i)
    for (int64_t j = 0; j < nr; ++j) C[i * ldc + j] = overwrite ? acc[i][j] : C[i * ldc + j] + acc[i][j];
}
#endif

// The micro-tile for mr rows and nr columns (1 <= mr <= MR, 1 <= nr <= NR) of a panel of A
// in the layout (RS, CS) of pack_A, picked from a table of every instantiation.
using TileFn = void (*)(int64_t kc, const float* Ap, const float* Bp, float* C, int64_t ldc, bool overwrite,
                        int64_t nr);
template <int64_t RS, int64_t CS, size_t... I>
constexpr auto tile_table(std::index_sequence<I...>) {
  return std::array<TileFn, sizeof...(I)>{&micro_tile<RS, CS, int(I) / kMaxNV + 1, int(I) % kMaxNV + 1>...};
}
template <int64_t RS, int64_t CS>
inline TileFn tile_fn(int64_t mr, int64_t nr) {
  static constexpr auto table = tile_table<RS, CS>(std::make_index_sequence<size_t(kMR) * kMaxNV>());
  const int64_t nv = ceil_div(nr, kNR / kMaxNV);
  return table[(mr - 1) * kMaxNV + nv - 1];
}

// The padded small-product kernel (gemm_small.cpp, gemm_padded): kPadRows rows of C at a
// time, W columns (16 or 32) of zero-padded op(B).
// out (kPadRows x W) = Apad (K x kPadRows, k-major) · Bpad (K x W), accumulators in registers.
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
constexpr int64_t kPadRows = kW == 16 ? 8 : 4;  // 8 x 2 zmm or 4 x 4 ymm accumulators at W = 32
template <int64_t W>
inline void pad_rows_kernel(int64_t K, const float* __restrict Apad, const float* __restrict Bpad, float* __restrict out) {
  constexpr int64_t V = W / kW;  // vectors per row
  Vec acc[kPadRows][V];
#pragma GCC unroll 8
  for (int64_t r = 0; r < kPadRows; ++r)
    for (int64_t v = 0; v < V; ++v) acc[r][v] = vzero();
  for (int64_t k = 0; k < K; ++k) {
    Vec b[V];
    for (int64_t v = 0; v < V; ++v) b[v] = vload(Bpad + k * W + v * kW);
#pragma GCC unroll 8
    for (int64_t r = 0; r < kPadRows; ++r) {
      const Vec a = vbroadcast(Apad + k * kPadRows + r);
      for (int64_t v = 0; v < V; ++v) acc[r][v] = vfma(a, b[v], acc[r][v]);
    }
  }
#pragma GCC unroll 8
  for (int64_t r = 0; r < kPadRows; ++r)
    for (int64_t v = 0; v < V; ++v) vstoreu(out + r * W + v * kW, acc[r][v]);
}
#else
constexpr int64_t kPadRows = 4;
template <int64_t W>
inline void pad_rows_kernel(int64_t K, const float* __restrict Apad, const float* __restrict Bpad, float* __restrict out) {
  float acc[kPadRows][W] = {};
  for (int64_t k = 0; k < K; ++k)
    for (int64_t r = 0; r < kPadRows; ++r)
      for (int64_t q = 0; q < W; ++q) acc[r][q] += Apad[k * kPadRows + r] * Bpad[k * W + q];
  for (int64_t r = 0; r < kPadRows; ++r)
    for (int64_t q = 0; q < W; ++q) out[r * W + q] = acc[r][q];
}
#endif

#if defined(__AVX512F__)
// The k loop of the unpacked tiles (gemm_direct.cpp's direct_tile, gemm_stream.cpp's
// few_rows_tile), both operands read where they lie:
//   acc[i][v] += X(i, k) * Y[k*ldy + 16 v + l]  for k = 0..K-1 in order (one fused multiply-add
//   chain per element), lanes past `last` of the last vector read as 0.
//   X(i, k) = kTransX ? X[k*ldx + i] : X[i*ldx + k]   (broadcast; i < MR)
// kPrefetchX: when X is read k-major with a long stride (a run of MR floats per k, rows
// thousands of floats apart: a stride the hardware prefetcher does not follow across pages),
// ask for the run kAhead steps on: both of its ends, since 14 floats from an arbitrary column
// straddle two cache lines more often than not (prefetching only the first line, 16 steps on,
// ran a 32 x 512 x 1536 dX = dY W at 65 GFLOP/s on one thread; both lines, 8 on: 90-100; 4 or
// 32 steps on: 80-88 and 66-76). Always inlined, so that acc stays in registers.
constexpr int64_t kAhead = 8;
template <int MR, int NV, bool kTransX, bool kPrefetchX>
__attribute__((always_inline)) inline void fma_tile(int64_t K, const float* __restrict X, int64_t ldx,
                                                    const float* __restrict Y, int64_t ldy, __mmask16 last,
                                                    __m512 (&acc)[MR][NV]) {
  for (int64_t k = 0; k < K; ++k) {
    if (kPrefetchX) {  // the run's first and last float: it may straddle two cache lines
      _mm_prefetch(reinterpret_cast<const char*>(X + (k + kAhead) * ldx), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(X + (k + kAhead) * ldx + MR - 1), _MM_HINT_T0);
    }
    __m512 b[NV];
    for (int v = 0; v + 1 < NV; ++v) b[v] = _mm512_loadu_ps(Y + k * ldy + 16 * v);
    b[NV - 1] = _mm512_maskz_loadu_ps(last, Y + k * ldy + 16 * (NV - 1));
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const __m512 a = _mm512_set1_ps(kTransX ? X[k * ldx + i] : X[i * ldx + k]);
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_fmadd_ps(a, b[v], acc[i][v]);
    }
  }
}

// r[0..15] (16 rows of 16) transposed in registers: r[c] lane q = the old r[q] lane c.
// Interleave pairs of rows (unpack), then pairs of pairs (64-bit unpack): u[4i + c] holds,
// in its 128-bit block b, rows 4i..4i+3 at column 4b + c; a 4 x 4 transpose of those
// blocks (two rounds of shuffle_f32x4) finishes. 64 shuffles for 256 floats.
inline void transpose16(__m512 r[16]) {
  __m512 t[16], u[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i)
    for (int h = 0; h < 2; ++h) {  // h = 0: columns 4b, 4b+1; h = 1: columns 4b+2, 4b+3
      const __m512d x = _mm512_castps_pd(t[4 * i + h]), y = _mm512_castps_pd(t[4 * i + h + 2]);
      u[4 * i + 2 * h] = _mm512_castpd_ps(_mm512_unpacklo_pd(x, y));
      u[4 * i + 2 * h + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(x, y));
    }
  for (int c = 0; c < 4; ++c) {
    const __m512 s0 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x44), s1 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xEE);
    const __m512 s2 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x44);
    const __m512 s3 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xEE);
    r[c] = _mm512_shuffle_f32x4(s0, s2, 0x88);
    r[4 + c] = _mm512_shuffle_f32x4(s0, s2, 0xDD);
    r[8 + c] = _mm512_shuffle_f32x4(s1, s3, 0x88);
    r[12 + c] = _mm512_shuffle_f32x4(s1, s3, 0xDD);
  }
}
#endif

// ---------------------------------------------------------------- the drivers
// Each computes one whole product j with the loops that suit its shape; gemm.cpp picks one
// from the sizes alone, in this order: gemm_narrow (N <= 2, A not transposed, M > 2),
// gemm_tiny, gemm_direct, gemm_small (M <= 2), gemm_padded, gemm_serial; gemm_parallel for
// products above kGemmParallelMin. The small ones are for products the packed path would pad:
constexpr int64_t kSmallM = 2;  // M <= kSmallM rows: gemm_small (when tiny and direct do not apply)
constexpr int64_t kSmallN = 2;  // N <= kSmallN columns, A not transposed: gemm_narrow
void gemm_small(const Job& j);
void gemm_narrow(const Job& j);
bool use_padded(int64_t M, int64_t N, int64_t K);  // small enough for gemm_padded
void gemm_padded(const Job& j);
bool use_tiny(int64_t M, int64_t N, int64_t K);  // C in registers: M, N <= 16, K <= 64 (gemm_tiny.cpp)
void gemm_tiny(const Job& j);
void gemm_tiny_batch(const Job& j, int64_t batch);  // batch matrices after j's, one kernel lookup
bool use_direct(int64_t M, int64_t N, int64_t K);  // no packing: operands in L2 (gemm_direct.cpp)
void gemm_direct(const Job& j);
// Products with a short sum (K <= kShortSumMaxK) and more than kFewRows rows above the fork
// size: gemm_direct's tiles, fixed blocks of rows per thread (gemm_direct.cpp).
constexpr int64_t kShortSumMaxK = 64;
bool use_short_sum(int64_t M, int64_t N, int64_t K);
void gemm_short_sum(const Job& j);
void transpose_blocks(int64_t rows, int64_t cols, const float* in, float* out, int64_t ld_out);  // gemm.h's transpose
void narrow_blocks(const Job& j);  // gemm_narrow's AVX-512 kernel: N <= 2, columns of op(B) contiguous
// Products with few rows (3..kFewRows) above the fork size: no packing, columns shared among
// threads (gemm_stream.cpp).
bool use_stream(int64_t M, int64_t N, int64_t K);
void gemm_stream(const Job& j);
// gemm_stream's few-rows form (M <= kFewRows): Cᵀ = op(B)ᵀ op(A)ᵀ, tiles of 14 columns of C
// (rows of Cᵀ) by up to 32 rows, stored transposed. Q = op(A)ᵀ as K rows of *ldq floats (A
// itself when stored (K, M), else transposed into the calling thread's scratch); then
// columns [q0, q1) of C from it.
constexpr int64_t kFewRows = 64;
const float* few_rows_q(const Job& j, int64_t* ldq);
void few_rows_block(const Job& j, const float* Q, int64_t ldq, int64_t q0, int64_t q1);
// Products with a long sum (K >= 4096) and a small result (M N <= 2^18), A stored (K, M) and B (K, N): a
// weight's gradient over a whole batch of tokens. The sum is cut into 16 parts in a fixed order,
// computed apart and then added (gemm_long_sum.cpp).
bool use_long_sum(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K);
void gemm_long_sum(const Job& j);
#if defined(__AVX512F__)
constexpr bool kNarrowBlocks = true;  // gemm_narrow runs narrow_blocks when trans_b or N == 1
#else
constexpr bool kNarrowBlocks = false;
#endif
// The packed, blocked path (gemm_packed.cpp) on one thread and shared among the threads;
// both give the same bits.
void gemm_serial(const Job& j);
void gemm_parallel(const Job& j);

}  // namespace detail
}  // namespace fast
}  // namespace d2l
