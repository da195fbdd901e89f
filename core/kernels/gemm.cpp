// core/kernels/gemm.cpp — the matmul/bmm kernel: a naive reference and a fast blocked version.
//
// Legend (as in gemm.h): C (M, N) = op(A) (M, K) * op(B) (K, N), everything row-major.
//   MR x NR   the register tile: one micro-kernel call keeps MR x NR sums of C in registers
//   KC        how much of K one pass covers (a packed A micro-panel is MR x KC, B is KC x NR)
//   MC, NC    the cache blocks: MC x KC of A is packed to stay in L2 (~170 KiB of its 2 MiB),
//             K x NC of B is packed once per column block and read by every thread
//
// The fast path is the five-loop scheme of Goto & van de Geijn ("Anatomy of high-performance
// matrix multiplication", 2008; the scheme behind BLIS and OpenBLAS), with the KC loop moved
// inside the row loop so the threads synchronise once per column block:
//   for jc in N step NC:
//     pack B[:, jc..] -> Bp                (K x NC as KC x NR micro-panels; threads share it)
//     for ic in M step MC:                 a task: one block of rows (threads split here)
//       for pc in K step KC:
//         pack A[ic.., pc..] -> Ap         (MC x KC in MR x KC micro-panels, stays in L2)
//         for jr in NC step NR:            one Bp micro-panel (KC x NR, 32 KiB) stays in L1
//           for ir in MC step MR:
//             micro_kernel: C[ir.., jr..] (+)= Ap panel * Bp panel            (MR x NR)
// Why pack: the micro-kernel then reads A and B as two unit-stride streams whatever the
// transpose flags (the transposes are absorbed by the packing and cost nothing later), and the
// panels are zero-padded to MR and NR, so edge tiles run the same code as interior ones.
// Why those sizes: see the micro-kernel of each instruction set below.
#include "core/kernels/gemm.h"

#include <algorithm>
#include <cstdlib>
#include <new>

#include "core/check.h"
#include "core/kernels/lane_sum.h"

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

namespace d2l {

// ---------------------------------------------------------------- reference kernel
void gemm_naive(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const float* A, const float* B,
                float* C, bool accumulate) {
  check(M >= 0 && N >= 0 && K >= 0, "gemm_naive", "negative size: M=", M, " N=", N, " K=", K);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float s = 0.0f;
      for (int64_t k = 0; k < K; ++k) {
        const float a = trans_a ? A[k * M + i] : A[i * K + k];  // op(A)[i, k]
        const float b = trans_b ? B[j * K + k] : B[k * N + j];  // op(B)[k, j]
        s += a * b;
      }
      C[i * N + j] = accumulate ? C[i * N + j] + s : s;
    }
}

