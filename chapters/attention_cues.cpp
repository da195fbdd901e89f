// chapters/attention_cues.cpp — 10.1 注意力提示 / Attention Cues (sec_attention-cues).
//
// The section's one computation, "注意力的可视化" (visualizing attention): a heatmap of
// attention weights that are 1 only where the query and key are the same, the identity
// matrix, drawn with show_heatmaps (tools/d2l/figures/figures.h, the book's d2l.show_heatmaps).
// Prints the banner and the figure's path; writes attention_weights.png (Keys × Queries,
// Reds) under --out (default out/attention_cues/).
// Options: chapters/run/attention_cues.cpp; exercises (--ex N): chapters/exercises/.
#include <string>

#include "core/ops.h"
#include "core/tensor.h"
#include "tools/d2l/cli/section.h"
#include "tools/d2l/figures/figures.h"

using namespace d2l;

void attention_cues() {
  // ------------------------------------------------------------------------------------
  print_banner("注意力的可视化 / Visualization of Attention");
  // show_heatmaps takes (rows of plots, columns of plots, no. of queries, no. of keys).
  const Tensor attention_weights = reshape(eye(10), {1, 1, 10, 10});
  const std::string path = figure_path("attention_weights.png");
  show_heatmaps(attention_weights, "Keys", "Queries", {}, path);
  print_saved(path);
}

int main(int argc, char** argv) { return run_section("attention_cues", argc, argv, attention_cues); }
