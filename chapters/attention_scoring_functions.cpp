// chapters/attention_scoring_functions.cpp — 10.3 注意力评分函数 / Attention Scoring Functions
// (sec_attention-scoring-functions).
//
// Prints, in the book's order: masked_softmax on rand(2, 2, 4) with valid_lens [2, 3] and
// [[1, 3], [2, 4]]; AdditiveAttention's and DotProductAttention's outputs on the book's toy
// inputs; the path of each figure. Writes additive_attention.png and dot_product_attention.png
// (Keys × Queries heatmaps of the weights) under --out (default out/attention_scoring_functions/).
// The random inputs come from the seeded generator, so the masked_softmax numbers differ from
// the book's; the attention outputs do not depend on them (all keys are equal).
// Options: chapters/run/attention_scoring_functions.cpp; exercises (--ex N): chapters/exercises/.
#include <cstdio>
#include <string>

#include "core/ops.h"
#include "core/tensor.h"
#include "layers/attention_scoring_functions.h"
#include "tools/d2l/cli/section.h"
#include "tools/d2l/figures/figures.h"

using namespace d2l;

void attention_scoring_functions() {
  // ------------------------------------------------------------------------------------
  print_banner("掩蔽softmax操作 / Masked Softmax Operation");
  // Two (2, 4) score matrices with valid lengths 2 and 3: entries beyond them become 0.
  std::printf("%s\n", str(masked_softmax(rand({2, 2, 4}), tensor({2, 3}))).c_str());
  // A 2-D valid_lens gives one length per row of each matrix.
  std::printf("%s\n", str(masked_softmax(rand({2, 2, 4}), tensor({{1, 3}, {2, 4}}))).c_str());

  // ------------------------------------------------------------------------------------
  print_banner("加性注意力 / Additive Attention");
  // queries (2, 1, 20), keys (2, 10, 2), values (2, 10, 4): the two value matrices of the
  // minibatch are identical.
  Tensor queries = normal(0.0f, 1.0f, {2, 1, 20});
  const Tensor keys = ones({2, 10, 2});
  const Tensor values = repeat(reshape(arange(40), {1, 10, 4}), {2, 1, 1});
  const Tensor valid_lens = tensor({2, 6});
  AdditiveAttention attention(2, 20, 8, 0.1f);
  attention.eval();
  std::printf("%s\n", str(attention(queries, keys, values, valid_lens)).c_str());
  // The keys are all equal, so the weights are uniform over the valid keys.
  std::string path = figure_path("additive_attention.png");
  show_heatmaps(reshape(attention.attention_weights, {1, 1, 2, 10}), "Keys", "Queries", {}, path);
  print_saved(path);

  // ------------------------------------------------------------------------------------
  print_banner("缩放点积注意力 / Scaled Dot-Product Attention");
  queries = normal(0.0f, 1.0f, {2, 1, 2});  // the same length d = 2 as the keys
  DotProductAttention dot_attention(0.5f);
  dot_attention.eval();
  std::printf("%s\n", str(dot_attention(queries, keys, values, valid_lens)).c_str());
  path = figure_path("dot_product_attention.png");
  show_heatmaps(reshape(dot_attention.attention_weights, {1, 1, 2, 10}), "Keys", "Queries", {}, path);
  print_saved(path);
}

int main(int argc, char** argv) {
  return run_section("attention_scoring_functions", argc, argv, attention_scoring_functions);
}
