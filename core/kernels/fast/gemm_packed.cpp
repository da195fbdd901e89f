// core/kernels/fast/gemm_packed.cpp — the packed, cache-blocked GEMM for products big enough to
// fill the register tile, on one thread (gemm_serial) and shared among threads (gemm_parallel).
//
// Legend (as in gemm.h): C (M, N) = op(A) (M, K) * op(B) (K, N), everything row-major.
//   MR x NR   the register tile: one micro-kernel call keeps MR x NR sums of C in registers
//   KC        how much of K one pass covers (a packed A micro-panel is MR x KC, B is KC x NR)
//   MC, NC    the cache blocks: MC x KC of A is packed to stay in L2 (~170 KiB of its 2 MiB),
//             K x NC of B is packed once per column block and read by every thread
//
// The five-loop scheme of Goto & van de Geijn ("Anatomy of high-performance matrix
// multiplication", 2008; the scheme behind BLIS and OpenBLAS), with the KC loop moved
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
// Why those sizes: see the micro-kernel of each instruction set in gemm_kernels.h.
#include <algorithm>
#include <cstdlib>
#include <new>

#include "core/kernels/fast/gemm_kernels.h"
#ifdef _OPENMP
#include <omp.h>
#endif

namespace d2l {
namespace fast {
namespace detail {
namespace {

// A grow-only, 64-byte-aligned scratch buffer, one per thread: after the first calls of a
// training loop no gemm call allocates.
struct Scratch {
  float* p = nullptr;
  size_t cap = 0;
  float* reserve(size_t n) {
    if (n > cap) {
      std::free(p);
      p = nullptr;  // if the allocation below fails, the next call must not free p again
      cap = 0;
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
// run the micro-kernel on every MR x NR tile; edge tiles run the micro-tile of their size
// (gemm_kernels.h), which writes only their rows and columns.
template <int64_t RS, int64_t CS>  // the A layout of pack_A
void macro_tiles(const Job& j, const float* Ap, const float* Bp, int64_t i0, int64_t mc, int64_t jc, int64_t nc,
                 int64_t jp0, int64_t jp1, int64_t kc, bool overwrite) {
  for (int64_t jp = jp0; jp < jp1; ++jp) {
    const int64_t jr = jp * kNR, nr = std::min(kNR, nc - jr);
    for (int64_t ir = 0; ir < mc; ir += kMR) {
      const int64_t mr = std::min(kMR, mc - ir);
      float* c = j.C + (i0 + ir) * j.N + jc + jr;
      const float* a = Ap + ir * kKC;
      const float* b = Bp + jr * kc;
      if (mr == kMR && nr == kNR)
        micro_tile<RS, CS, int(kMR), kMaxNV>(kc, a, b, c, j.N, overwrite, kNR);
      else
        tile_fn<RS, CS>(mr, nr)(kc, a, b, c, j.N, overwrite, nr);
    }
  }
}
void macro_kernel(const Job& j, const float* Ap, const float* Bp, int64_t i0, int64_t mc, int64_t jc, int64_t nc,
                  int64_t jp0, int64_t jp1, int64_t kc, bool overwrite) {
  if (j.trans_a) macro_tiles<1, kMR>(j, Ap, Bp, i0, mc, jc, nc, jp0, jp1, kc, overwrite);
  else macro_tiles<kKC, 1>(j, Ap, Bp, i0, mc, jc, nc, jp0, jp1, kc, overwrite);
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

}  // namespace

// One thread, the classic loop order (Goto & van de Geijn): for each column block, for each
// KC slice of K, pack that slice of B (KC x NC, stays in L2/L3), then for each row block
// pack A's slice (MC x KC, stays in L2) and run the tiles. Every C element still adds its
// k-slices in ascending order, so the bits equal gemm_parallel's, which packs all of K first.
// (Packing all of K first here would stream a K = 12800 product's 8 MiB packed B from
// memory once per row block.)
// serial_columns: the same for columns [n0, n1) of C only (n0 a multiple of NR).
namespace {
void serial_columns(const Job& j, int64_t n0, int64_t n1) {
  const int64_t NCb = column_block(n1 - n0);
  float* Bp = tl_packed_b.reserve(kKC * NCb);
  float* Ap = tl_packed_a.reserve(kKC * std::min(kMC, ceil_div(j.M, kMR) * kMR));
  for (int64_t jc = n0; jc < n1; jc += NCb) {
    const int64_t nc = std::min(NCb, n1 - jc), P = ceil_div(nc, kNR);
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
}  // namespace

void gemm_serial(const Job& j) { serial_columns(j, 0, j.N); }

// How to cut the M x nc block of C (R = ceil(M/MR) micro-rows, P micro-panels) into ni x nj
// tasks for T threads. Tall blocks: split rows into ni pieces, a multiple of T, each at most
// MC rows, balanced to one micro-row. Short ones (few micro-rows): split the micro-panels.
static void split_tasks(int64_t R, int64_t P, int64_t T, int64_t* ni, int64_t* nj) {
  *ni = ceil_div(R, kMC / kMR);
  *nj = 1;
  if (T == 1) return;
  if (R >= 4 * T)
    *ni = std::min(R, ceil_div(std::max(*ni, T), T) * T);
  else
    *nj = std::min(P, ceil_div(T, *ni));
}

// Shared among threads, two ways (the bits are gemm_serial's either way):
// - Enough columns for every thread (at least kMinPanels micro-panels each, as every product
//   of the seed's seq2seq: N = 256 .. 5000): thread p runs gemm_serial's loops on a fixed
//   block of C's columns. It packs only its own columns of op(B) (for x Wᵀ: its rows of the
//   weight, the same at every call, so what it packed last step may still be in its cache)
//   and all of op(A) (duplicated work, about 1 / (N / threads) of the multiply-adds): one
//   fork and no barrier, where the shared packing below has the caller wait at the barrier
//   after packing for a worker that OMP_WAIT_POLICY=PASSIVE has put to sleep. (Blocks are
//   fixed, so a thread preempted mid-block on a busy machine holds the others up until it
//   finishes; only a block not yet begun is taken over.)
// - Otherwise (few columns: the NLI model's 12800 x 200 x 100) the loops below.
constexpr int64_t kMinPanels = 4;

// The same loops with the B packing and the tiles of C shared out among threads. Bp belongs to
// the calling thread and is read by all; each thread packs its own A blocks into its own Ap.
// The implicit barrier closing the packing `omp for` makes Bp complete before anyone reads it;
// the barrier after the compute loop keeps it until everyone is done. Tasks are handed out
// dynamically so that, if a neighbour's process preempts one thread, the other takes over.
void gemm_parallel(const Job& j) {
  int64_t threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  const int64_t panels = ceil_div(j.N, kNR);
  if (panels >= kMinPanels * threads) {
    // A claim is a thread's whole block (op(A) is packed once per claim), so another thread
    // takes a block over only when its owner has not started it.
    shared_blocks(panels, ceil_div(panels, threads), [&](int64_t p0, int64_t p1) {
      serial_columns(j, p0 * kNR, std::min(j.N, p1 * kNR));
    });
    return;
  }
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

}  // namespace detail
}  // namespace fast
}  // namespace d2l
