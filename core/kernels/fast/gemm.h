// core/kernels/fast/gemm.h — the fast tier's single-precision matrix multiply, behind its matmul,
// bmm, linear and GRU kernels (the book's torch.bmm is in every attention scoring function
// from sec_attention-scoring-functions on).
//
// Size letters (the same in every function below):
//   M  rows of op(A) and of C        N  columns of op(B) and of C       K  the summed (inner) dim
// Shapes, all contiguous row-major float32, no leading-dimension arguments:
//   C (M, N)
//   A (M, K) when !trans_a, or A stored (K, M) when trans_a     so op(A) = A or Aᵀ, always (M, K)
//   B (K, N) when !trans_b, or B stored (N, K) when trans_b     so op(B) = B or Bᵀ, always (K, N)
// The transpose flags let Q Kᵀ run without materialising Kᵀ: gemm(false, true, ...).
//
//   C  = op(A) op(B)   when !accumulate
//   C += op(A) op(B)   when accumulate   (backward adds into existing gradients)
// gemm's optional bias (N floats, only with !accumulate) is added to every row of the
// product: C = op(A) op(B) + 1 biasᵀ, nn.Linear's y = x Wᵀ + b in one pass over C (each
// element rounded as the product, then the bias added, as in two passes).
//
// Degenerate sizes are allowed: with M or N = 0 nothing is touched; with K = 0 the product is the
// empty sum, so C becomes 0 (or stays unchanged when accumulating). Negative sizes throw
// std::invalid_argument naming the function and the sizes.
//
// Determinism: each C element is summed over k in one fixed order that depends only on the sizes,
// never on the number of OpenMP threads, so results are bit-identical for any OMP_NUM_THREADS.
#pragma once
#include <cstdint>

namespace d2l {
namespace fast {

// Packed, cache-blocked, register-blocked (AVX-512 / AVX2+FMA / portable C++),
// OpenMP across tiles of C once the problem is large enough to repay a thread fork.
void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const float* A, const float* B, float* C,
          bool accumulate, const float* bias = nullptr);

// `batch` independent products, as torch.bmm: A_b = A + b*M*K, B_b = B + b*K*N, C_b = C + b*M*N,
// with the same trans/accumulate meaning per matrix. Small matrices (the book's attention has
// batches of 64..320 matrices of 10x10 .. 50x64) run one whole matrix per thread; big ones are
// split inside each matrix. Both paths give the same bits.
void gemm_batched(bool trans_a, bool trans_b, int64_t batch, int64_t M, int64_t N, int64_t K, const float* A,
                  const float* B, float* C, bool accumulate);

// out (cols x rows, row stride ld_out >= rows) = the transpose of in (rows x cols): the
// columns of out past `rows` are left as they were. (gemm_direct.cpp)
void transpose(int64_t rows, int64_t cols, const float* in, float* out, int64_t ld_out);

// The blocking gemm() uses on this build (it depends on the instruction set), so tests can aim
// shapes at every block edge: MR x NR register tile, KC inner-dim block, MC x NC cache blocks.
struct GemmBlocking {
  int64_t MR, NR, KC, MC, NC;
};
GemmBlocking gemm_blocking();
const char* gemm_micro_kernel();  // the micro-kernel compiled: "AVX-512", "AVX2" or "portable"

}  // namespace fast
}  // namespace d2l
