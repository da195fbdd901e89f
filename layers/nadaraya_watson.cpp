// layers/nadaraya_watson.cpp — 10.2 Nadaraya-Watson kernel regression (sec_nadaraya-watson).
//
// Written as the book writes it, from core ops (repeat_interleave, broadcasting sub and mul,
// pow, softmax, bmm), so the gradient with respect to w comes from their backward passes.
#include "layers/nadaraya_watson.h"

#include "core/shape.h"  // check
#include "core/ops.h"

namespace d2l {

NWKernelRegression::NWKernelRegression() { w = register_parameter("w", rand({1})); }

namespace {

// Both layers take queries (n,), keys and values (n, no. of kv pairs).
void check_nw_args(const char* layer, const Tensor& queries, const Tensor& keys, const Tensor& values) {
  check(queries.defined() && keys.defined() && values.defined(), layer, "queries, keys and values must be defined");
  check(queries.ndim() == 1 && keys.ndim() == 2 && keys.shape() == values.shape() && keys.size(0) == queries.size(0),
        layer, "expected queries (n,), keys and values (n, no. of kv pairs), got queries ", queries.shape(), ", keys ",
        keys.shape(), ", values ", values.shape());
}

}  // namespace

Tensor NWKernelRegression::forward(const Tensor& queries, const Tensor& keys, const Tensor& values) {
  check_nw_args("NWKernelRegression", queries, keys, values);
  const int64_t K = keys.size(1);
  // Each query repeated once per key: q (no. of queries, no. of kv pairs), row i all x_i.
  const Tensor q = reshape(repeat_interleave(queries, K, 0), {-1, K});
  // Gaussian kernel scores -((x - x_i) w)² / 2, normalised over the keys of each row.
  // attention_weights: (no. of queries, no. of kv pairs)
  attention_weights = softmax(pow((q - keys) * w, 2.0f) * -0.5f);
  // (n, 1, K) x (n, K, 1) -> (n, 1, 1): each query's weighted average of its values.
  return reshape(bmm(unsqueeze(attention_weights, 1), unsqueeze(values, -1)), {-1});
}

NWAdaptiveKernelRegression::NWAdaptiveKernelRegression() {
  w = register_parameter("w", rand({1}));
  v = register_parameter("v", zeros({1}));
}

Tensor NWAdaptiveKernelRegression::width(const Tensor& queries) const { return w * exp(queries * v); }

Tensor NWAdaptiveKernelRegression::forward(const Tensor& queries, const Tensor& keys, const Tensor& values) {
  check_nw_args("NWAdaptiveKernelRegression", queries, keys, values);
  const int64_t K = keys.size(1);
  const Tensor q = reshape(repeat_interleave(queries, K, 0), {-1, K});
  // Each row's own width w(x), (n, 1), broadcast over that row's keys.
  attention_weights = softmax(pow((q - keys) * unsqueeze(width(queries), 1), 2.0f) * -0.5f);
  return reshape(bmm(unsqueeze(attention_weights, 1), unsqueeze(values, -1)), {-1});
}

}  // namespace d2l
