// core/ops.h — every differentiable op the book's attention chapter needs.
//
// Each op checks its arguments (an error names the op and every shape involved), runs its
// forward kernel (core/kernels/seam.h) and records its backward right beside it, in the
// core/ops/*.cpp file named in each block below. Binary ops broadcast as PyTorch does (NumPy
// rules).
#pragma once
#include <vector>

#include "core/creation.h"
#include "core/tensor.h"

namespace d2l {

// --- dims (core/tensor.cpp) ------------------------------------------------------------------
int64_t numel_of(const Shape& shape);  // the product of the dims, checked against overflow
int64_t normalize_dim(int64_t dim, int64_t ndim, const char* op);  // -1 -> ndim-1, checked
// The same, for a dim of `shape` (or of shape with `extra` more dims, for unsqueeze and
// stack), naming the shape in the error.
int64_t normalize_dim(int64_t dim, const Shape& shape, const char* op, int64_t extra = 0);

// --- ops/elementwise.cpp --------------------------------------------------------------------
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor add(const Tensor& a, float s);
Tensor mul(const Tensor& a, float s);
Tensor rsub(float s, const Tensor& a);  // s - a
Tensor rdiv(float s, const Tensor& a);  // s / a
Tensor neg(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor pow(const Tensor& x, float p);
Tensor sqrt(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
// |x|: d|x|/dx = sign(x), 0 at x = 0 (and for NaN), as PyTorch's.
Tensor abs(const Tensor& x);

inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
inline Tensor operator+(const Tensor& a, float s) { return add(a, s); }
inline Tensor operator+(float s, const Tensor& a) { return add(a, s); }
inline Tensor operator-(const Tensor& a, float s) { return add(a, -s); }
inline Tensor operator-(float s, const Tensor& a) { return rsub(s, a); }
inline Tensor operator*(const Tensor& a, float s) { return mul(a, s); }
inline Tensor operator*(float s, const Tensor& a) { return mul(a, s); }
inline Tensor operator/(const Tensor& a, float s) { return mul(a, 1.0f / s); }
inline Tensor operator/(float s, const Tensor& a) { return rdiv(s, a); }
inline Tensor operator-(const Tensor& x) { return neg(x); }

// --- ops/reduce.cpp -------------------------------------------------------------------------
Tensor sum(const Tensor& x);                                   // all elements -> shape ()
Tensor sum(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor mean(const Tensor& x);
Tensor mean(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor max(const Tensor& x);                                   // gradient goes to the first max
Tensor max(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor argmax(const Tensor& x, int64_t dim, bool keepdim = false);  // indices as float, no grad

// --- ops/shape.cpp --------------------------------------------------------------------------
Tensor reshape(const Tensor& x, Shape shape);                  // one entry may be -1
Tensor permute(const Tensor& x, const std::vector<int64_t>& dims);
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1);
Tensor unsqueeze(const Tensor& x, int64_t dim);
Tensor squeeze(const Tensor& x, int64_t dim);
Tensor concat(const std::vector<Tensor>& xs, int64_t dim);     // torch.cat
Tensor stack(const std::vector<Tensor>& xs, int64_t dim);
Tensor slice(const Tensor& x, int64_t dim, int64_t start, int64_t end);  // x[..., start:end, ...]
Tensor select(const Tensor& x, int64_t dim, int64_t index);    // x[..., index, ...], dim removed
Tensor repeat(const Tensor& x, const std::vector<int64_t>& repeats);     // torch.Tensor.repeat (tile)
Tensor repeat_interleave(const Tensor& x, int64_t repeats, int64_t dim);
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);  // index holds integers
Tensor embedding(const Tensor& weight, const Tensor& indices);  // (V, d) gathered by indices -> (..., d)

// --- ops/matmul.cpp -------------------------------------------------------------------------
// 2-D (n, k) x (k, m); or (..., n, k) x (k, m) as Linear needs for 3-D inputs.
Tensor matmul(const Tensor& a, const Tensor& b);
// torch.bmm: (B, n, k) x (B, k, m) -> (B, n, m). With trans_b, b is (B, m, k) and is read
// transposed, so Q Kᵀ needs no copy; trans_a likewise reads a as (B, k, n).
Tensor bmm(const Tensor& a, const Tensor& b, bool trans_a = false, bool trans_b = false);
// nn.Linear's computation: x (..., in) times weightᵀ (weight is (out, in), as PyTorch stores
// it) plus bias (out,) if defined -> (..., out). One GEMM reading weight transposed.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias);

// --- ops/softmax.cpp ------------------------------------------------------------------------
Tensor softmax(const Tensor& x);       // over the last dim
Tensor log_softmax(const Tensor& x);   // over the last dim
// d2l.sequence_mask: X (batch, maxlen); entries at positions >= valid_len[b] become value.
Tensor sequence_mask(const Tensor& X, const Tensor& valid_len, float value = 0.0f);
// d2l.masked_softmax: X (batch, no. of queries, no. of keys); valid_lens undefined (plain
// softmax), 1-D (batch,) or 2-D (batch, no. of queries). Masked scores become -1e6.
Tensor masked_softmax(const Tensor& X, const Tensor& valid_lens);

// --- ops/memory_efficient_attention.cpp ---------------------------------------------------
// softmax(queries keysᵀ / √d, masked as masked_softmax masks) values, computed block by
// block with an online softmax (10.7 ex. 5): the same result and gradients as
// DotProductAttention without dropout, with memory linear in the sequence length.
// queries (batch, Q, d), keys (batch, K, d), values (batch, K, dv), valid_lens undefined,
// (batch,) or (batch, Q) -> (batch, Q, dv).
Tensor memory_efficient_attention(const Tensor& queries, const Tensor& keys, const Tensor& values,
                                  const Tensor& valid_lens = Tensor());

// --- ops/nn.cpp -----------------------------------------------------------------------------
// Inverted dropout: in training each element is zeroed with probability p and the rest
// are scaled by 1/(1-p); outside training (or p == 0) it returns x itself.
Tensor dropout(const Tensor& x, float p, bool training);
// Normalises over the trailing dims whose sizes are normalized_shape; gamma and beta have
// that shape (either may be undefined for no affine part).
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& gamma,
                  const Tensor& beta, float eps = 1e-5f);
// nn.CrossEntropyLoss(reduction='none'): logits (..., C), labels (...) holding class ids;
// returns the per-element loss with the labels' shape.
Tensor softmax_cross_entropy(const Tensor& logits, const Tensor& labels);

// --- ops/compare.cpp ------------------------------------------------------------------------
// torch.eq, ne, lt, le, gt, ge: 1 where the comparison holds, else 0, as floats, broadcast
// as the arithmetic ops are. No gradient flows through them (the result never requires
// grad). NaN compares unequal to everything, itself included.
Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor eq(const Tensor& a, float b);
Tensor ne(const Tensor& a, float b);
Tensor lt(const Tensor& a, float b);
Tensor le(const Tensor& a, float b);
Tensor gt(const Tensor& a, float b);
Tensor ge(const Tensor& a, float b);
// torch.isclose: 1 where |a - b| <= atol + rtol * |b| (a and b broadcast), computed in float32
// as PyTorch does; equal infinities are close, NaN is close to nothing unless equal_nan. No
// gradient.
Tensor isclose(const Tensor& a, const Tensor& b, float rtol = 1e-5f, float atol = 1e-8f, bool equal_nan = false);
// torch.allclose: isclose holds for every element.
bool allclose(const Tensor& a, const Tensor& b, float rtol = 1e-5f, float atol = 1e-8f, bool equal_nan = false);
// The book's d2l.accuracy (3.6, softmax regression): the number of correct predictions (a
// count, not a fraction). y_hat (n, num_classes) is reduced by argmax over dim 1 first; a
// y_hat of one column or 1-D holds the predicted labels already. y holds the labels, with
// the shape of the predictions.
double accuracy(const Tensor& y_hat, const Tensor& y);

}  // namespace d2l
