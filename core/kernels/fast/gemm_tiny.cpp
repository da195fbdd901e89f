// core/kernels/fast/gemm_tiny.cpp — the GEMM for tiny matrices: at most 16 x 16 of C, K <= 64.
// These are one attention head's products in the book's Transformer (10.7): Q Kᵀ is
// 10 x 10 x 8 and A V is 10 x 8 x 10 (10 tokens, 32 hidden units over 4 heads), with their
// gradients (10 x 8 x 10, 10 x 10 x 8, either operand transposed), 256 matrices per bmm.
//
// At that size the packed path's 14 x 32 tile is mostly padding, and even the padded kernel
// (gemm_small.cpp) spends most of its time copying both operands into stack blocks: about
// 120-160 ns a matrix for 800 multiply-adds. Here the whole of C stays in registers, one
// vector per row (8 lanes, a ymm, when N <= 8; 16, a zmm, up to 16, the unused lanes masked
// off), and the product is one loop over k:
//   c[i, :] += op(A)[i, k] · op(B)[k, :]     for k = 0..K-1 in order, i = 0..M-1
// op(A)[i, k] is broadcast from wherever A keeps it (either layout: no copy), op(B)'s row k
// is one masked load when B is stored (K, N); only a B stored (N, K) (Q Kᵀ) is first
// transposed into a K x 16 block on the stack, by vector shuffles (transpose_B). M is a
// template argument (a table of the 16 row counts), so every accumulator is a register and
// every row a separate chain of fused multiply-adds that the core overlaps.
//
// Each C element is one chain over k in order, added to C at the end when accumulating: the
// bits depend on the sizes alone. Needs AVX-512 (masked loads and stores of 8 or 16 lanes);
// other builds never take this path (use_tiny is false there).
#include <array>
#include <utility>

#include "core/kernels/fast/gemm_kernels.h"

