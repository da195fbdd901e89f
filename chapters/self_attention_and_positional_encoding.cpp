// chapters/self_attention_and_positional_encoding.cpp — 10.6 自注意力和位置编码 /
// Self-Attention and Positional Encoding (sec_self-attention-and-positional-encoding).
//
// Prints, in the book's order: the model (the notebook's `attention.eval()`); the shape of
// self-attention on X = ones (2, 4, 100), valid_lens [3, 2]: torch.Size([2, 4, 100]); the
// binary representations of 0..7; the path of each figure. Writes, under --out (default
// out/self_attention_and_positional_encoding/): positional_encoding_columns.png (columns 6-9
// of P over 60 positions, encoding_dim 32) and positional_encoding.png (P[:60], Blues).
// Options: chapters/run/self_attention_and_positional_encoding.cpp; exercises (--ex N):
// chapters/exercises/ (exercise 2, a learnable encoding, is 10.7's `transformer --pe learned`).
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "core/ops.h"
#include "core/tensor.h"
#include "layers/multihead_attention.h"
#include "layers/self_attention_and_positional_encoding.h"
#include "tools/d2l/cli/section.h"
#include "tools/d2l/figures/figures.h"

using namespace d2l;

void self_attention_and_positional_encoding() {
  // ------------------------------------------------------------------------------------
  print_banner("自注意力 / Self-Attention");
  const int64_t num_hiddens = 100, num_heads = 5;
  MultiHeadAttention attention(num_hiddens, num_hiddens, num_hiddens, num_hiddens, num_heads, 0.5f);
  attention.eval();
  std::cout << attention << "\n";  // the notebook shows the module eval() returns
  const int64_t batch_size = 2, num_queries = 4;
  const Tensor valid_lens = tensor({3, 2});
  const Tensor X = ones({batch_size, num_queries, num_hiddens});
  // Queries, keys and values are all X: the output has X's shape.
  std::printf("%s\n", torch_size(attention(X, X, X, valid_lens).shape()).c_str());

  // ------------------------------------------------------------------------------------
  print_banner("位置编码 / Positional Encoding");
  const int64_t encoding_dim = 32, num_steps = 60;
  PositionalEncoding pos_encoding(encoding_dim, 0.0f);
  pos_encoding.eval();
  const Tensor Xpe = pos_encoding(zeros({1, num_steps, encoding_dim}));
  const Tensor P = slice(pos_encoding.P, 1, 0, Xpe.size(1));  // (1, num_steps, encoding_dim)
  // Columns 6 and 7 oscillate faster than 8 and 9; 6/7 (and 8/9) are sin/cos of the same
  // frequency, hence the phase shift.
  std::vector<std::vector<float>> cols;
  std::vector<std::string> legend;
  for (int64_t c = 6; c < 10; ++c) {
    cols.push_back(reshape(slice(P, 2, c, c + 1), {-1}).to_vector());
    legend.push_back("Col " + std::to_string(c));
  }
  PlotOptions opt;
  opt.xlabel = "Row (position)";
  opt.figsize = {6.0f, 2.5f};
  opt.legend = legend;
  std::string path = figure_path("positional_encoding_columns.png");
  plot(arange(num_steps).to_vector(), cols, opt, path);
  print_saved(path);

  // ------------------------------------------------------------------------------------
  print_banner("绝对位置信息 / Absolute Positional Information");
  // The lowest bit alternates every number, the next every two, the third every four:
  // frequency falls with the bit's position, as it falls along P's columns.
  // The book's print(f'{i}的二进制是：{i:>03b}').
  for (int i = 0; i < 8; ++i) std::printf("%d的二进制是：%d%d%d\n", i, (i >> 2) & 1, (i >> 1) & 1, i & 1);
  path = figure_path("positional_encoding.png");
  show_heatmaps(unsqueeze(unsqueeze(select(P, 0, 0), 0), 0), "Column (encoding dimension)", "Row (position)", {},
                {3.5f, 4.0f}, "Blues", path);
  print_saved(path);
}

int main(int argc, char** argv) {
  return run_section("self_attention_and_positional_encoding", argc, argv, self_attention_and_positional_encoding);
}
