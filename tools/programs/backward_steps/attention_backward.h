// tools/programs/backward_steps/attention_backward.h — the backward pass of one attention layer
// on a reader's own input, step by step: 10.3's scaled dot-product attention (DotProductAttention,
// with masked_softmax) or 10.5's MultiHeadAttention. The forward runs on the given queries, keys,
// values and valid lengths (batch size 1); then one output element, or the sum of one output row,
// is differentiated, and every backward step is kept as the engine runs it
// (core/debug/backward_steps.h), with the lines of the source that step's op is written in.
// Beside it, the same gradients by central differences through the same forward.
//
// One computation for the companion pages (tools/browser/backward.cpp: the engine compiled to
// WebAssembly answers with this JSON) and for build/tools/backward_steps (the same numbers,
// natively), so the two can be compared number for number.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace d2l {

struct AttentionBackwardRequest {
  std::string layer = "dot";  // "dot": 10.3 DotProductAttention; "mha": 10.5 MultiHeadAttention
  // Rows of numbers, rows separated by ';' ("1 0; 0 1"): queries (no. of queries, query size),
  // keys (no. of kv pairs, key size), values (no. of kv pairs, value size).
  std::string queries, keys, values;
  // One valid length for every query, or one per query ("2 3").
  std::string valid_lens;
  int64_t row = 0;   // differentiate output[0, row, col], or with col = -1 the sum of that row
  int64_t col = -1;
  int64_t num_hiddens = 4, num_heads = 2;  // MultiHeadAttention's sizes
  int64_t seed = 0;                        // its weights: manual_seed(seed), then the layer's init
};

// The forward, the graph, every backward step and the inputs' and parameters' gradients, as
// JSON (the fields are described in attention_backward.cpp). Throws std::runtime_error naming
// the argument that is wrong.
std::string attention_backward_json(const AttentionBackwardRequest& request);

// The same gradients by central differences, (f(x + eps) - f(x - eps)) / 2 eps element by
// element through the same forward: {"eps", "gradients": [{"name", "shape", "data"}]}.
std::string attention_gradcheck_json(const AttentionBackwardRequest& request);

}  // namespace d2l
