// core/ops/memory_efficient_attention.cpp — memory_efficient_attention (10.7 exercise 5): the scaled
// dot-product attention of 10.3 (DotProductAttention without dropout) as one op whose
// forward and backward never hold the (batch, no. of queries, no. of keys) weights.
//
// DotProductAttention keeps the scores and the weights for its backward: two tensors of
// Q x K floats per batch row, quadratic in the sequence length. This op keeps the output and
// two numbers per query (its largest score and its softmax's sum) and recomputes the weights block by block
// in the backward; its kernels (core/kernels/reference/memory_efficient_attention.cpp, read that first, and
// core/kernels/fast/memory_efficient_attention.cpp) run the softmax online, with a running max and sum.
#include <cmath>
#include <vector>

#include "core/autograd.h"
#include "core/kernels/memory_efficient_attention.h"
#include "core/ops.h"

namespace d2l {

// queries (batch, Q, d), keys (batch, K, d), values (batch, K, dv), valid_lens undefined,
// (batch,) or (batch, Q) as masked_softmax takes them -> (batch, Q, dv).
Tensor memory_efficient_attention(const Tensor& queries, const Tensor& keys, const Tensor& values,
                                  const Tensor& valid_lens) {
  OpScope scope("memory_efficient_attention");  // names the op if an input is undefined
  OpCall op("memory_efficient_attention", {queries, keys, values, valid_lens});
  const char* name = "memory_efficient_attention";
  check(queries.ndim() == 3 && keys.ndim() == 3 && values.ndim() == 3, name,
        "queries, keys and values must be 3-D (batch, no. of queries or keys, features), got queries ",
        queries.shape(), ", keys ", keys.shape(), ", values ", values.shape());
  const int64_t B = queries.size(0), Q = queries.size(1), D = queries.size(2);
  const int64_t K = keys.size(1), Dv = values.size(2);
  check(keys.size(0) == B && values.size(0) == B && keys.size(2) == D && values.size(1) == K && K > 0, name,
        "expected keys (", B, ", K > 0, ", D, ") and values (", B, ", K, dv) for queries ", queries.shape(),
        ", got keys ", keys.shape(), ", values ", values.shape());
  std::vector<int64_t> lens;
  bool per_query = false;
  if (valid_lens.defined()) {
    const Shape& vl = valid_lens.shape();
    per_query = valid_lens.ndim() == 2 && vl[0] == B && vl[1] == Q;
    check(per_query || (valid_lens.ndim() == 1 && vl[0] == B), name,
          "valid_lens must be (batch,) or (batch, no. of queries): valid_lens ", vl, ", queries ", queries.shape());
    const float* data = valid_lens.data();
    for (int64_t i = 0; i < valid_lens.numel(); ++i) {
      check(data[i] >= 0 && data[i] == std::floor(data[i]), name, "valid length ", data[i], " at index ", i,
            " must be a whole number >= 0 (valid_lens ", vl, ")");
      lens.push_back(static_cast<int64_t>(data[i]));
    }
  }
  Tensor y = empty({B, Q, Dv});
  // Each query row's largest score and Σ e^{score − max}: all the backward keeps besides y.
  Tensor row_max = empty({B, Q}), row_sum = empty({B, Q});
  kernels::memory_efficient_attention_forward(y.data(), row_max.data(), row_sum.data(), queries.data(), keys.data(), values.data(),
                                              lens.empty() ? nullptr : lens.data(), B, Q, K, D, Dv, per_query);
  op.save_for_backward(queries, keys, values, y);  // and the row statistics, captured below
  return op.finish(y, [B, Q, K, D, Dv, per_query, lens = std::move(lens), row_max, row_sum](Node& node) {
    kernels::memory_efficient_attention_backward(
        node.input_grad(0), node.input_grad(1), node.input_grad(2), node.grad.get(), node.data.get(),
        row_max.data(), row_sum.data(), node.input_data(0), node.input_data(1), node.input_data(2),
        lens.empty() ? nullptr : lens.data(), B, Q, K, D, Dv, per_query);
  });
}

}  // namespace d2l