namespace {

// ---------------------------------------------------------------- micro-kernels
// micro_kernel<RS, CS>(kc, Ap, Bp, C, ldc, overwrite):
//   Ap  MR x kc panel of op(A), element (i, k) at Ap[i*RS + k*CS]   (layouts: see pack_A)
//   Bp  kc x NR panel of op(B), element (k, j) at Bp[k*NR + j]
//   C   MR x NR tile with row stride ldc:  C = Ap Bp  (overwrite)  or  C += Ap Bp
// Per k it loads one row of Bp (NR floats, in vectors), broadcasts each of the MR values of
// column k of Ap and does MR x (NR / vector width) fused multiply-adds into accumulators.
// Each sum runs over k = 0..kc-1 in order and is added to C once at the end: the summation
// order of every C element is fixed by KC alone. RS and CS are compile-time constants, so
// every broadcast is one instruction with a constant offset, for either A layout.
// Prefetch of C: the C tile is only read at the end, and for a large C (1024 x 1024 is 4 MiB,
// more than L2) that read would stall on L3 once per tile; prefetching it when the tile
// starts lets the loads overlap with the kc steps of arithmetic.
#if defined(__AVX512F__)
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

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
// The tile is MR rows x two vectors (NR = 2 kW); c0[i], c1[i] hold row i in registers.
template <int64_t RS, int64_t CS>
void micro_kernel(int64_t kc, const float* __restrict Ap, const float* __restrict Bp, float* __restrict C,
                  int64_t ldc, bool overwrite) {
  Vec c0[kMR], c1[kMR];
#pragma GCC unroll 16
  for (int i = 0; i < kMR; ++i) {
    c0[i] = c1[i] = vzero();
    _mm_prefetch(reinterpret_cast<const char*>(C + i * ldc), _MM_HINT_T0);  // prefetch of C, see above
    _mm_prefetch(reinterpret_cast<const char*>(C + i * ldc + kNR - 1), _MM_HINT_T0);
  }
  for (int64_t k = 0; k < kc; ++k, Ap += CS, Bp += kNR) {
    const Vec b0 = vload(Bp), b1 = vload(Bp + kW);
#pragma GCC unroll 16
    for (int i = 0; i < kMR; ++i) {
      const Vec a = vbroadcast(Ap + i * RS);
      c0[i] = vfma(a, b0, c0[i]);
      c1[i] = vfma(a, b1, c1[i]);
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < kMR; ++i) {
    float* c = C + i * ldc;
    vstoreu(c, overwrite ? c0[i] : vadd(vloadu(c), c0[i]));
    vstoreu(c + kW, overwrite ? c1[i] : vadd(vloadu(c + kW), c1[i]));
  }
}
#else
// Portable C++: a 4 x 16 tile of plain floats. The j loop is unit-stride over 16 floats, so
// the compiler's auto-vectoriser turns it into SSE (or whatever the target has).
constexpr int64_t kMR = 4, kNR = 16, kKC = 256, kMC = 4 * 32, kNC = 2048;
template <int64_t RS, int64_t CS>
void micro_kernel(int64_t kc, const float* __restrict Ap, const float* __restrict Bp, float* __restrict C,
                  int64_t ldc, bool overwrite) {
  float acc[kMR][kNR] = {};
  for (int64_t k = 0; k < kc; ++k, Ap += CS, Bp += kNR)
    for (int64_t i = 0; i < kMR; ++i)
      for (int64_t j = 0; j < kNR; ++j) acc[i][j] += Ap[i * RS] * Bp[j];
  for (int64_t i = 0; i < kMR; ++i)
    for (int64_t j = 0; j < kNR; ++j) C[i * ldc + j] = overwrite ? acc[i][j] : C[i * ldc + j] + acc[i][j];
}
#endif

// Fork threads only when the product has at least this many multiply-adds (M*N*K), about
// 20 us of work for one core. Chosen by timing gemm with 1 and 2 threads (forking forced on)
// on the idle 2-core machine, square sizes 32..192 and book shapes. Speed-up of 2 threads:
// 64^3 0.5x, 96^3 0.8-0.9x, 100^3 (1.0M) 0.9x, 112^3 (1.4M) 0.9-1.0x, 128^3 (2.1M) 1.0x,
// 160^3 1.1x, 192^3 1.25x; tall products gain earlier: 640x32x32 (655k) 1.3x, 320x64x64
// (1.3M) 1.15x, 640x64x64 1.4x, 64x1000x32 1.4x. 2^20 sits in the middle of that crossover,
// but it was measured with spinning threads: under OMP_WAIT_POLICY=PASSIVE a fork costs
// ~13 us more (core/parallel.h), and whole training runs of the book's Transformer and
// Bahdanau models lost a third of their speed on 2 threads. 2^22 (~40 us of work) keeps
// their mid-size products (640 x 32 x 201) on one core and the NLI model's (12800 x 200 x
// 200) on two.
constexpr double kGemmParallelMin = 1 << 22;

constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A grow-only, 64-byte-aligned scratch buffer, one per thread: after the first calls of a
// training loop no gemm call allocates.
struct Scratch {
  float* p = nullptr;
  size_t cap = 0;
  float* reserve(size_t n) {
    if (n > cap) {
      std::free(p);
      const size_t bytes = ((n * sizeof(float) + 63) / 64) * 64;
      p = static_cast<float*>(std::aligned_alloc(64, bytes));
      if (!p) throw std::bad_alloc();
      cap = n;
    }
    return p;
  }
  ~Scratch() { std::free(p); }
};
thread_local Scratch tl_packed_a, tl_packed_b;

struct Job {  // one product, as described in gemm.h
  bool trans_a, trans_b;
  int64_t M, N, K;
  const float* A;
  const float* B;
  float* C;
  bool accumulate;
};

// ---------------------------------------------------------------- packing
// Rows [i0, i0+mc) x columns [p0, p0+kc) of op(A) into MR-row micro-panels, one every MR*KC
// floats; rows past mc are 0. The layout follows the storage of A so that packing is a copy of
// contiguous runs, never a transpose (the micro-kernel can broadcast from either):
//   trans_a, A stored (K, M):  k-major,   op(A)[i, k] at panel[k*MR + i]  (RS = 1,  CS = MR)
//   A stored (M, K):           row-major, op(A)[i, k] at panel[i*KC + k]  (RS = KC, CS = 1)
void pack_A(const Job& j, int64_t i0, int64_t mc, int64_t p0, int64_t kc, float* Ap) {
  if (j.trans_a) {
    // Row p0+k of A holds this k for all mc rows of op(A): read it once, front to back, and
    // deal it out MR floats per panel (reading panel by panel instead went down the rows of
    // A once per panel and made packing a third of a dW = gᵀ x product with K = 12800).
    for (int64_t k = 0; k < kc; ++k) {
      const float* src = j.A + (p0 + k) * j.M + i0;
      for (int64_t ir = 0; ir < mc; ir += kMR) {
        float* dst = Ap + (ir / kMR) * kMR * kKC + k * kMR;
        const int64_t mr = std::min(kMR, mc - ir);
        if (mr == kMR) {  // a fixed count: inlined vector moves rather than a memcpy call
          for (int64_t i = 0; i < kMR; ++i) dst[i] = src[ir + i];
        } else {
          std::copy_n(src + ir, mr, dst);
          std::fill(dst + mr, dst + kMR, 0.0f);
        }
      }
    }
    return;
  }
  for (int64_t ir = 0; ir < mc; ir += kMR, Ap += kMR * kKC) {
    const int64_t mr = std::min(kMR, mc - ir);
    {  // each row of A is kc contiguous floats
      for (int64_t i = 0; i < kMR; ++i) {
        const float* src = j.A + (i0 + ir + i) * j.K + p0;
        if (i < mr)
          std::copy(src, src + kc, Ap + i * kKC);
        else
          std::fill(Ap + i * kKC, Ap + i * kKC + kc, 0.0f);
      }
    }
  }
}

// Columns [j0, j0+nr) (nr <= NR) x rows [p0, p0+kc) of op(B) into one NR-wide micro-panel:
//   Bp[k*NR + j] = op(B)[p0 + k, j0 + j], columns past nr are 0.
void pack_B_panel(const Job& j, int64_t j0, int64_t nr, int64_t p0, int64_t kc, float* Bp) {
  if (nr < kNR) std::fill(Bp, Bp + kc * kNR, 0.0f);  // the zero padding of an edge panel
  if (!j.trans_b) {  // B stored (K, N): each row of the panel is a contiguous run of B
    const float* src = j.B + p0 * j.N + j0;
    for (int64_t k = 0; k < kc; ++k) {
      if (nr == kNR)  // a fixed count: inlined vector moves rather than a memcpy call per row
        for (int64_t c = 0; c < kNR; ++c) Bp[k * kNR + c] = src[k * j.N + c];
      else
        std::copy(src + k * j.N, src + k * j.N + nr, Bp + k * kNR);
    }
  } else if (nr == kNR) {  // B stored (N, K): gather one k from NR rows of B (NR streams)
    const float* src = j.B + j0 * j.K + p0;
    for (int64_t k = 0; k < kc; ++k)
      for (int64_t c = 0; c < kNR; ++c) Bp[k * kNR + c] = src[c * j.K + k];
  } else {  // edge panel, B stored (N, K): one row of B at a time
    for (int64_t c = 0; c < nr; ++c) {
      const float* src = j.B + (j0 + c) * j.K + p0;
      for (int64_t k = 0; k < kc; ++k) Bp[k * kNR + c] = src[k];
    }
  }
}

// ---------------------------------------------------------------- the two inner loops
// C block at (row i0, column jc) of size mc x nc, micro-panels [jp0, jp1) of Bp:
// run the micro-kernel on every MR x NR tile. Edge tiles compute a full padded tile into a
// stack buffer and copy the valid part, so the arithmetic (and its rounding) is the same.
void macro_kernel(const Job& j, const float* Ap, const float* Bp, int64_t i0, int64_t mc, int64_t jc, int64_t nc,
                  int64_t jp0, int64_t jp1, int64_t kc, bool overwrite) {
  const auto micro = j.trans_a ? micro_kernel<1, kMR> : micro_kernel<kKC, 1>;  // the A layout of pack_A
  for (int64_t jp = jp0; jp < jp1; ++jp) {
    const int64_t jr = jp * kNR, nr = std::min(kNR, nc - jr);
    for (int64_t ir = 0; ir < mc; ir += kMR) {
      const int64_t mr = std::min(kMR, mc - ir);
      float* c = j.C + (i0 + ir) * j.N + jc + jr;
      const float* a = Ap + ir * kKC;
      const float* b = Bp + jr * kc;
      if (mr == kMR && nr == kNR) {
        micro(kc, a, b, c, j.N, overwrite);
        continue;
      }
      alignas(64) float tile[kMR * kNR];
      micro(kc, a, b, tile, kNR, true);
      for (int64_t i = 0; i < mr; ++i)
        for (int64_t q = 0; q < nr; ++q)
          c[i * j.N + q] = overwrite ? tile[i * kNR + q] : c[i * j.N + q] + tile[i * kNR + q];
    }
  }
}

// ---------------------------------------------------------------- drivers
// gemm_parallel packs B a column block and a group of KC slices at a time: Bp holds the
// slices of [pg, pe) one after another, slice pc at Bp + (pc - pg) * ncp (ncp = nc rounded up
// to NR), micro-panel jp at + jp * NR * kc. The threads meet at one barrier per group, so
// the group is as large as fits kPackedGroupMax floats (about L2): for the usual K <= 1024
// that is all of K (one barrier per column block: on a busy 2-core machine each barrier is a
// chance to wait for a descheduled thread), while a dW = gᵀ x with K = 12800 (the NLI
// model's 256 x 50 tokens) no longer streams an 8 MiB packed B from memory per row block.
constexpr int64_t kPackedGroupMax = int64_t(1) << 18;  // 1 MiB
int64_t column_block(int64_t N) { return std::min(kNC, ceil_div(N, kNR) * kNR); }
int64_t slice_group(int64_t K, int64_t ncp) {
  return std::min(ceil_div(K, kKC), std::max<int64_t>(1, kPackedGroupMax / (kKC * ncp))) * kKC;
}

// Row block [i0, i0+mc) x micro-panels [jp0, jp1) of C, over the K slices [pg, pe) in order.
void row_block(const Job& j, const float* Bp, int64_t ncp, float* Ap, int64_t i0, int64_t mc, int64_t jc,
               int64_t nc, int64_t jp0, int64_t jp1, int64_t pg, int64_t pe) {
  for (int64_t pc = pg; pc < pe; pc += kKC) {
    const int64_t kc = std::min(kKC, j.K - pc);
    pack_A(j, i0, mc, pc, kc, Ap);
    macro_kernel(j, Ap, Bp + (pc - pg) * ncp, i0, mc, jc, nc, jp0, jp1, kc, pc == 0 && !j.accumulate);
  }
}

// Micro-panel jp of KC slice pc, packed to its place in the group starting at pg.
void pack_B_at(const Job& j, float* Bp, int64_t ncp, int64_t jc, int64_t nc, int64_t pg, int64_t pc, int64_t jp) {
  const int64_t kc = std::min(kKC, j.K - pc);
  pack_B_panel(j, jc + jp * kNR, std::min(kNR, nc - jp * kNR), pc, kc, Bp + (pc - pg) * ncp + jp * kNR * kc);
}

// One or two rows of C (a single query in attention, a decoder step): the MR-row tile would
// be mostly zero padding, so a plain loop does it, walking B along its rows whichever way it is
// stored (j innermost for B (K, N), so the loop vectorises; dot products for B (N, K)). Measured with 64 products each: at M = 1 this loop is 2-3x
// faster than the packed path (1 x 10 x 32, 1 x 64 x 64, 1 x 100 x 20), at M = 2 they tie,
// from M = 4 (4 x 32 x 32) the packed path is 1.6x faster, and 3-5x at 10 x 10 x 8.
constexpr int64_t kSmallM = 2;
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
// fixed order that depends on K only (kernels/lane_sum.h).
constexpr int64_t kSmallN = 2;
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
void gemm_narrow(const Job& j) { j.trans_b || j.N == 1 ? gemm_narrow_rows<1>(j) : gemm_narrow_rows<0>(j); }

// Small products with at most 32 columns (one attention head's Q Kᵀ or weights·V: the book's
// 10 x 10 x 8, batches of 256 of them): a 14 x 32 register tile would be mostly padding and
// the packing would cost more than the arithmetic. Instead op(B) is copied into a K x W
// block on the stack (W = 16 or 32 columns, zero-padded), and each row of C is W
// accumulators (one or two vector registers) updated by one fused multiply-add per k:
//   c[i, :] = Σ_k op(A)[i, k] · Bpad[k, :]    (k in order: the bits depend on the shape only)
// ~3x faster than the packed path at 10 x 10 x 8 (measured with gemm_batched, 256 matrices).
constexpr int64_t kPadMaxM = 64, kPadMaxN = 32, kPadMaxK = 128;
// out (kPadRows x W) = Apad (K x kPadRows, k-major) · Bpad (K x W), accumulators in registers.
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
constexpr int64_t kPadRows = kW == 16 ? 8 : 4;  // 8 x 2 zmm or 4 x 4 ymm accumulators at W = 32
template <int64_t W>
void pad_rows_kernel(int64_t K, const float* __restrict Apad, const float* __restrict Bpad, float* __restrict out) {
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
void pad_rows_kernel(int64_t K, const float* __restrict Apad, const float* __restrict Bpad, float* __restrict out) {
  float acc[kPadRows][W] = {};
  for (int64_t k = 0; k < K; ++k)
    for (int64_t r = 0; r < kPadRows; ++r)
      for (int64_t q = 0; q < W; ++q) acc[r][q] += Apad[k * kPadRows + r] * Bpad[k * W + q];
  for (int64_t r = 0; r < kPadRows; ++r)
    for (int64_t q = 0; q < W; ++q) out[r * W + q] = acc[r][q];
}
#endif

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

// One thread, the classic loop order (Goto & van de Geijn): for each column block, for each
// KC slice of K, pack that slice of B (KC x NC, stays in L2/L3), then for each row block
// pack A's slice (MC x KC, stays in L2) and run the tiles. Every C element still adds its
// k-slices in ascending order, so the bits equal gemm_parallel's, which packs all of K first.
// (Packing all of K first here too made a dW = gᵀ x product with K = 12800 stream an 8 MiB
// packed B from memory once per row block.)
void gemm_serial(const Job& j) {
  const int64_t NCb = column_block(j.N);
  float* Bp = tl_packed_b.reserve(kKC * NCb);
  float* Ap = tl_packed_a.reserve(kKC * std::min(kMC, ceil_div(j.M, kMR) * kMR));
  for (int64_t jc = 0; jc < j.N; jc += NCb) {
    const int64_t nc = std::min(NCb, j.N - jc), P = ceil_div(nc, kNR);
    for (int64_t pc = 0; pc < j.K; pc += kKC) {
      const int64_t kc = std::min(kKC, j.K - pc);
      for (int64_t jp = 0; jp < P; ++jp)
        pack_B_panel(j, jc + jp * kNR, std::min(kNR, nc - jp * kNR), pc, kc, Bp + jp * kNR * kc);
      for (int64_t ic = 0; ic < j.M; ic += kMC) {
        const int64_t mc = std::min(kMC, j.M - ic);
        pack_A(j, ic, mc, pc, kc, Ap);
        macro_kernel(j, Ap, Bp, ic, mc, jc, nc, 0, P, kc, pc == 0 && !j.accumulate);
      }
    }
  }
}

// The kernel depends on the sizes alone (never on the thread count): that keeps results
// bit-identical for any OMP_NUM_THREADS. None of the small kernels is used above
// kGemmParallelMin, where gemm_parallel (the packed path, same bits as gemm_serial) runs.
void gemm_one_thread(const Job& j) {
  if (j.M <= kSmallM) gemm_small(j);
  else if (j.N <= kSmallN && !j.trans_a) gemm_narrow(j);
  else if (use_padded(j.M, j.N, j.K)) gemm_padded(j);
  else gemm_serial(j);
}

// How to cut the M x nc block of C (R = ceil(M/MR) micro-rows, P micro-panels) into ni x nj
// tasks for T threads. Tall blocks: split rows into ni pieces, a multiple of T, each at most
// MC rows, balanced to one micro-row. Short ones (few micro-rows): split the micro-panels.
void split_tasks(int64_t R, int64_t P, int64_t T, int64_t* ni, int64_t* nj) {
  *ni = ceil_div(R, kMC / kMR);
  *nj = 1;
  if (T == 1) return;
  if (R >= 4 * T)
    *ni = std::min(R, ceil_div(std::max(*ni, T), T) * T);
  else
    *nj = std::min(P, ceil_div(T, *ni));
}

// The same loops with the B packing and the tiles of C shared out among threads. Bp belongs to
// the calling thread and is read by all; each thread packs its own A blocks into its own Ap.
// The implicit barrier closing the packing `omp for` makes Bp complete before anyone reads it;
// the barrier after the compute loop keeps it until everyone is done. Tasks are handed out
// dynamically so that, if a neighbour's process preempts one thread, the other takes over.
void gemm_parallel(const Job& j) {
  const int64_t NCb = column_block(j.N), Kg = slice_group(j.K, NCb);
  float* Bp = tl_packed_b.reserve(Kg * NCb);
#pragma omp parallel
  {
    int64_t T = 1;
#ifdef _OPENMP
    T = omp_get_num_threads();
#endif
    float* Ap = tl_packed_a.reserve(kKC * std::min(kMC, ceil_div(j.M, kMR) * kMR));
    const int64_t R = ceil_div(j.M, kMR);
    for (int64_t jc = 0; jc < j.N; jc += NCb) {
      const int64_t nc = std::min(NCb, j.N - jc), P = ceil_div(nc, kNR);
      int64_t ni, nj;
      split_tasks(R, P, T, &ni, &nj);
      for (int64_t pg = 0; pg < j.K; pg += Kg) {
        const int64_t pe = std::min(j.K, pg + Kg), n_pc = ceil_div(pe - pg, kKC);
#pragma omp for schedule(static)
        for (int64_t t = 0; t < n_pc * P; ++t) pack_B_at(j, Bp, P * kNR, jc, nc, pg, pg + t / P * kKC, t % P);
#pragma omp for schedule(dynamic) nowait
        for (int64_t t = 0; t < ni * nj; ++t) {
          const int64_t bi = t / nj, bj = t % nj;
          const int64_t i0 = bi * R / ni * kMR, i1 = std::min(j.M, (bi + 1) * R / ni * kMR);
          row_block(j, Bp, P * kNR, Ap, i0, i1 - i0, jc, nc, bj * P / nj, (bj + 1) * P / nj, pg, pe);
        }
        // Bp is repacked for the next group: wait until nobody reads it. After the last one,
        // the end of the parallel region is that barrier.
        if (pe < j.K || jc + NCb < j.N) {
#pragma omp barrier
        }
      }
    }
  }
}

// Sizes checked, degenerate cases done; true when there is a product left to compute.
bool prepare(const char* fn, int64_t batch, int64_t M, int64_t N, int64_t K, float* C, bool accumulate) {
  check(batch >= 0 && M >= 0 && N >= 0 && K >= 0, fn, "negative size: batch=", batch, " M=", M, " N=", N, " K=", K);
  if (batch == 0 || M == 0 || N == 0) return false;
  if (K == 0) {  // empty sum
    if (!accumulate) std::fill(C, C + batch * M * N, 0.0f);
    return false;
  }
  return true;
}

}  // namespace

void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const float* A, const float* B, float* C,
          bool accumulate) {
  if (!prepare("gemm", 1, M, N, K, C, accumulate)) return;
  const Job j{trans_a, trans_b, M, N, K, A, B, C, accumulate};
  // The size test sits here rather than in an if() clause on the pragma because even a
  // parallel region that does not fork costs ~0.4 us in libgomp (it sets up a team of one):
  // measured, that halves the speed of a 14 x 32 x 64 product, the size of one attention head.
  if (j.M <= kSmallM || (j.N <= kSmallN && !j.trans_a) || double(M) * double(N) * double(K) < kGemmParallelMin)
    gemm_one_thread(j);
  else
    gemm_parallel(j);
}

void gemm_batched(bool trans_a, bool trans_b, int64_t batch, int64_t M, int64_t N, int64_t K, const float* A,
                  const float* B, float* C, bool accumulate) {
  if (!prepare("gemm_batched", batch, M, N, K, C, accumulate)) return;
  const double work = double(M) * double(N) * double(K);
  int64_t T = 1;
#ifdef _OPENMP
  T = omp_get_max_threads();
#endif
  auto job = [&](int64_t b) { return Job{trans_a, trans_b, M, N, K, A + b * M * K, B + b * K * N, C + b * M * N, accumulate}; };
  // Few big matrices: split each one over the threads. Otherwise one matrix per thread at a
  // time (no synchronisation inside a matrix). Both give identical bits, see gemm.h.
  if (M > kSmallM && !(N <= kSmallN && !trans_a) && work >= kGemmParallelMin && batch < 4 * T) {
    for (int64_t b = 0; b < batch; ++b) gemm_parallel(job(b));
    return;
  }
#pragma omp parallel for schedule(static) if (work * double(batch) >= kGemmParallelMin)
  for (int64_t b = 0; b < batch; ++b) gemm_one_thread(job(b));
}

GemmBlocking gemm_blocking() { return GemmBlocking{kMR, kNR, kKC, kMC, kNC}; }

}  // namespace d2l
