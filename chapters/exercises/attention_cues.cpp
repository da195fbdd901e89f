// chapters/exercises/attention_cues.cpp — the exercises of 10.1 注意力提示 / Attention Cues,
// run by build/chapters/attention_cues --ex N (tools/d2l/cli/exercises.h).
//
//   --ex 1  (the cues of machine translation) needs 10.4's trained model: it is
//           bahdanau_attention --cues, which prints which source token each target step
//           attends to; --ex 1 here names that command.
//   --ex 2  a random 10×10 matrix, softmax over each row, drawn as attention weights:
//           prints the weights and each row's sum and largest weight, writes
//           out/attention_cues/ex2_random_attention_weights.png. Randomness: the seeded
//           generator (--seed).
#include <cstdio>
#include <string>

#include "core/ops.h"
#include "core/tensor.h"
#include "tools/d2l/cli/exercises.h"
#include "tools/d2l/figures/figures.h"

using namespace d2l;

namespace {

// Exercise 2: softmax makes any real matrix a valid attention-weight matrix, one
// probability distribution over the keys per query (row): entries in (0, 1), rows summing
// to 1. Unlike the identity's, these weights are spread over every key.
void exercise_2(const CliArgs&, const std::string& out) {
  print_banner("练习 2 / Exercise 2: softmax over the rows of a random 10x10 matrix");
  const Tensor scores = normal(0.0f, 1.0f, {10, 10});  // one row of scores per query
  const Tensor attention_weights = softmax(scores);    // over the last dim: the keys
  std::printf("%s\n", str(attention_weights).c_str());
  const Tensor row_sums = sum(attention_weights, 1), row_max = max(attention_weights, 1);
  std::printf("row sums: %s\n", str(row_sums).c_str());
  std::printf("largest weight per row: %s\n", str(row_max).c_str());
  std::printf("smallest weight: %.4f, largest: %.4f (the identity's: 0 and 1)\n", -max(-attention_weights).item(),
              max(attention_weights).item());
  const std::string path = out + "/ex2_random_attention_weights.png";
  show_heatmaps(reshape(attention_weights, {1, 1, 10, 10}), "Keys", "Queries", {}, path);
  print_saved(path);
}

const ExerciseList exercises({
    {1, "volitional and nonvolitional cues in machine translation", "build/chapters/bahdanau_attention --cues"},
    {2, "softmax over a random 10x10 matrix, drawn as attention weights", exercise_2}});

}  // namespace
