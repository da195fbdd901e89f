// chapters/exercises/multihead_attention.cpp — the exercises of 10.5 多头注意力 /
// Multi-Head Attention, run by build/chapters/multihead_attention --ex N
// (tools/d2l/cli/exercises.h).
//
//   --ex 1  each head's attention weights. With the book's all-ones inputs every head
//           scores every key the same and spreads its weight evenly over the valid keys, so
//           all heads look alike; here queries, keys and values are N(0, 1) (2, 4, 100) and
//           (2, 6, 100), valid_lens [3, 2], through the model's own (untrained, PyTorch's
//           default init) projections. Prints, per head, each query's most attended key and
//           its weight, and how far apart the heads' weights are (mean |w_i - w_j| over the
//           pairs of heads, against 0 for the all-ones inputs); writes ex1_heads.png, one
//           heatmap per (batch item, head). The 10.7 Transformer's heads after training are
//           drawn by its program (transformer: encoder_self_attention.png, ...).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/ops.h"
#include "core/tensor.h"
#include "layers/multihead_attention.h"
#include "layers/exercises/multihead_attention.h"
#include "tools/d2l/cli/exercises.h"
#include "tools/d2l/figures/figures.h"

using namespace d2l;

namespace {

// Exercise 1: the heads' weights on inputs that are not all equal. Each head scores the keys
// through its own slice of W_q and W_k, so on varied inputs each head ranks the keys its own
// way; on all-ones inputs every key gets the same score in every head (every row of the
// keys is the same vector), so all heads are uniform over the valid keys.
void exercise_1(const CliArgs&, const std::string& out) {
  const int64_t num_hiddens = 100, num_heads = 5;  // the section's
  print_banner("练习 1：可视化各个头的注意力权重 / Exercise 1: the Heads' Attention Weights");
  MultiHeadAttention attention(num_hiddens, num_hiddens, num_hiddens, num_hiddens, num_heads, 0.5f);
  attention.eval();
  const int64_t batch_size = 2, num_queries = 4, num_kvpairs = 6;
  const Tensor valid_lens = tensor({3, 2});
  // Mean |w_i - w_j| over every pair of heads, queries and keys: 0 when all heads agree.
  auto spread = [&](const Tensor& heads) {
    const std::vector<float> w = heads.to_vector();
    const int64_t per_head = num_queries * num_kvpairs;
    double total = 0;
    int64_t count = 0;
    for (int64_t b = 0; b < batch_size; ++b)
      for (int64_t i = 0; i < num_heads; ++i)
        for (int64_t j = i + 1; j < num_heads; ++j)
          for (int64_t e = 0; e < per_head; ++e, ++count)
            total += std::fabs(w[static_cast<size_t>((b * num_heads + i) * per_head + e)] -
                               w[static_cast<size_t>((b * num_heads + j) * per_head + e)]);
    return total / static_cast<double>(count);
  };
  const Tensor X1 = ones({batch_size, num_queries, num_hiddens}), Y1 = ones({batch_size, num_kvpairs, num_hiddens});
  attention(X1, Y1, Y1, valid_lens);
  const double ones_spread = spread(attention.attention->attention_weights);
  const Tensor X = normal(0.0f, 1.0f, {batch_size, num_queries, num_hiddens});
  const Tensor Y = normal(0.0f, 1.0f, {batch_size, num_kvpairs, num_hiddens});
  attention(X, Y, Y, valid_lens);
  // (batch_size * num_heads, no. of queries, no. of kv pairs), row b * num_heads + i being
  // head i of item b -> a (batch_size, num_heads) grid.
  const Tensor heads =
      reshape(attention.attention->attention_weights, {batch_size, num_heads, num_queries, num_kvpairs});
  const std::vector<float> w = heads.to_vector();
  for (int64_t b = 0; b < batch_size; ++b) {
    std::printf("item %lld (valid keys %lld): each query's most attended key (weight)\n", static_cast<long long>(b + 1),
                static_cast<long long>(b == 0 ? 3 : 2));
    for (int64_t i = 0; i < num_heads; ++i) {
      std::printf("  head %lld:", static_cast<long long>(i + 1));
      for (int64_t q = 0; q < num_queries; ++q) {
        const auto row = w.begin() + ((b * num_heads + i) * num_queries + q) * num_kvpairs;
        const int64_t k = std::max_element(row, row + num_kvpairs) - row;
        std::printf(" q%lld->k%lld (%.3f)", static_cast<long long>(q + 1), static_cast<long long>(k + 1),
                    row[k]);
      }
      std::printf("\n");
    }
  }
  std::printf("mean |w_i - w_j| between heads: %.4f (all-ones inputs: %.4f)\n", spread(heads), ones_spread);
  std::vector<std::string> titles;
  for (int64_t i = 0; i < num_heads; ++i) titles.push_back("Head " + std::to_string(i + 1));
  const std::string path = out + "/ex1_heads.png";
  show_heatmaps(heads, "Keys", "Queries", titles, {7.0f, 2.5f}, "Reds", path);
  print_saved(path);
}

const ExerciseList exercises({
    {1, "each head's attention weights on N(0, 1) inputs: the heads differ (all-ones inputs make them alike)",
     exercise_1},
    {2, "head importance", "build/chapters/transformer --head-importance"}});

}  // namespace
