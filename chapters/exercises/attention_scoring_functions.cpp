// chapters/exercises/attention_scoring_functions.cpp — the exercises of 10.3 注意力评分函数 /
// Attention Scoring Functions, run by build/chapters/attention_scoring_functions --ex N
// (tools/d2l/cli/exercises.h).
//
//   --ex 1  the toy example with keys that are not all equal (keys ~ N(0, 1)): additive and
//           scaled dot-product attention on the same keys and values. Prints both outputs
//           and the largest difference between them, with equal keys (the book's: 0) and
//           with unequal ones; writes ex1_additive_attention.png and
//           ex1_dot_product_attention.png (each: equal keys left, unequal keys right).
//   --ex 2  a scoring function for queries and keys of different lengths from matrix products
//           only: BilinearAttention, a(q, k) = qᵀ W k, on the toy inputs (queries of length
//           20, keys of length 2) with equal and with unequal keys; prints the layer, the
//           outputs and weights, writes ex2_bilinear_attention.png. Trained in 10.4's model:
//           bahdanau_attention --scoring bilinear.
//   --ex 3  the vector sum as a score for equal lengths, Σ (q + k): two different queries
//           against the same N(0, 1) keys; prints their scores and weights beside scaled dot
//           product's, and the largest difference between the two queries' weights (0 for
//           the sum: the query's part cancels in the softmax); writes ex3_sum_score.png.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "core/ops.h"
#include "core/tensor.h"
#include "layers/attention_scoring_functions.h"
#include "layers/exercises/attention_scoring_functions.h"
#include "tools/d2l/cli/exercises.h"
#include "tools/d2l/figures/figures.h"

using namespace d2l;

