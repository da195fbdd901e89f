// core/ops/softmax.cpp — softmax and sequence_mask, then the book's masked_softmax made of
// them (10.3, sec_attention-scoring-functions), and log_softmax. Declared in core/ops.h; each
// op checks its arguments and calls its kernels (core/kernels/softmax.h).
// core/kernels/reference/softmax.cpp writes masked_softmax_forward as the book's three steps:
//   valid_lens = torch.repeat_interleave(valid_lens, shape[1])   (or reshape(-1) when 2-D)
//   X = d2l.sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
//   return nn.functional.softmax(X.reshape(shape), dim=-1)
// and core/kernels/fast/softmax.cpp fuses them into one pass over each row.
#include <cmath>
#include <vector>

#include "core/autograd.h"
#include "core/kernels/softmax.h"

namespace d2l {
namespace {

// Valid lengths are floats, like the book's tensors: read as integers, each a whole number >= 0.
std::vector<int64_t> read_lengths(const Tensor& lens, const char* op, const Shape& x_shape) {
  const int64_t n = lens.numel();
  const float* data = lens.data();  // read once: a call per element cost more than the check
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const float f = data[i];
    check(f >= 0 && f == std::floor(f), op, "valid length ", f, " at index ", i,
          " must be a whole number >= 0 (valid_lens ", lens.shape(), ", X ", x_shape, ")");
    v[i] = static_cast<int64_t>(f);
  }
  return v;
}

}  // namespace

// softmax over the last dim: x viewed as R rows of C entries. The backward needs only the
// output y (∂y_j/∂x_i = y_j (δ_ij − y_i)).
Tensor softmax(const Tensor& x) {
  OpCall op("softmax", {x});
  check(x.ndim() >= 1, "softmax", "needs at least 1 dim, got shape ", x.shape());
  const int64_t C = x.shape().back(), R = C ? x.numel() / C : 0;
  Tensor y = empty(x.shape());
  kernels::softmax_forward(y.data(), x.data(), R, C);
  op.save_for_backward(y);
  return op.finish(y, [R, C](Node& node) {
    if (float* dx = node.input_grad(0)) kernels::softmax_backward(dx, node.grad.get(), node.data.get(), R, C);
  });
}

// d2l.sequence_mask: X (batch, maxlen, ...); steps t >= valid_len[b] along dim 1 are set to
// value. The kept entries pass their gradient through, the masked ones get none.
Tensor sequence_mask(const Tensor& X, const Tensor& valid_len, float value) {
  OpCall op("sequence_mask", {X, valid_len});
  check(X.ndim() >= 2, "sequence_mask", "X must be (batch, maxlen, ...), got ", X.shape());
  check(valid_len.ndim() == 1 && valid_len.numel() == X.shape()[0], "sequence_mask",
        "valid_len must be 1-D with one length per batch row: valid_len ", valid_len.shape(), ", X ", X.shape());
  std::vector<int64_t> len = read_lengths(valid_len, "sequence_mask", X.shape());
  const int64_t B = X.shape()[0], T = X.shape()[1], I = B * T != 0 ? X.numel() / (B * T) : 0;
  Tensor y = empty(X.shape());
  kernels::sequence_mask_forward(y.data(), X.data(), len.data(), B, T, I, value);
  return op.finish(y, [B, T, I, len = std::move(len)](Node& node) {
    if (float* dX = node.input_grad(0)) kernels::sequence_mask_backward(dX, node.grad.get(), len.data(), B, T, I);
  });
}

// d2l.masked_softmax: X (batch, no. of queries, no. of keys); valid_lens undefined (a plain
// softmax), (batch,) (one length per batch row, repeated over the queries) or (batch, no. of
// queries). Scores of keys at or past a row's valid length become -1e6, so they get weight 0,
// and a row with valid length 0 comes out uniform. A length beyond the no. of keys masks
// nothing, as in the book (predict_seq2seq passes the untruncated source length).
Tensor masked_softmax(const Tensor& X, const Tensor& valid_lens) {
  OpScope scope("masked_softmax");  // names the op if an input is undefined
  if (!valid_lens.defined()) return softmax(X);
  OpCall op("masked_softmax", {X, valid_lens});
  check(X.ndim() == 3, "masked_softmax", "X must be (batch, no. of queries, no. of keys), got ", X.shape());
  const int64_t B = X.shape()[0], Q = X.shape()[1], K = X.shape()[2];
  const bool per_batch = valid_lens.ndim() == 1 && valid_lens.shape()[0] == B;
  const bool per_query = valid_lens.ndim() == 2 && valid_lens.shape()[0] == B && valid_lens.shape()[1] == Q;
  check(per_batch || per_query, "masked_softmax", "valid_lens must be (batch,) or (batch, no. of queries): valid_lens ",
        valid_lens.shape(), ", X ", X.shape());
  std::vector<int64_t> lens = read_lengths(valid_lens, "masked_softmax", X.shape());
  Tensor y = empty(X.shape());
  kernels::masked_softmax_forward(y.data(), X.data(), lens.data(), B, Q, K, per_query);
  op.save_for_backward(y);
  return op.finish(y, [B, Q, K, per_query, lens = std::move(lens)](Node& node) {
    if (float* dX = node.input_grad(0))
      kernels::masked_softmax_backward(dX, node.grad.get(), node.data.get(), lens.data(), B, Q, K, per_query);
  });
}

// log_softmax over the last dim: y = x − log Σ e^x, computed without overflow.
Tensor log_softmax(const Tensor& x) {
  OpCall op("log_softmax", {x});
  check(x.ndim() >= 1, "log_softmax", "needs at least 1 dim, got shape ", x.shape());
  const int64_t C = x.shape().back(), R = C ? x.numel() / C : 0;
  Tensor y = empty(x.shape());
  kernels::log_softmax_forward(y.data(), x.data(), R, C);
  return op.finish(y, [R, C](Node& node) {
    if (float* dx = node.input_grad(0)) kernels::log_softmax_backward(dx, node.grad.get(), node.data.get(), R, C);
  });
}

}  // namespace d2l
