// chapters/multihead_attention.cpp — 10.5 多头注意力 / Multi-Head Attention
// (sec_multihead-attention).
//
// Prints: the model, as the book's notebook shows `attention.eval()` (PyTorch's print of the
// module tree); the output shape of MultiHeadAttention (num_hiddens 100, 5 heads) on queries
// ones (2, 4, 100) and keys = values ones (2, 6, 100) with valid_lens [3, 2]:
// torch.Size([2, 4, 100]).
// Then, for the section's exercise 1 (visualize each head's attention weights), the path
// of the figure.
// Writes: out/multihead_attention/heads.png — one heatmap per (batch item, head); with
// all-ones inputs every head spreads its weight evenly over the first 3 (item 1) or 2
// (item 2) keys, which shows valid_lens repeated per head.
// Data: none. Randomness: the initial weights (the shape and figure do not depend on them).
// Run time: well under a second.
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "core/ops.h"
#include "core/tensor.h"
#include "layers/multihead_attention.h"
#include "tools/cli/cli_args.h"
#include "tools/figures/figures.h"

using namespace d2l;

int main(int argc, char** argv) {
  CliArgs args("multihead_attention", "10.5 Multi-Head Attention (sec_multihead-attention).");
  add_chapter_options(args, "out/multihead_attention");
  args.parse_or_exit(argc, argv);
  return run_reporting_errors([&] {
    const std::string out = apply_chapter_options(args);
    const int64_t num_hiddens = 100, num_heads = 5;

    // ------------------------------------------------------------------------------------
    print_banner("实现 / Implementation");
    MultiHeadAttention attention(num_hiddens, num_hiddens, num_hiddens, num_hiddens, num_heads, 0.5f);
    attention.eval();
    std::cout << attention << "\n";  // the notebook shows the module eval() returns
    const int64_t batch_size = 2, num_queries = 4, num_kvpairs = 6;
    const Tensor valid_lens = tensor({3, 2});
    const Tensor X = ones({batch_size, num_queries, num_hiddens});
    const Tensor Y = ones({batch_size, num_kvpairs, num_hiddens});
    std::printf("%s\n", torch_size(attention(X, Y, Y, valid_lens).shape()).c_str());

    // ------------------------------------------------------------------------------------
    print_banner("练习 1：可视化各个头的注意力权重 / Exercise 1: the Heads' Attention Weights");
    // attention.attention.attention_weights: (batch_size * num_heads, no. of queries, no. of
    // kv pairs), row b * num_heads + i being head i of item b -> a (batch_size, num_heads) grid.
    const Tensor heads =
        reshape(attention.attention.attention_weights, {batch_size, num_heads, num_queries, num_kvpairs});
    std::vector<std::string> titles;
    for (int64_t i = 0; i < num_heads; ++i) titles.push_back("Head " + std::to_string(i + 1));
    const std::string path = out + "/heads.png";
    show_heatmaps(heads, "Keys", "Queries", titles, {7.0f, 2.5f}, "Reds", path);
    print_saved(path);
    return 0;
  });
}