namespace {

// Exercise 1: with equal keys every score of a query is the same, whatever the scoring
// function, so both weight rows are uniform over the valid keys and both outputs are the
// plain average of the valid values. Keys that differ get different scores, and the two
// functions score them differently (an MLP of q and k against q·k/√d), so the weights and
// the outputs part.
void exercise_1(const CliArgs&, const std::string& out) {
  print_banner("练习 1 / Exercise 1: keys that are not all equal");
  const Tensor values = repeat(reshape(arange(40), {1, 10, 4}), {2, 1, 1});
  const Tensor valid_lens = tensor({2, 6});
  AdditiveAttention additive(2, 20, 8, 0.1f);
  additive.eval();
  DotProductAttention dot_product(0.5f);
  dot_product.eval();
  const Tensor queries_additive = normal(0.0f, 1.0f, {2, 1, 20}), queries_dot = normal(0.0f, 1.0f, {2, 1, 2});
  std::vector<Tensor> maps;
  for (const bool equal : {true, false}) {
    const Tensor keys = equal ? ones({2, 10, 2}) : normal(0.0f, 1.0f, {2, 10, 2});
    std::printf("%s keys:\n", equal ? "equal (the book's)" : "unequal, N(0, 1)");
    const Tensor a = additive(queries_additive, keys, values, valid_lens);
    const Tensor d = dot_product(queries_dot, keys, values, valid_lens);
    std::printf("additive attention:\n%s\n", str(a).c_str());
    std::printf("scaled dot-product attention:\n%s\n", str(d).c_str());
    float largest = 0.0f;
    for (const float x : (a - d).to_vector()) largest = std::max(largest, std::fabs(x));
    std::printf("largest |additive - dot product|: %.4f\n", largest);
    maps.push_back(reshape(additive.attention_weights, {2, 10}));
    maps.push_back(reshape(dot_product.attention_weights, {2, 10}));
  }
  // maps: equal additive, equal dot, unequal additive, unequal dot; one figure per scoring
  // function, equal keys left, unequal keys right.
  const std::vector<std::string> names = {"additive", "dot_product"};
  for (size_t f = 0; f < 2; ++f) {
    const std::string path = out + "/ex1_" + names[f] + "_attention.png";
    show_heatmaps(reshape(stack({maps[f], maps[2 + f]}, 0), {1, 2, 2, 10}), "Keys", "Queries",
                  {"equal keys", "unequal keys"}, {5.0f, 2.0f}, "Reds", path);
    print_saved(path);
  }
}

// Exercise 2: a score for queries and keys of different lengths from matrix products
// alone, the bilinear a(q, k) = qᵀ W k (BilinearAttention, layers/attention_scoring_functions.h),
// on the section's toy inputs: queries of length 20, keys of length 2, W (20, 2). The scores
// are two products, K Wᵀ and then Q (K Wᵀ)ᵀ, with no tanh and no hidden layer. With the
// book's equal keys it gives the same average of the valid values as the other two; with
// unequal keys its weights differ from query to query.
void exercise_2(const CliArgs&, const std::string& out) {
  print_banner("练习 2 / Exercise 2: a bilinear score q W k for queries and keys of different lengths");
  const Tensor values = repeat(reshape(arange(40), {1, 10, 4}), {2, 1, 1});
  const Tensor valid_lens = tensor({2, 6});
  BilinearAttention attention(2, 20, 0.1f);
  attention.eval();
  std::cout << attention << "\n";
  const Tensor queries = normal(0.0f, 1.0f, {2, 1, 20});
  std::vector<Tensor> maps;
  for (const bool equal : {true, false}) {
    const Tensor keys = equal ? ones({2, 10, 2}) : normal(0.0f, 1.0f, {2, 10, 2});
    std::printf("%s keys:\n", equal ? "equal (the book's)" : "unequal, N(0, 1)");
    std::printf("bilinear attention:\n%s\n", str(attention(queries, keys, values, valid_lens)).c_str());
    std::printf("weights: %s\n", str(attention.attention_weights).c_str());
    maps.push_back(reshape(attention.attention_weights, {2, 10}));
  }
  const std::string path = out + "/ex2_bilinear_attention.png";
  show_heatmaps(reshape(stack(maps, 0), {1, 2, 2, 10}), "Keys", "Queries", {"equal keys", "unequal keys"},
                {5.0f, 2.0f}, "Reds", path);
  print_saved(path);
}

// Exercise 3: the vector sum as a score when queries and keys have one length d,
// a(q, k) = Σ_i (q_i + k_i) = Σ_i q_i + Σ_i k_i. The query's part is the same for every key,
// and a softmax over the keys does not change when one constant is added to all its scores:
// every query gets the same weights, those of the keys' sums alone. The score cannot express
// which key suits which query (a learned w_vᵀ(q + k) = w_vᵀ q + w_vᵀ k cancels the same way);
// the dot product's q·k couples the two.
void exercise_3(const CliArgs&, const std::string& out) {
  print_banner("练习 3 / Exercise 3: the vector sum q + k as a score");
  const int64_t d = 2;
  const Tensor keys = normal(0.0f, 1.0f, {1, 10, d});
  const Tensor values = reshape(arange(40), {1, 10, 4});
  const Tensor valid_lens = tensor({6});
  const Tensor key_sums = unsqueeze(sum(keys, -1), 1);  // Σ_i k_i: (1, 1, 10)
  std::vector<Tensor> sum_maps, dot_maps;
  for (const Tensor& q : {tensor({1.0f, 2.0f}, {1, 1, d}), tensor({-3.0f, 0.5f}, {1, 1, d})}) {
    std::printf("query %s\n", str(q).c_str());
    const Tensor scores = unsqueeze(sum(q, -1), -1) + key_sums;  // (1, 1, 10): Σ q_i + Σ k_i
    const Tensor w_sum = masked_softmax(scores, valid_lens);
    DotProductAttention dot(0.0f);
    dot.eval();
    dot(q, keys, values, valid_lens);
    std::printf("sum scores: %s\n", str(reshape(scores, {-1})).c_str());
    std::printf("sum weights: %s\n", str(reshape(w_sum, {-1})).c_str());
    std::printf("dot-product weights: %s\n", str(reshape(dot.attention_weights, {-1})).c_str());
    sum_maps.push_back(reshape(w_sum, {1, 10}));
    dot_maps.push_back(reshape(dot.attention_weights, {1, 10}));
  }
  auto largest_difference = [](const Tensor& a, const Tensor& b) {
    float m = 0.0f;
    for (const float x : (a - b).to_vector()) m = std::max(m, std::fabs(x));
    return m;
  };
  std::printf("largest weight difference between the two queries: sum %.6f, dot product %.6f\n",
              largest_difference(sum_maps[0], sum_maps[1]), largest_difference(dot_maps[0], dot_maps[1]));
  const std::string path = out + "/ex3_sum_score.png";
  show_heatmaps(reshape(stack({concat(sum_maps, 0), concat(dot_maps, 0)}, 0), {1, 2, 2, 10}), "Keys", "Queries",
                {"sum q + k", "scaled dot product"}, {5.0f, 2.0f}, "Reds", path);
  print_saved(path);
}

const ExerciseList exercises({
    {1, "keys that are not all equal: additive and scaled dot-product outputs and weight maps differ", exercise_1},
    {2, "a bilinear score q W k for queries and keys of different lengths, from matrix products alone", exercise_2},
    {3, "the vector sum q + k as a score: the query's part cancels in the softmax, every query gets the same "
        "weights", exercise_3}});

}  // namespace
