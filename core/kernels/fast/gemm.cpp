// core/kernels/fast/gemm.cpp — the fast GEMM's entry points: check the sizes, then pick a driver
// from the shape alone (gemm_small.cpp for thin or small products, gemm_stream.cpp for few rows
// and gemm_direct.cpp's gemm_short_sum for a short sum above the fork size, gemm_long_sum.cpp for
// a long sum into a small result, gemm_packed.cpp for the rest) and whether to share it among
// threads.
#include "core/kernels/fast/gemm.h"

#include <algorithm>

#include "core/shape.h"  // check
#include "core/kernels/fast/gemm_kernels.h"
#include "core/kernels/fast/parallel.h"
#ifdef _OPENMP
#include <omp.h>
#endif

namespace d2l {
namespace fast {

using namespace detail;

namespace {

// The kernel depends on the sizes alone (never on the thread count): that keeps results
// bit-identical for any OMP_NUM_THREADS. None of the small kernels is used above
// kGemmParallelMin, where gemm_parallel (the packed path, same bits as gemm_serial) runs.
// The tiny and unpacked kernels also take one or two rows (Bahdanau's single query per
// decoder step: 1 x 32 x 10 weights·values and its gradients, 1 x 32 x 640 for w_v's dW):
// gemm_small's loops ran those at 4-8 GFLOP/s, its B (N, K) case as scalar dot products.
bool is_narrow(int64_t M, int64_t N, bool trans_a) { return N <= kSmallN && !trans_a && M > kSmallM; }

// Whether gemm_one_thread's kernel for this shape adds a bias as it stores C: the unpacked
// one and the 16-row narrow one do (gemm_direct.cpp).
bool adds_bias(int64_t M, int64_t N, int64_t K, bool trans_a, bool trans_b) {
  if (is_narrow(M, N, trans_a)) return kNarrowBlocks && (trans_b || N == 1);
  return !use_tiny(M, N, K) && use_direct(M, N, K);
}
void gemm_one_thread(const Job& j) {
  if (is_narrow(j.M, j.N, j.trans_a)) gemm_narrow(j);
  else if (use_tiny(j.M, j.N, j.K)) gemm_tiny(j);
  else if (use_direct(j.M, j.N, j.K)) gemm_direct(j);
  else if (j.M <= kSmallM) gemm_small(j);
  else if (j.N <= kSmallN && !j.trans_a) gemm_narrow(j);
  else if (use_padded(j.M, j.N, j.K)) gemm_padded(j);
  else gemm_serial(j);
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
          bool accumulate, const float* bias) {
  check(!(bias && accumulate), "gemm", "a bias is only added to a product that overwrites C");
  if (bias && M > 0 && N > 0 && K == 0) {  // the empty sum plus the bias
    for (int64_t r = 0; r < M; ++r) std::copy(bias, bias + N, C + r * N);
    return;
  }
  if (!prepare("gemm", 1, M, N, K, C, accumulate)) return;
  if (!bias && use_long_sum(trans_a, trans_b, M, N, K)) {  // at any thread count
    gemm_long_sum(Job{trans_a, trans_b, M, N, K, A, B, C, accumulate});
    return;
  }
  const bool one_thread =
      M <= kSmallM || (N <= kSmallN && !trans_a) || double(M) * double(N) * double(K) < kGemmParallelMin;
  // Some kernels add the bias as they store C (no second pass over C, which cost 10% of a
  // 640 x 32 -> 201 Linear and 30% of a 640 x 32 -> 1); every other path gets it added below.
  if (bias && one_thread && adds_bias(M, N, K, trans_a, trans_b)) {
    gemm_one_thread(Job{trans_a, trans_b, M, N, K, A, B, C, false, bias});
    return;
  }
  if (!one_thread && use_stream(M, N, K)) {  // few rows: no packing (gemm_stream.cpp)
    gemm_stream(Job{trans_a, trans_b, M, N, K, A, B, C, accumulate, bias});
    return;
  }
  if (!one_thread && use_short_sum(M, N, K)) {  // a short sum: no packing (gemm_direct.cpp)
    gemm_short_sum(Job{trans_a, trans_b, M, N, K, A, B, C, accumulate, bias});
    return;
  }
  const Job j{trans_a, trans_b, M, N, K, A, B, C, accumulate};
  // The size test sits here rather than in an if() clause on the pragma because even a
  // parallel region that does not fork costs ~0.4 us in libgomp (it sets up a team of one):
  // measured, that halves the speed of a 14 x 32 x 64 product, the size of one attention head.
  if (one_thread)
    gemm_one_thread(j);
  else
    gemm_parallel(j);
  if (!bias) return;
  parallel_for(M, M * N >= kParallelMin, [&](int64_t r) {
    for (int64_t q = 0; q < N; ++q) C[r * N + q] += bias[q];
  });
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
  if (use_long_sum(trans_a, trans_b, M, N, K)) {  // each matrix as gemm() computes it alone (gemm_long_sum.cpp)
    for (int64_t b = 0; b < batch; ++b) gemm_long_sum(job(b));
    return;
  }
  // Few big matrices: split each one over the threads. Otherwise one matrix per thread at a
  // time (no synchronisation inside a matrix). Both give identical bits, see gemm.h.
  if (M > kSmallM && !(N <= kSmallN && !trans_a) && work >= kGemmParallelMin && batch < 4 * T) {
    for (int64_t b = 0; b < batch; ++b) gemm_parallel(job(b));
    return;
  }
  const bool fork = work * double(batch) >= kGemmParallelMin;
  if (!fork && use_tiny(M, N, K) && !is_narrow(M, N, trans_a)) {  // attention heads: one lookup for all
    gemm_tiny_batch(job(0), batch);
    return;
  }
  parallel_for(batch, fork, [&](int64_t b) { gemm_one_thread(job(b)); });
}

GemmBlocking gemm_blocking() { return GemmBlocking{kMR, kNR, kKC, kMC, kNC}; }

const char* gemm_micro_kernel() { return kMicroKernel; }

}  // namespace fast
}  // namespace d2l
