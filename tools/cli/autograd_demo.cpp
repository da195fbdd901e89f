// tools/cli/autograd_demo.cpp — watch the engine work on one small attention computation.
//
//   build/tools/autograd_demo                    prints the values and the gradients
//   D2L_TRACE=1 build/tools/autograd_demo        also every op with its shapes, as it runs
//   D2L_PROFILE=1 build/tools/autograd_demo      a per-op table of calls and times at exit
//   build/tools/autograd_demo --dot graph.dot    the recorded graph (dot -Tpng graph.dot -o graph.png)
//
// The computation is scaled dot-product attention (10.3, sec_attention-scoring-functions)
// written with primitive ops, so every node of the graph is one line below.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "core/debug.h"
#include "core/ops.h"
#include "core/random.h"

using namespace d2l;

int main(int argc, char** argv) {
  std::string dot_path;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--dot") && i + 1 < argc) {
      dot_path = argv[++i];
    } else if (!std::strcmp(argv[i], "--trace")) {
      set_trace(true);
    } else if (!std::strcmp(argv[i], "--profile")) {
      set_profile(true);
    } else {
      std::fprintf(stderr, "usage: %s [--dot FILE] [--trace] [--profile]\n", argv[0]);
      return std::strcmp(argv[i], "--help") ? 2 : 0;
    }
  }
  try {
    manual_seed(0);
    // queries (1, 2, 4), keys (1, 3, 4), values (1, 3, 2): one batch, two queries, three keys.
    Tensor queries = normal(0, 1, {1, 2, 4}).requires_grad_();
    Tensor keys = normal(0, 1, {1, 3, 4}).requires_grad_();
    Tensor values = normal(0, 1, {1, 3, 2}).requires_grad_();
    Tensor scores = bmm(queries, keys, false, true) / 2.0f;  // Q Kᵀ / sqrt(d), d = 4
    Tensor weights = masked_softmax(scores, tensor({2}));    // only the first two keys count
    Tensor output = bmm(weights, values);
    Tensor loss = sum(output * output);
    std::cout << "attention weights:\n" << weights << "\noutput:\n" << output << "\nloss: " << loss.item() << "\n";
    if (!dot_path.empty()) {
      to_dot(loss, dot_path);
      std::cout << "graph written to " << dot_path << " (render: dot -Tpng " << dot_path << " -o graph.png)\n";
    }
    loss.backward();
    std::cout << "d loss / d queries:\n" << queries.grad() << "\nd loss / d keys (the third key is masked, so 0):\n"
              << keys.grad() << "\nd loss / d values:\n" << values.grad() << "\n";
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