namespace d2l {
namespace fast {
namespace detail {

constexpr int64_t kTinyMaxM = 16, kTinyMaxN = 16, kTinyMaxK = 64;

#if defined(__AVX512F__) && defined(__AVX512VL__)
bool use_tiny(int64_t M, int64_t N, int64_t K) { return M <= kTinyMaxM && N <= kTinyMaxN && K <= kTinyMaxK; }

namespace {

// The two vector widths with the same operations: W = 8 (ymm) or 16 (zmm) lanes, of which
// the first n are live (mask m).
template <int W>
struct Lanes;
template <>
struct Lanes<8> {
  using V = __m256;
  using Mask = __mmask8;
  static Mask mask(int64_t n) { return static_cast<Mask>((1u << n) - 1); }
  static V zero() { return _mm256_setzero_ps(); }
  static V load(Mask m, const float* p) { return _mm256_maskz_loadu_ps(m, p); }
  static V bcast(const float* p) { return _mm256_broadcast_ss(p); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static void store(float* p, Mask m, V v) { _mm256_mask_storeu_ps(p, m, v); }
};
template <>
struct Lanes<16> {
  using V = __m512;
  using Mask = __mmask16;
  static Mask mask(int64_t n) { return first_lanes(n); }
  static V zero() { return _mm512_setzero_ps(); }
  static V load(Mask m, const float* p) { return _mm512_maskz_loadu_ps(m, p); }
  static V bcast(const float* p) { return _mm512_set1_ps(*p); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static void store(float* p, Mask m, V v) { _mm512_mask_storeu_ps(p, m, v); }
};

// C (MR x N) = op(A) · (K x N block whose row k is at Bk + k*ldb), lanes past N masked.
// op(A)[i, k] = A[i*RS + k*CS]: (RS, CS) = (K, 1) for A stored (M, K), (1, M) for A stored
// (K, M). Walking one pointer per k (a += CS) with the row offsets i*RS computed from a
// loop-invariant RS keeps the address arithmetic out of the multiply-adds' way.
template <int MR, int W, bool kTransA>
void tiny_tile(const Job& j, const float* __restrict Bk, int64_t ldb) {
  using L = Lanes<W>;
  const typename L::Mask m = L::mask(j.N);
  const int64_t RS = kTransA ? 1 : j.K, CS = kTransA ? j.M : 1;
  typename L::V acc[MR];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) acc[i] = L::zero();
  const float* a = j.A;
  for (int64_t k = 0; k < j.K; ++k, a += CS) {
    const typename L::V b = L::load(m, Bk + k * ldb);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) acc[i] = L::fma(L::bcast(a + i * RS), b, acc[i]);
  }
  // All loads of C before any store: rows of C shorter than a vector share cache lines, and a
  // load overlapping a masked store still in flight waits for it (no forwarding from masked
  // stores): loading and storing row by row cost more than the product at N = 10.
  if (j.accumulate) {
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) acc[i] = L::add(L::load(m, j.C + i * j.N), acc[i]);
  }
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) L::store(j.C + i * j.N, m, acc[i]);
}

using TinyFn = void (*)(const Job&, const float*, int64_t);
template <int W, bool kTransA, size_t... I>
constexpr std::array<TinyFn, sizeof...(I)> tiny_table(std::index_sequence<I...>) {
  return {&tiny_tile<int(I) + 1, W, kTransA>...};
}
template <int W, bool kTransA>
TinyFn tiny_fn(int64_t M) {
  static constexpr auto table = tiny_table<W, kTransA>(std::make_index_sequence<size_t(kTinyMaxM)>());
  return table[M - 1];
}

// B stored (N, K) transposed into Bt (K x 16, row k = op(B)[k, :]) with vector shuffles.
// Writing it element by element costs more than the product itself: 80 scalar stores for
// 10 x 8, and the vector loads of the rows then wait for all of them (a load cannot take its
// data from several smaller stores still in flight). Instead all of B (N*K <= 256 floats) is
// read as pairs of vectors, 32 floats each; lane q of row k is element q*K + k of B, which
// one two-source permute (vpermt2ps) fetches from the pair holding it (pairs in order, each
// one's masked move overwriting the lanes whose element lies at or past its start). Lanes
// past N hold junk from B, never stored to C.
// Up to N*K = 256 (8 pairs, 16 registers); bigger ones (K > 16) go through gemm.h's
// transpose in 16 x 16 blocks.
constexpr int64_t kShuffleMaxPairs = 8;
void transpose_B(const Job& j, float* __restrict Bt) {
  const int64_t n = j.N * j.K, pairs = ceil_div(n, 32);
  if (pairs > kShuffleMaxPairs) {
    transpose_blocks(j.N, j.K, j.B, Bt, kTinyMaxN);
    return;
  }
  __m512 pair[2 * kShuffleMaxPairs];
  for (int64_t v = 0; v < 2 * pairs; ++v) {  // B's floats 16v .. 16v+15, zeros past the end
    const int64_t left = n - 16 * v;
    const __mmask16 live = left >= 16 ? __mmask16(0xFFFF) : left <= 0 ? __mmask16(0) : __mmask16((1u << left) - 1);
    pair[v] = _mm512_maskz_loadu_ps(live, j.B + 16 * v);
  }
  const __m512i rows = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                          _mm512_set1_epi32(static_cast<int>(j.K)));
  for (int64_t k = 0; k < j.K; ++k) {
    const __m512i idx = _mm512_add_epi32(rows, _mm512_set1_epi32(static_cast<int>(k)));
    __m512 r = _mm512_permutex2var_ps(pair[0], idx, pair[1]);  // uses idx mod 32
    for (int64_t p = 1; p < pairs; ++p)  // lanes whose element is at 32p or later: pair p (or a later one)
      r = _mm512_mask_mov_ps(r, _mm512_cmpge_epi32_mask(idx, _mm512_set1_epi32(static_cast<int>(32 * p))),
                             _mm512_permutex2var_ps(pair[2 * p], idx, pair[2 * p + 1]));
    _mm512_store_ps(Bt + k * kTinyMaxN, r);
  }
}

}  // namespace

// Matrices b = 0..batch-1 of a batched product (A + b*M*K, B + b*K*N, C + b*M*N), the
// kernel picked once for all of them.
void gemm_tiny_batch(const Job& j, int64_t batch) {
  const bool narrow = j.N <= 8;  // 8 lanes are enough: half the work per multiply-add
  const TinyFn fn = narrow ? (j.trans_a ? tiny_fn<8, true>(j.M) : tiny_fn<8, false>(j.M))
                           : (j.trans_a ? tiny_fn<16, true>(j.M) : tiny_fn<16, false>(j.M));
  Job m = j;
  for (int64_t b = 0; b < batch; ++b, m.A += j.M * j.K, m.B += j.K * j.N, m.C += j.M * j.N) {
    if (!j.trans_b) {  // op(B) = B (K, N): row k at B + k*N
      fn(m, m.B, j.N);
      continue;
    }
    alignas(64) float Bt[kTinyMaxK * kTinyMaxN];
    transpose_B(m, Bt);
    fn(m, Bt, kTinyMaxN);
  }
}
void gemm_tiny(const Job& j) { gemm_tiny_batch(j, 1); }
#else
bool use_tiny(int64_t, int64_t, int64_t) { return false; }
void gemm_tiny(const Job&) {}  // never called: use_tiny is false on this target
void gemm_tiny_batch(const Job&, int64_t) {}
#endif

}  // namespace detail
}  // namespace fast
}  // namespace d2l
