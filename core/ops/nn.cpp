// core/ops/nn.cpp — the neural-network ops with their own numerics: dropout, layer_norm and
// softmax cross-entropy, on the seam's kernels (core/kernels/seam.h). Each keeps what its
// backward needs: the dropout key, x̂ and 1/std, the softmax.
#include <cmath>
#include <vector>

#include "core/autograd.h"
#include "core/kernels/nn.h"
#include "core/ops.h"
#include "core/random.h"

namespace d2l {

// Inverted dropout (4.6): keep each element with probability 1-p and scale it by 1/(1-p),
// so the expectation is unchanged and evaluation needs no rescaling. The mask is a pure
// function of the element index and one key drawn from the seeded generator
// (dropout_keeps, core/random.h): masks follow manual_seed, and backward recomputes the
// mask from the key instead of storing it.
Tensor dropout(const Tensor& x, float p, bool training) {
  OpScope scope("dropout");  // names the op if an input is undefined
  check(p >= 0.0f && p <= 1.0f, "dropout", "probability must be in [0, 1], got ", p);
  if (!training || p == 0.0f) return x;  // the identity, as nn.Dropout in eval mode
  OpCall op("dropout", {x});
  const int64_t n = x.numel();
  check(n < (int64_t{1} << 32), "dropout", "more than 2^32 elements: ", x.shape());
  const float scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
  // Element i is kept iff its hash >= threshold = p * 2^32. For p = 1 that does not fit in
  // 32 bits, so threshold 0 keeps everything and scale 0 zeroes it instead.
  const uint32_t threshold = p < 1.0f ? static_cast<uint32_t>(std::ldexp(static_cast<double>(p), 32)) : 0u;
  const uint64_t key = random_u64();
  Tensor y = empty(x.shape());
  kernels::dropout_forward(y.data(), x.data(), n, key, threshold, scale);
  op.save_for_backward();  // the backward reads only the gradient
  return op.finish(y, [n, key, threshold, scale](Node& node) {
    if (float* dx = node.input_grad(0)) kernels::dropout_backward(dx, node.grad.get(), n, key, threshold, scale);
  });
}

// Layer normalisation (10.7, sec_transformer; Ba et al. 2016) over the trailing dims: x
// viewed as (R, N) with N = prod(normalized_shape); each row is normalised to mean 0 and
// variance 1, then scaled by gamma and shifted by beta (either may be undefined).
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& gamma, const Tensor& beta, float eps) {
  OpCall op("layer_norm", {x, gamma, beta});
  const size_t k = normalized_shape.size();
  check(k >= 1 && x.shape().size() >= k && Shape(x.shape().end() - k, x.shape().end()) == normalized_shape,
        "layer_norm", "normalized_shape ", normalized_shape, " must be the trailing dims of x ", x.shape());
  check(!gamma.defined() || gamma.shape() == normalized_shape, "layer_norm", "gamma ", printable_shape(gamma),
        " must have normalized_shape ", normalized_shape);
  check(!beta.defined() || beta.shape() == normalized_shape, "layer_norm", "beta ", printable_shape(beta),
        " must have normalized_shape ", normalized_shape);
  const int64_t N = numel_of(normalized_shape), R = N ? x.numel() / N : 0;
  Tensor y = empty(x.shape()), xhat = empty(x.shape()), rstd = empty({R});  // x̂ and 1/std, kept for backward
  kernels::layer_norm_forward(y.data(), xhat.data(), rstd.data(), x.data(), gamma.defined() ? gamma.data() : nullptr,
                              beta.defined() ? beta.data() : nullptr, R, N, eps);
  return op.finish(y, [R, N, xhat, rstd](Node& node) {
    const float* g = node.inputs[1] ? node.input_data(1) : nullptr;
    kernels::layer_norm_backward(node.input_grad(0), node.input_grad(1), node.input_grad(2), node.grad.get(),
                                 xhat.data(), rstd.data(), g, R, N);
  });
}

// nn.CrossEntropyLoss(reduction='none'): logits (..., C), labels (...) holding class ids;
// loss = log Σ_c e^{z_c} − z_label per position, with the labels' shape.
Tensor softmax_cross_entropy(const Tensor& logits, const Tensor& labels) {
  OpCall op("softmax_cross_entropy", {logits, labels});
  check(logits.ndim() >= 1, "softmax_cross_entropy", "logits must be (..., num_classes), got ", logits.shape());
  const int64_t C = logits.shape().back(), R = labels.numel();
  const Shape lead(logits.shape().begin(), logits.shape().end() - 1);
  check(labels.shape() == lead, "softmax_cross_entropy", "labels ", labels.shape(), " must match logits ",
        logits.shape(), " without its last dim");
  std::vector<int64_t> label(static_cast<size_t>(R));
  const float* label_data = labels.data();
  for (int64_t r = 0; r < R; ++r) {
    const float f = label_data[r];
    check(std::isfinite(f) && f == std::floor(f), "softmax_cross_entropy", "label ", f, " at index ", r,
          " is not a whole number (class ids are integers stored as float; logits ", logits.shape(), ")");
    check(f >= 0 && f < C, "softmax_cross_entropy", "label ", f, " at index ", r, " is not a class id in [0, ", C,
          ") (logits ", logits.shape(), ")");
    label[r] = static_cast<int64_t>(f);
  }
  Tensor loss = empty(labels.shape()), prob = empty({R, C});  // the softmax, kept for backward
  kernels::softmax_cross_entropy_forward(loss.data(), prob.data(), logits.data(), label.data(), R, C);
  return op.finish(loss, [R, C, label = std::move(label), prob](Node& node) {
    if (float* dlogits = node.input_grad(0))
      kernels::softmax_cross_entropy_backward(dlogits, node.grad.get(), prob.data(), label.data(), R, C);
  });
}

}  // namespace d2l
