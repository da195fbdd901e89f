// layers/nadaraya_watson.h — 10.2 注意力汇聚：Nadaraya-Watson 核回归 / Attention Pooling:
// Nadaraya-Watson Kernel Regression (sec_nadaraya-watson; the book's file is spelt
// nadaraya-waston.md).
#pragma once

#include "core/module.h"
#include "core/tensor.h"

namespace d2l {

// Parametric attention pooling with a Gaussian kernel and one learnable width w
// (eq_nadaraya-watson-gaussian-para):
//   f(x) = Σ_i softmax_i(-((x - x_i) w)² / 2) y_i
// The query x is a test (or training) input, the keys x_i and values y_i are training
// inputs and outputs. w starts U[0, 1) as the book's torch.rand((1,)).
//   queries (no. of queries,); keys, values (no. of queries, no. of kv pairs)
//   -> (no. of queries,)
class NWKernelRegression : public Module {
 public:
  NWKernelRegression();
  Tensor forward(const Tensor& queries, const Tensor& keys, const Tensor& values);
  Tensor operator()(const Tensor& queries, const Tensor& keys, const Tensor& values) {
    return forward(queries, keys, values);
  }

  Tensor w;                  // (1,)
  Tensor attention_weights;  // the last forward's: (no. of queries, no. of kv pairs)
};

}  // namespace d2l
