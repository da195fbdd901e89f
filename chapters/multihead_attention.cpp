// chapters/multihead_attention.cpp — 10.5 多头注意力 / Multi-Head Attention
// (sec_multihead-attention).
//
// Prints the model, as the book's notebook shows `attention.eval()` (PyTorch's print of the
// module tree), and the output shape of MultiHeadAttention (num_hiddens 100, 5 heads) on
// queries ones (2, 4, 100) and keys = values ones (2, 6, 100) with valid_lens [3, 2]:
// torch.Size([2, 4, 100]). The shape does not depend on the random initial weights.
// Options: chapters/run/multihead_attention.cpp; exercises (--ex N): chapters/exercises/.
#include <cstdio>
#include <iostream>

#include "core/ops.h"
#include "core/tensor.h"
#include "layers/multihead_attention.h"
#include "tools/d2l/cli/section.h"

using namespace d2l;

void multihead_attention() {
  // ------------------------------------------------------------------------------------
  print_banner("实现 / Implementation");
  const int64_t num_hiddens = 100, num_heads = 5;
  MultiHeadAttention attention(num_hiddens, num_hiddens, num_hiddens, num_hiddens, num_heads, 0.5f);
  attention.eval();
  std::cout << attention << "\n";  // the notebook shows the module eval() returns
  const int64_t batch_size = 2, num_queries = 4, num_kvpairs = 6;
  const Tensor valid_lens = tensor({3, 2});
  const Tensor X = ones({batch_size, num_queries, num_hiddens});
  const Tensor Y = ones({batch_size, num_kvpairs, num_hiddens});
  std::printf("%s\n", torch_size(attention(X, Y, Y, valid_lens).shape()).c_str());
}

int main(int argc, char** argv) { return run_section("multihead_attention", argc, argv, multihead_attention); }
