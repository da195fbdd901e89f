// tools/browser/backward.cpp — the entry points of the pages' backward view (tools/browser/
// backward.js): the backward pass of 10.3's DotProductAttention or 10.5's MultiHeadAttention on
// the reader's input, step by step, and its finite-difference check. Arguments in, JSON out;
// the computation is tools/programs/backward_steps/attention_backward.cpp, which
// build/tools/backward_steps runs natively on the same input.
#include <stdexcept>
#include <string>

#include "tools/browser/json_out.h"
#include "tools/programs/backward_steps/attention_backward.h"

namespace {

std::string answer;  // the last result, returned to JavaScript as a C string (valid until the next call)

d2l::AttentionBackwardRequest request(const char* layer, const char* queries, const char* keys, const char* values,
                                      const char* valid_lens, int row, int col, int num_hiddens, int num_heads,
                                      int seed) {
  // The fields in their declared order (attention_backward.h).
  return {layer, queries, keys, values, valid_lens, row, col, num_hiddens, num_heads, seed};
}

template <class F>
const char* reply(F body) {
  try {
    answer = body();
  } catch (const std::exception& e) {
    answer = d2l::browser::JsonOut().str("error", e.what()).done();
  }
  return answer.c_str();
}

}  // namespace

extern "C" {
// The forward, the graph and every backward step (attention_backward_json); col -1 differentiates
// the sum of output row `row`.
const char* d2l_backward(const char* layer, const char* queries, const char* keys, const char* values,
                         const char* valid_lens, int row, int col, int num_hiddens, int num_heads, int seed) {
  return reply([&] {
    return d2l::attention_backward_json(
        request(layer, queries, keys, values, valid_lens, row, col, num_hiddens, num_heads, seed));
  });
}
// The same gradients by central differences (attention_gradcheck_json).
const char* d2l_backward_gradcheck(const char* layer, const char* queries, const char* keys, const char* values,
                                   const char* valid_lens, int row, int col, int num_hiddens, int num_heads,
                                   int seed) {
  return reply([&] {
    return d2l::attention_gradcheck_json(
        request(layer, queries, keys, values, valid_lens, row, col, num_hiddens, num_heads, seed));
  });
}
}
