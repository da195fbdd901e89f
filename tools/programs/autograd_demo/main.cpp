// tools/programs/autograd_demo/main.cpp — watch the engine work: first a two-op graph small enough to
// check by hand, then one small attention computation.
//
//   build/tools/autograd_demo                    prints the values and the gradients
//   D2L_TRACE=1 build/tools/autograd_demo        also every op with its shapes, as it runs
//   D2L_TRACE=2 build/tools/autograd_demo        also every backward step: op, layer, gradient
//                                                shapes and norms (README.md walks through it)
//   D2L_PROFILE=1 build/tools/autograd_demo      per-op and per-layer tables of times at exit
//   build/tools/autograd_demo --dot graph.dot    the attention graph, boxed by layer
//                                                (dot -Tpng graph.dot -o graph.png)
// --trace, --trace-backward and --profile do what the variables do.
//
// Part 1 is y = sum(x * w) for x = [1, 2], w = [3, 4]: y = 1·3 + 2·4 = 11, dy/dx = w and
// dy/dw = x. Part 2 is scaled dot-product attention (10.3, sec_attention-scoring-functions)
// written with primitive ops, so every node of its graph is one line below.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "core/io/files.h"  // allow_overwriting_any_file
#include "core/io/standard_streams.h"
#include "core/debug/debug.h"
#include "core/ops.h"
#include "core/random.h"

using namespace d2l;

namespace {

void two_op_example() {
  std::cout << "== part 1: y = sum(x * w)\n";
  Tensor x = tensor({1.0f, 2.0f}).requires_grad_();
  Tensor w = tensor({3.0f, 4.0f}).requires_grad_();
  Tensor y = sum(x * w);  // two ops: mul, then sum
  std::cout << "y = " << y << "\n";
  y.backward();
  std::cout << "dy/dx = " << x.grad() << "  (= w)\ndy/dw = " << w.grad() << "  (= x)\n";
}

void attention_example(const std::string& dot_path) {
  std::cout << "== part 2: scaled dot-product attention\n";
  manual_seed(0);
  // queries (1, 2, 4), keys (1, 3, 4), values (1, 3, 2): one batch, two queries, three keys.
  Tensor queries = normal(0, 1, {1, 2, 4}).requires_grad_();
  Tensor keys = normal(0, 1, {1, 3, 4}).requires_grad_();
  Tensor values = normal(0, 1, {1, 3, 2}).requires_grad_();
  Tensor weights, output;
  {
    // The section names the trace, the profile's layer table and the graph's boxes carry.
    SectionScope section("10.3 DotProductAttention");
    Tensor scores = bmm(queries, keys, false, true) / 2.0f;  // Q Kᵀ / sqrt(d), d = 4
    weights = masked_softmax(scores, tensor({2}));           // only the first two keys count
    output = bmm(weights, values);
  }
  Tensor loss = sum(output * output);
  std::cout << "attention weights:\n" << weights << "\noutput:\n" << output << "\nloss: " << loss.item() << "\n";
  if (!dot_path.empty()) {
    to_dot(loss, dot_path);
    std::cout << "graph written to " << dot_path << " (render: dot -Tpng " << dot_path << " -o graph.png)\n";
  }
  loss.backward();
  std::cout << "d loss / d queries:\n" << queries.grad() << "\nd loss / d keys (the third key is masked, so 0):\n"
            << keys.grad() << "\nd loss / d values:\n" << values.grad() << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  check_standard_output_at_exit("autograd_demo");  // a failed write to stdout is an error at exit
  std::string dot_path;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--dot") && i + 1 < argc) {
      dot_path = argv[++i];
      if (dot_path.empty()) {
        std::fprintf(stderr, "error: [--dot] is empty; name a file, or leave the option out\n");
        return 2;
      }
    } else if (!std::strcmp(argv[i], "--force")) {
      allow_overwriting_any_file(true);  // --dot may replace a file of another kind
    } else if (!std::strcmp(argv[i], "--trace")) {
      set_trace_level(1);
    } else if (!std::strcmp(argv[i], "--trace-backward")) {
      set_trace_level(2);
    } else if (!std::strcmp(argv[i], "--profile")) {
      set_profile(true);
    } else {
      std::fprintf(stderr, "usage: %s [--dot FILE [--force]] [--trace] [--trace-backward] [--profile]\n", argv[0]);
      return std::strcmp(argv[i], "--help") ? 2 : 0;
    }
  }
  // The trace goes to stderr as it happens; unbuffered stdout keeps the two in order when
  // both go to one pipe (2>&1 | less).
  std::cout << std::unitbuf;
  if (!dot_path.empty()) set_record_sections(true);  // so the graph can box ops by layer
  try {
    two_op_example();
    attention_example(dot_path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
