// layers/nadaraya_watson.h — 10.2 注意力汇聚：Nadaraya-Watson 核回归 / Attention Pooling:
// Nadaraya-Watson Kernel Regression (sec_nadaraya-watson; the book's file is spelt
// nadaraya-waston.md).
#pragma once

#include "core/nn/layer.h"
#include "core/tensor.h"

namespace d2l {

// Parametric attention pooling with a Gaussian kernel and one learnable width w
// (eq_nadaraya-watson-gaussian-para):
//   f(x) = Σ_i softmax_i(-((x - x_i) w)² / 2) y_i
// The query x is a test (or training) input, the keys x_i and values y_i are training
// inputs and outputs. w starts U[0, 1) as the book's torch.rand((1,)).
//   queries (no. of queries,); keys, values (no. of queries, no. of kv pairs)
//   -> (no. of queries,)
class NWKernelRegression : public Layer<NWKernelRegression> {
 public:
  static constexpr const char* section = "10.2 NWKernelRegression";
  NWKernelRegression();
  Tensor forward(const Tensor& queries, const Tensor& keys, const Tensor& values);

  Tensor w;                  // (1,)
  Tensor attention_weights;  // the last forward's: (no. of queries, no. of kv pairs)
};

// A parametric pooling of our own design for the section's exercise 4: the Gaussian
// kernel's width depends on the query, so the pooling can average over many points where
// the function is flat and over few where it bends:
//   f(x) = Σ_i softmax_i(-((x - x_i) w(x))² / 2) y_i,   w(x) = w · exp(v x)
// Two parameters: w starts U[0, 1) as NWKernelRegression's, v starts 0, so training begins
// from the book's model (v = 0 is exactly NWKernelRegression). The kernel's bandwidth at x
// is 1 / w(x). Shapes as NWKernelRegression's:
//   queries (no. of queries,); keys, values (no. of queries, no. of kv pairs)
//   -> (no. of queries,)
class NWAdaptiveKernelRegression : public Layer<NWAdaptiveKernelRegression> {
 public:
  static constexpr const char* section = "10.2 NWAdaptiveKernelRegression";
  NWAdaptiveKernelRegression();
  Tensor forward(const Tensor& queries, const Tensor& keys, const Tensor& values);
  // w(x) for each query: (no. of queries,) -> (no. of queries,)
  Tensor width(const Tensor& queries) const;

  Tensor w, v;               // (1,) each
  Tensor attention_weights;  // the last forward's: (no. of queries, no. of kv pairs)
};

}  // namespace d2l
