// core/kernels.cpp — the seam's dispatch: each kernel of core/kernels.h forwards to the
// tier this build chose. `make` compiles this file with D2L_FAST=1 (core/fast/), `make
// FAST=0` with D2L_FAST=0 (core/reference/); nothing else in the library depends on it.
#include "core/kernels.h"

#include <atomic>
#include <new>

#include "core/allocator.h"
#include "core/fast/kernels.h"
#include "core/reference/kernels.h"

#ifndef D2L_FAST
#define D2L_FAST 1
#endif

namespace d2l {

#if D2L_FAST
namespace tier = fast;
#else
namespace tier = reference;
#endif

// Tensor memory (core/allocator.h) comes from the same tier, after the failure hook.
namespace {
std::atomic<AllocationFailureHook> failure_hook{nullptr};
}  // namespace
void set_allocation_failure_hook(AllocationFailureHook hook) { failure_hook.store(hook); }
float* allocate_floats(size_t n) {
  const AllocationFailureHook refuse = failure_hook.load(std::memory_order_relaxed);
  if (refuse && refuse(n)) throw std::bad_alloc();
  return tier::allocate_floats(n);
}
void release_floats(float* p, size_t n) { tier::release_floats(p, n); }
AllocatorStats allocator_stats() { return tier::allocator_stats(); }
void allocator_trim() { tier::allocator_trim(); }
void* allocate_object(size_t bytes) { return tier::allocate_object(bytes); }
void release_object(void* p, size_t bytes) { tier::release_object(p, bytes); }

namespace kernels {

const char* tier_name() { return D2L_FAST ? "fast" : "reference"; }

void unary_forward(float* y, const float* x, int64_t n, Unary f, float s) {
  tier::unary_forward(y, x, n, f, s);
}
void unary_backward(float* dx, const float* dy, const float* x, const float* y, int64_t n, Unary f, float s) {
  tier::unary_backward(dx, dy, x, y, n, f, s);
}
void binary_forward(float* y, const float* a, const float* b, const Broadcast& shapes, Binary op) {
  tier::binary_forward(y, a, b, shapes, op);
}
void binary_backward(float* da, float* db, const float* dy, const float* a, const float* b, const Broadcast& shapes,
                     Binary op) {
  tier::binary_backward(da, db, dy, a, b, shapes, op);
}
void compare_forward(float* y, const float* a, const float* b, const Broadcast& shapes, Compare op) {
  tier::compare_forward(y, a, b, shapes, op);
}
void isclose_forward(float* y, const float* a, const float* b, const Broadcast& shapes, float rtol, float atol,
                     bool equal_nan) {
  tier::isclose_forward(y, a, b, shapes, rtol, atol, equal_nan);
}
void sum_to_forward(float* y, const float* x, const Shape& x_shape,
                    const Shape& y_shape) {
  tier::sum_to_forward(y, x, x_shape, y_shape);
}
void sum_to_backward(float* dx, const float* dy, const Shape& x_shape,
                     const Shape& y_shape) {
  tier::sum_to_backward(dx, dy, x_shape, y_shape);
}
void sum_forward(float* y, const float* x, int64_t outer, int64_t n, int64_t inner, float scale) {
  tier::sum_forward(y, x, outer, n, inner, scale);
}
void sum_backward(float* dx, const float* dy, int64_t outer, int64_t n, int64_t inner, float scale) {
  tier::sum_backward(dx, dy, outer, n, inner, scale);
}
void max_forward(float* values, int64_t* where, const float* x, int64_t outer, int64_t n, int64_t inner) {
  tier::max_forward(values, where, x, outer, n, inner);
}
void max_backward(float* dx, const float* dy, const int64_t* where, int64_t outer, int64_t n, int64_t inner) {
  tier::max_backward(dx, dy, where, outer, n, inner);
}
void softmax_forward(float* y, const float* x, int64_t R, int64_t C) {
  tier::softmax_forward(y, x, R, C);
}
void softmax_backward(float* dx, const float* dy, const float* y, int64_t R, int64_t C) {
  tier::softmax_backward(dx, dy, y, R, C);
}
void log_softmax_forward(float* y, const float* x, int64_t R, int64_t C) {
  tier::log_softmax_forward(y, x, R, C);
}
void log_softmax_backward(float* dx, const float* dy, const float* y, int64_t R, int64_t C) {
  tier::log_softmax_backward(dx, dy, y, R, C);
}
void sequence_mask_forward(float* y, const float* X, const int64_t* valid_len, int64_t B, int64_t T, int64_t I,
                           float value) {
  tier::sequence_mask_forward(y, X, valid_len, B, T, I, value);
}
void sequence_mask_backward(float* dX, const float* dy, const int64_t* valid_len, int64_t B, int64_t T, int64_t I) {
  tier::sequence_mask_backward(dX, dy, valid_len, B, T, I);
}
void masked_softmax_forward(float* y, const float* X, const int64_t* valid_lens, int64_t B, int64_t Q, int64_t K,
                            bool per_query) {
  tier::masked_softmax_forward(y, X, valid_lens, B, Q, K, per_query);
}
void masked_softmax_backward(float* dX, const float* dy, const float* y, const int64_t* valid_lens, int64_t B,
                             int64_t Q, int64_t K, bool per_query) {
  tier::masked_softmax_backward(dX, dy, y, valid_lens, B, Q, K, per_query);
}
void memory_efficient_attention_forward(float* O, float* m, float* s, const float* q, const float* k, const float* v,
                                        const int64_t* valid_lens, int64_t B, int64_t Q, int64_t K, int64_t D,
                                        int64_t Dv, bool per_query) {
  tier::memory_efficient_attention_forward(O, m, s, q, k, v, valid_lens, B, Q, K, D, Dv, per_query);
}
void memory_efficient_attention_backward(float* dq, float* dk, float* dv, const float* dO, const float* O,
                                         const float* m, const float* s, const float* q, const float* k, const float* v,
                                         const int64_t* valid_lens, int64_t B, int64_t Q, int64_t K, int64_t D,
                                         int64_t Dv, bool per_query) {
  tier::memory_efficient_attention_backward(dq, dk, dv, dO, O, m, s, q, k, v, valid_lens, B, Q, K, D, Dv, per_query);
}
void matmul_forward(float* C, const float* A, const float* B, int64_t batch, int64_t M, int64_t N, int64_t K,
                    bool trans_a, bool trans_b) {
  tier::matmul_forward(C, A, B, batch, M, N, K, trans_a, trans_b);
}
void matmul_backward(float* dA, float* dB, const float* dC, const float* A, const float* B, int64_t batch, int64_t M,
                     int64_t N, int64_t K, bool trans_a, bool trans_b) {
  tier::matmul_backward(dA, dB, dC, A, B, batch, M, N, K, trans_a, trans_b);
}
void linear_forward(float* y, const float* x, const float* W, const float* b, int64_t M, int64_t N, int64_t K) {
  tier::linear_forward(y, x, W, b, M, N, K);
}
void linear_backward(float* dx, float* dW, float* db, const float* dy, const float* x, const float* W, int64_t M,
                     int64_t N, int64_t K) {
  tier::linear_backward(dx, dW, db, dy, x, W, M, N, K);
}
void dropout_forward(float* y, const float* x, int64_t n, uint64_t key, uint32_t threshold, float scale) {
  tier::dropout_forward(y, x, n, key, threshold, scale);
}
void dropout_backward(float* dx, const float* dy, int64_t n, uint64_t key, uint32_t threshold, float scale) {
  tier::dropout_backward(dx, dy, n, key, threshold, scale);
}
void layer_norm_forward(float* y, float* xhat, float* rstd, const float* x, const float* gamma, const float* beta,
                        int64_t R, int64_t N, float eps) {
  tier::layer_norm_forward(y, xhat, rstd, x, gamma, beta, R, N, eps);
}
void layer_norm_backward(float* dx, float* dgamma, float* dbeta, const float* dy, const float* xhat, const float* rstd,
                         const float* gamma, int64_t R, int64_t N) {
  tier::layer_norm_backward(dx, dgamma, dbeta, dy, xhat, rstd, gamma, R, N);
}
void softmax_cross_entropy_forward(float* loss, float* prob, const float* logits, const int64_t* label, int64_t R,
                                   int64_t C) {
  tier::softmax_cross_entropy_forward(loss, prob, logits, label, R, C);
}
void softmax_cross_entropy_backward(float* dlogits, const float* dloss, const float* prob, const int64_t* label,
                                    int64_t R, int64_t C) {
  tier::softmax_cross_entropy_backward(dlogits, dloss, prob, label, R, C);
}
void adam_step(float* w, float* m, float* v, const float* g, int64_t n, float beta1, float beta2, float eps,
               float weight_decay, float step_size, float bc2_sqrt) {
  tier::adam_step(w, m, v, g, n, beta1, beta2, eps, weight_decay, step_size, bc2_sqrt);
}
void gru_forward(float* H, float* gates, float* cand, const float* gi, const float* h0, const float* W, const float* b,
                 int64_t T, int64_t B, int64_t D, bool keep_all) {
  tier::gru_forward(H, gates, cand, gi, h0, W, b, T, B, D, keep_all);
}
void gru_backward(float* dgi, float* dh0, float* dW, float* db, float* gates, const float* cand, const float* H,
                  const float* dH, const float* h0, const float* W, int64_t T, int64_t B, int64_t D) {
  tier::gru_backward(dgi, dh0, dW, db, gates, cand, H, dH, h0, W, T, B, D);
}

}  // namespace kernels
}  // namespace d2l
