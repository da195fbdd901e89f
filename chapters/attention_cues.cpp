// chapters/attention_cues.cpp — 10.1 注意力提示 / Attention Cues (sec_attention-cues).
//
// The section's one computation, "注意力的可视化" (visualizing attention): a heatmap of
// attention weights that are 1 only where the query and key are the same, the identity
// matrix, drawn with show_heatmaps (tools/d2l/figures/figures.h, the book's d2l.show_heatmaps).
//
// Prints: the banner and the path of the figure.
// Writes: out/attention_cues/attention_weights.png (Keys × Queries, Reds).
// Data: none. Randomness: none. Run time: well under a second.
//
// Exercises (--ex N runs exercise N of the section instead of the section's code):
//   --ex 1  (the cues of machine translation) needs 10.4's trained model: it is
//           bahdanau_attention --cues, which prints which source token each target step
//           attends to; --ex 1 here names that command.
//   --ex 2  a random 10×10 matrix, softmax over each row, drawn as attention weights:
//           prints the weights and each row's sum and largest weight, writes
//           out/attention_cues/ex2_random_attention_weights.png. Randomness: the seeded
//           generator (--seed).
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "core/ops.h"
#include "core/tensor.h"
#include "tools/d2l/cli/cli_args.h"
#include "tools/d2l/cli/exercises.h"
#include "tools/d2l/figures/figures.h"

using namespace d2l;

namespace {

// Exercise 2: softmax makes any real matrix a valid attention-weight matrix, one
// probability distribution over the keys per query (row): entries in (0, 1), rows summing
// to 1. Unlike the identity's, these weights are spread over every key.
void exercise_2(const std::string& out) {
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

}  // namespace

int main(int argc, char** argv) {
  CliArgs args("attention_cues", "10.1 Attention Cues (sec_attention-cues): the identity-matrix attention heatmap.");
  const std::vector<Exercise> exercises = {
      {1, "volitional and nonvolitional cues in machine translation", "build/chapters/bahdanau_attention --cues"},
      {2, "softmax over a random 10x10 matrix, drawn as attention weights"}};
  add_exercise_option(args, exercises);
  add_chapter_options(args, "out/attention_cues");
  args.parse_or_exit(argc, argv);
  const int64_t ex = chosen_exercise(args, exercises);
  return run_reporting_errors([&] {
    const std::string out = apply_chapter_options(args);
    if (ex == 2) {
      exercise_2(out);
      return 0;
    }

    // ------------------------------------------------------------------------------------
    print_banner("注意力的可视化 / Visualization of Attention");
    // show_heatmaps takes (rows of plots, columns of plots, no. of queries, no. of keys).
    const Tensor attention_weights = reshape(eye(10), {1, 1, 10, 10});
    const std::string path = out + "/attention_weights.png";
    show_heatmaps(attention_weights, "Keys", "Queries", {}, path);
    print_saved(path);
    return 0;
  });
}
