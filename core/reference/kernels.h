// core/reference/kernels.h — the reference tier: every kernel of the seam (core/kernels.h,
// where each one's sizes and shapes are written out) as plain loops, in d2l::reference.
#pragma once
#include <cstdint>
#include <vector>

#include "core/allocator.h"
#include "core/kernels.h"

namespace d2l {
namespace reference {

using kernels::Binary;
using kernels::Broadcast;
using kernels::Compare;
using kernels::Unary;

// elementwise.cpp
void unary_forward(float* y, const float* x, int64_t n, Unary f, float s);
void unary_backward(float* dx, const float* dy, const float* x, const float* y, int64_t n, Unary f, float s);
void binary_forward(float* y, const float* a, const float* b, const Broadcast& shapes, Binary op);
void binary_backward(float* da, float* db, const float* dy, const float* a, const float* b, const Broadcast& shapes,
                     Binary op);
void compare_forward(float* y, const float* a, const float* b, const Broadcast& shapes, Compare op);
void isclose_forward(float* y, const float* a, const float* b, const Broadcast& shapes, float rtol, float atol,
                     bool equal_nan);
void sum_to_forward(float* y, const float* x, const Shape& x_shape, const Shape& y_shape);
void sum_to_backward(float* dx, const float* dy, const Shape& x_shape,
                     const Shape& y_shape);
// reduce.cpp
void sum_forward(float* y, const float* x, int64_t outer, int64_t n, int64_t inner, float scale);
void sum_backward(float* dx, const float* dy, int64_t outer, int64_t n, int64_t inner, float scale);
void max_forward(float* values, int64_t* where, const float* x, int64_t outer, int64_t n, int64_t inner);
void max_backward(float* dx, const float* dy, const int64_t* where, int64_t outer, int64_t n, int64_t inner);
// softmax.cpp
void masked_softmax_forward(float* y, const float* X, const int64_t* valid_lens, int64_t B, int64_t Q, int64_t K,
                            bool per_query);
void masked_softmax_backward(float* dX, const float* dy, const float* y, const int64_t* valid_lens, int64_t B,
                             int64_t Q, int64_t K, bool per_query);
void sequence_mask_forward(float* y, const float* X, const int64_t* valid_len, int64_t B, int64_t T, int64_t I,
                           float value);
void sequence_mask_backward(float* dX, const float* dy, const int64_t* valid_len, int64_t B, int64_t T, int64_t I);
void softmax_forward(float* y, const float* x, int64_t R, int64_t C);
void softmax_backward(float* dx, const float* dy, const float* y, int64_t R, int64_t C);
void log_softmax_forward(float* y, const float* x, int64_t R, int64_t C);
void log_softmax_backward(float* dx, const float* dy, const float* y, int64_t R, int64_t C);
// matmul.cpp
void matmul_forward(float* C, const float* A, const float* B, int64_t batch, int64_t M, int64_t N, int64_t K,
                    bool trans_a, bool trans_b);
void matmul_backward(float* dA, float* dB, const float* dC, const float* A, const float* B, int64_t batch, int64_t M,
                     int64_t N, int64_t K, bool trans_a, bool trans_b);
void linear_forward(float* y, const float* x, const float* W, const float* b, int64_t M, int64_t N, int64_t K);
void linear_backward(float* dx, float* dW, float* db, const float* dy, const float* x, const float* W, int64_t M,
                     int64_t N, int64_t K);
// nn.cpp
void dropout_forward(float* y, const float* x, int64_t n, uint64_t key, uint32_t threshold, float scale);
void dropout_backward(float* dx, const float* dy, int64_t n, uint64_t key, uint32_t threshold, float scale);
void layer_norm_forward(float* y, float* xhat, float* rstd, const float* x, const float* gamma, const float* beta,
                        int64_t R, int64_t N, float eps);
void layer_norm_backward(float* dx, float* dgamma, float* dbeta, const float* dy, const float* xhat, const float* rstd,
                         const float* gamma, int64_t R, int64_t N);
void softmax_cross_entropy_forward(float* loss, float* prob, const float* logits, const int64_t* label, int64_t R,
                                   int64_t C);
void softmax_cross_entropy_backward(float* dlogits, const float* dloss, const float* prob, const int64_t* label,
                                    int64_t R, int64_t C);
// gru.cpp
void gru_forward(float* H, float* gates, float* cand, const float* gi, const float* h0, const float* W, const float* b,
                 int64_t T, int64_t B, int64_t D, bool keep_all);
void gru_backward(float* dgi, float* dh0, float* dW, float* db, float* gates, const float* cand, const float* H,
                  const float* dH, const float* h0, const float* W, int64_t T, int64_t B, int64_t D);
// allocator.cpp: tensor memory (core/allocator.h)
float* allocate_floats(size_t n);
void release_floats(float* p, size_t n);
AllocatorStats allocator_stats();
void allocator_trim();
void* allocate_object(size_t bytes);
void release_object(void* p, size_t bytes);

}  // namespace reference
}  // namespace d2l
