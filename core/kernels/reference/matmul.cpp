// core/kernels/reference/matmul.cpp — every product (matmul, bmm, nn.Linear) through one textbook
// GEMM: C[i, j] = Σ_k op(A)[i, k] op(B)[k, j].
#include <vector>

#include "core/kernels/reference/kernels.h"

namespace d2l {
namespace reference {
namespace {

// One matrix: C (M, N) = op(A) (M, K) op(B) (K, N), or C += op(A) op(B) when accumulating.
// A transposed operand is stored the other way round: A (K, M), B (N, K). Row i of C is
// Σ_k op(A)[i, k] op(B)[k, :]: the rows of op(B) weighted by row i of op(A), added k by k,
// so every element sums its products in k order while the inner loop runs along a row of
// op(B) (which the compiler vectorises). A transposed B is first written out as op(B) = Bᵀ,
// so that its rows are rows in memory.
void gemm(float* C, const float* A, const float* B, int64_t M, int64_t N, int64_t K, bool trans_a, bool trans_b,
          bool accumulate) {
  std::vector<float> Bt;
  if (trans_b) {
    Bt.resize(static_cast<size_t>(K * N));
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < N; ++j) Bt[k * N + j] = B[j * K + k];
    B = Bt.data();
  }
  for (int64_t i = 0; i < M; ++i) {
    float* c = C + i * N;
    if (!accumulate)
      for (int64_t j = 0; j < N; ++j) c[j] = 0.0f;
    for (int64_t k = 0; k < K; ++k) {
      const float a = trans_a ? A[k * M + i] : A[i * K + k];  // op(A)[i, k]
      for (int64_t j = 0; j < N; ++j) c[j] += a * B[k * N + j];
    }
  }
}

}  // namespace

void matmul_forward(float* C, const float* A, const float* B, int64_t batch, int64_t M, int64_t N, int64_t K,
                    bool trans_a, bool trans_b) {
  for (int64_t b = 0; b < batch; ++b)
    gemm(C + b * M * N, A + b * M * K, B + b * K * N, M, N, K, trans_a, trans_b, false);
}

// From C = op(A) op(B):  d op(A) = dC op(B)ᵀ  (M, N)(N, K)  and  d op(B) = op(A)ᵀ dC  (K, M)(M, N).
// When A is stored transposed, dA = (d op(A))ᵀ = op(B) dCᵀ; likewise for B.
void matmul_backward(float* dA, float* dB, const float* dC, const float* A, const float* B, int64_t batch, int64_t M,
                     int64_t N, int64_t K, bool trans_a, bool trans_b) {
  for (int64_t b = 0; b < batch; ++b) {
    const float *a = A + b * M * K, *bm = B + b * K * N, *g = dC + b * M * N;
    if (dA && !trans_a) gemm(dA + b * M * K, g, bm, M, K, N, false, !trans_b, true);  // dA = dC op(B)ᵀ
    if (dA && trans_a) gemm(dA + b * M * K, bm, g, K, M, N, trans_b, true, true);     // dA = op(B) dCᵀ
    if (dB && !trans_b) gemm(dB + b * K * N, a, g, K, N, M, !trans_a, false, true);   // dB = op(A)ᵀ dC
    if (dB && trans_b) gemm(dB + b * K * N, g, a, N, K, M, true, trans_a, true);      // dB = dCᵀ op(A)
  }
}

// y = x Wᵀ + b: W is stored (N, K) as PyTorch stores it, so it is read transposed.
void linear_forward(float* y, const float* x, const float* W, const float* b, int64_t M, int64_t N, int64_t K) {
  gemm(y, x, W, M, N, K, false, true, false);
  if (b)
    for (int64_t r = 0; r < M; ++r)
      for (int64_t j = 0; j < N; ++j) y[r * N + j] += b[j];
}

void linear_backward(float* dx, float* dW, float* db, const float* dy, const float* x, const float* W, int64_t M,
                     int64_t N, int64_t K) {
  if (dx) gemm(dx, dy, W, M, K, N, false, false, true);  // dx += dy W     (M, N)(N, K)
  if (dW) gemm(dW, dy, x, N, K, M, true, false, true);   // dW += dyᵀ x    (N, M)(M, K)
  if (db)
    for (int64_t r = 0; r < M; ++r)
      for (int64_t j = 0; j < N; ++j) db[j] += dy[r * N + j];
}

}  // namespace reference
}  // namespace d2l
