// chapters/exercises/self_attention_and_positional_encoding.cpp — the exercises of 10.6
// 自注意力和位置编码 / Self-Attention and Positional Encoding, run by
// build/chapters/self_attention_and_positional_encoding --ex N (tools/d2l/cli/exercises.h).
//
//   --ex 1  what goes wrong when self-attention layers with positional encoding are stacked
//           deep (SelfAttentionStack, layers/self_attention_and_positional_encoding.h): for
//           depths 1, 2, 4, 8, 16 (--max-depth), without and with residual connections and
//           layer norm, from one seed, on N(0, 1) inputs (2, 10, 32) against a N(0, 1)
//           target (mean squared error): prints the gradient norm reaching the first layer's
//           weights, the output's size (its rows' mean norm) and how alike the output rows
//           of a sequence are (mean cosine similarity over pairs of positions); writes
//           ex1_gradient.png (log10 of the first layer's gradient norm against depth) and
//           ex1_similarity.png (the cosine similarity against depth).
// The section's exercise 2, a learnable positional encoding, needs a model that trains it:
// it is 10.7's program with --pe learned (chapters/transformer.cpp), which draws the learned
// tables beside the sinusoidal one.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/ops.h"
#include "core/random.h"
#include "core/tensor.h"
#include "layers/self_attention_and_positional_encoding.h"
#include "layers/exercises/self_attention_and_positional_encoding.h"
#include "tools/d2l/cli/exercises.h"
#include "tools/d2l/figures/figures.h"

using namespace d2l;

namespace {

struct DepthResult {
  double first_layer_grad, output_norm, cosine;
};

// One stack of `depth` layers from `seed`: the gradient norm reaching its first layer's
// attention weights (W_q, W_k, W_v, W_o together), the mean norm of the output rows, and
// the mean cosine similarity of the output rows of each sequence.
DepthResult measure_stack(int64_t depth, bool residual_norm, uint64_t seed) {
  const int64_t batch_size = 2, num_steps = 10, num_hiddens = 32, num_heads = 4;
  manual_seed(seed);  // the same inputs, target and first layers at every depth
  const Tensor X = normal(0.0f, 1.0f, {batch_size, num_steps, num_hiddens});
  const Tensor target = normal(0.0f, 1.0f, {batch_size, num_steps, num_hiddens});
  SelfAttentionStack net(num_hiddens, num_heads, depth, residual_norm);
  const Tensor H = net(X);
  mean(pow(H - target, 2.0f)).backward();
  double g2 = 0;
  for (const Tensor& p : net.attentions[0]->parameters())
    for (const float g : p.grad().to_vector()) g2 += static_cast<double>(g) * g;
  const std::vector<float> h = H.to_vector();
  double norms = 0, cosine = 0;
  int64_t pairs = 0;
  auto row = [&](int64_t b, int64_t i) { return &h[static_cast<size_t>((b * num_steps + i) * num_hiddens)]; };
  auto dot = [&](const float* a, const float* c) {
    double s = 0;
    for (int64_t k = 0; k < num_hiddens; ++k) s += static_cast<double>(a[k]) * c[k];
    return s;
  };
  for (int64_t b = 0; b < batch_size; ++b)
    for (int64_t i = 0; i < num_steps; ++i) {
      norms += std::sqrt(dot(row(b, i), row(b, i)));
      for (int64_t j = i + 1; j < num_steps; ++j, ++pairs)
        cosine += dot(row(b, i), row(b, j)) / std::sqrt(dot(row(b, i), row(b, i)) * dot(row(b, j), row(b, j)));
    }
  return {std::sqrt(g2), norms / static_cast<double>(batch_size * num_steps), cosine / static_cast<double>(pairs)};
}

// Exercise 1: stacking self-attention layers. Each layer's output row is a convex
// combination of the value rows (softmax weights sum to 1), so the rows of a sequence are
// pulled together layer after layer, and the projections W_v, W_o (PyTorch's default init,
// uniform in ±1/√32) shrink the signal: without a residual path the representation loses
// its positions (every row alike) and the gradient reaching the first layers vanishes.
// A residual connection with layer norm keeps both.
void exercise_1(const CliArgs& args, const std::string& out) {
  const int64_t max_depth = args.get_int("max-depth");
  const auto seed = static_cast<uint64_t>(args.get_int("seed"));
  print_banner("练习 1 / Exercise 1: stacking self-attention layers with positional encoding");
  std::printf("%5s  %-28s %14s %12s %12s\n", "depth", "stack", "|grad| layer 1", "output norm", "row cosine");
  std::vector<float> depths, log_grad[2], cos[2];
  for (int64_t depth = 1; depth <= max_depth; depth *= 2) {
    depths.push_back(static_cast<float>(depth));
    for (int v = 0; v < 2; ++v) {
      const DepthResult r = measure_stack(depth, v == 1, seed);
      std::printf("%5lld  %-28s %14.4e %12.4e %12.4f\n", static_cast<long long>(depth),
                  v == 0 ? "attention only" : "attention + residual + norm", r.first_layer_grad, r.output_norm,
                  r.cosine);
      log_grad[v].push_back(static_cast<float>(std::log10(r.first_layer_grad)));
      cos[v].push_back(static_cast<float>(r.cosine));
    }
  }
  PlotOptions opt;
  opt.xlabel = "depth (self-attention layers)";
  opt.legend = {"attention only", "attention + residual + layer norm"};
  opt.figsize = {5.0f, 3.0f};
  opt.ylabel = "log10 |grad| of layer 1";
  std::string path = out + "/ex1_gradient.png";
  plot(depths, {log_grad[0], log_grad[1]}, opt, path);
  print_saved(path);
  opt.ylabel = "mean cosine of output rows";
  path = out + "/ex1_similarity.png";
  plot(depths, {cos[0], cos[1]}, opt, path);
  print_saved(path);
}

const ExerciseList exercises(
    {{1, "stacking self-attention layers: first-layer gradient and row similarity by depth, with and without "
         "residual connections and layer norm", exercise_1},
     {2, "a learnable positional encoding", "build/chapters/transformer --pe learned"}},
    [](CliArgs& args) {
      args.add_int("max-depth", 16, "--ex 1: the deepest stack (depths 1, 2, 4, ... up to it)", 1, 256);
    });

}  // namespace
