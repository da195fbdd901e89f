// tests/test_core_debug.cpp — suite core_debug: the views of core/debug/debug.h on tiny graphs whose
// numbers are worked out by hand in the comments: the backward trace, parameter names,
// to_dot's names, layer boxes and freed-graph note, the profile's layer and step tables, and
// the numerics check naming a weight; OpInputRecorder (core/debug/op_inputs.h) picking one
// op's inputs out of one layer, under NoGrad, with the trace still printing.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/debug/debug.h"
#include "core/debug/op_inputs.h"
#include "core/nn/module.h"
#include "core/ops.h"
#include "core/nn/optim.h"
#include "tests/test_util.h"

using namespace d2l;
using d2l_test::message_has;
using d2l_test::StderrCapture;

namespace {

// Two levels of registered modules: Net holds a Block as "block", the Block a Dense as
// "dense1", so Dense's weight is "block.dense1.weight" from Net.
struct Dense : Module {
  Tensor weight;
  explicit Dense(std::vector<float> w) { weight = register_parameter("weight", tensor(w, {2})); }
  Tensor forward(const Tensor& x) const {
    SectionScope section("Dense");
    return x * weight;
  }
};
struct Block : Module {
  Dense dense1;
  explicit Block(std::vector<float> w) : dense1(std::move(w)) { register_module("dense1", dense1); }
  Tensor forward(const Tensor& x) const {
    SectionScope section("Block");
    return dense1.forward(x) + 1.0f;
  }
};
struct Net : Module {
  Block block;
  explicit Net(std::vector<float> w) : block(std::move(w)) { register_module("block", block); }
};

// The lines of `text` that start with `prefix`, in order.
std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
  return out;
}

// Every switch back off when a test ends, passed or not.
struct SwitchesOff {
  ~SwitchesOff() {
    set_trace_level(0);
    set_profile(false);
    set_check_numerics(false);
    set_record_sections(false);
  }
};

std::string dot_of(const Tensor& root, const std::string& name) {
  const std::string path = d2l_test::scratch_path(name);
  to_dot(root, path);
  const std::string dot = d2l_test::read_file(path);
  std::remove(path.c_str());
  return dot;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core_debug)

BOOST_AUTO_TEST_CASE(backward_trace_prints_each_step_in_order) {
  SwitchesOff off;
  // y = sum(x * w), x = [1, 2], w = [3, 4]. Backward runs sum, then mul:
  //   sum: the gradient arriving is dy/dy = 1 (shape (), norm 1); it sends [1, 1] to the
  //        mul output, norm sqrt(2) = 1.41421
  //   mul: arriving [1, 1]; sends w = [3, 4] to x (norm 5) and x = [1, 2] to w (norm sqrt 5)
  Tensor x = tensor({1.0f, 2.0f}).requires_grad_(), w = tensor({3.0f, 4.0f}).requires_grad_();
  StderrCapture capture;
  set_trace_level(2);
  Tensor y;
  {
    SectionScope outer("10.7 EncoderBlock");
    SectionScope inner("Linear");
    y = x * w;
  }
  y = sum(y);
  y.backward();
  set_trace_level(0);
  const std::string text = capture.text();
  const auto forward = lines_starting(text, "[trace]");
  BOOST_REQUIRE_EQUAL(forward.size(), 2u);
  BOOST_TEST(forward[0] == "[trace] mul (2,) (2,) -> (2,) in 10.7 EncoderBlock > Linear");
  BOOST_TEST(forward[1] == "[trace] sum (2,) -> ()");
  const auto backward = lines_starting(text, "[backward]");
  BOOST_REQUIRE_EQUAL(backward.size(), 2u);
  BOOST_TEST(backward[0] == "[backward] sum: grad () norm 1 -> input 0 mul (2,) norm 1.41421");
  BOOST_TEST(backward[1] ==
             "[backward] mul in 10.7 EncoderBlock > Linear: grad (2,) norm 1.41421 -> input 0 leaf (2,) norm 5, "
             "input 1 leaf (2,) norm 2.23607");
  // The forward lines come before the backward ones.
  BOOST_TEST(text.find("[trace] sum") < text.find("[backward] sum"));
}

BOOST_AUTO_TEST_CASE(backward_trace_shows_what_each_step_adds) {
  SwitchesOff off;
  // loss = sum(x * x + c * x) with x = [1, 2] and a constant c = [0, 3]:
  //   add: sends [1, 1] to both terms (norm 1.41421 each)
  //   mul (c * x): c needs no gradient; x receives c = [0, 3] (norm 3)
  //   mul (x * x): x is read twice; what it receives is 2x = [2, 4] (norm sqrt 20 = 4.47214),
  //                though x's gradient already held [0, 3] from the step before
  Tensor x = tensor({1.0f, 2.0f}).requires_grad_();
  const Tensor c = tensor({0.0f, 3.0f});
  StderrCapture capture;
  set_trace_level(2);
  Tensor loss = sum(x * x + c * x);
  loss.backward();
  set_trace_level(0);
  const auto backward = lines_starting(capture.text(), "[backward]");
  BOOST_REQUIRE_EQUAL(backward.size(), 4u);
  BOOST_TEST(backward[1] == "[backward] add: grad (2,) norm 1.41421 -> input 0 mul (2,) norm 1.41421, input 1 mul (2,) norm 1.41421");
  BOOST_TEST(backward[2] == "[backward] mul: grad (2,) norm 1.41421 -> input 0 leaf (2,) no grad, input 1 leaf (2,) norm 3");
  BOOST_TEST(backward[3] == "[backward] mul: grad (2,) norm 1.41421 -> inputs 0 and 1 leaf (2,) norm 4.47214");
  BOOST_TEST(d2l_test::grad_of(x) == std::vector<float>({2, 7}), boost::test_tools::per_element());  // 2x + c
}

BOOST_AUTO_TEST_CASE(trace_level_one_prints_no_backward) {
  SwitchesOff off;
  Tensor x = tensor({1.0f, 2.0f}).requires_grad_();
  StderrCapture capture;
  set_trace(true);
  BOOST_TEST(trace_level() == 1);
  sum(x * x).backward();
  set_trace(false);
  const std::string text = capture.text();
  BOOST_TEST(lines_starting(text, "[trace]").size() == 2u);
  BOOST_TEST(text.find("[backward]") == std::string::npos, text);
  BOOST_CHECK_EXCEPTION(set_trace_level(3), std::invalid_argument, message_has({"[set_trace_level]", "3"}));
}

BOOST_AUTO_TEST_CASE(parameters_are_named_from_the_outermost_module) {
  std::string name_after_destruction;
  Tensor kept;
  {
    Net net({3, 4});
    BOOST_TEST(parameter_name(net.block.dense1.weight) == "block.dense1.weight");
    BOOST_TEST(net.named_parameters().at(0).first == "block.dense1.weight");  // the same spelling
    // A module on its own names from itself.
    Dense alone({1, 1});
    BOOST_TEST(parameter_name(alone.weight) == "weight");
    kept = net.block.dense1.weight;
  }
  // Once its modules are gone the tensor is nobody's parameter; plain tensors never were.
  BOOST_TEST(parameter_name(kept) == "");
  BOOST_TEST(parameter_name(tensor({1.0f})) == "");
  BOOST_TEST(parameter_name(Tensor()) == "");
}

BOOST_AUTO_TEST_CASE(backward_trace_names_parameters) {
  SwitchesOff off;
  Net net({3, 4});
  Tensor x = tensor({1.0f, 2.0f});
  StderrCapture capture;
  set_trace_level(2);
  sum(net.block.forward(x)).backward();
  set_trace_level(0);
  const auto backward = lines_starting(capture.text(), "[backward]");
  BOOST_REQUIRE_EQUAL(backward.size(), 3u);  // sum, add_scalar, mul
  // d/dw of sum(x * w + 1) is x = [1, 2], norm sqrt 5.
  BOOST_TEST(backward[2] == "[backward] mul in Block > Dense: grad (2,) norm 1.41421 -> input 0 leaf (2,) no grad, "
                            "input 1 block.dense1.weight (2,) norm 2.23607");
}

BOOST_AUTO_TEST_CASE(to_dot_names_parameters_and_boxes_layers) {
  SwitchesOff off;
  Net net({3, 4});
  const Tensor x = tensor({1.0f, 2.0f});
  set_record_sections(true);
  const Tensor loss = sum(net.block.forward(x));
  set_record_sections(false);
  const std::string dot = dot_of(loss, "named.dot");
  BOOST_TEST(dot.find("label=\"block.dense1.weight\\n(2,)\"") != std::string::npos, dot);
  BOOST_TEST(dot.find("label=\"leaf\\n(2,)\"") != std::string::npos, dot);  // x: data, no name
  // One box per layer, Dense nested in Block: Block's cluster opens, then Dense's inside it,
  // holding mul and the weight; add_scalar is in Block; sum outside both.
  const size_t block = dot.find("label=\"Block\""), dense = dot.find("label=\"Dense\"");
  BOOST_REQUIRE(block != std::string::npos);
  BOOST_REQUIRE(dense != std::string::npos);
  BOOST_TEST(block < dense);
  const size_t mul = dot.find("[label=\"mul\\n"), weight = dot.find("block.dense1.weight");
  const size_t add = dot.find("[label=\"add_scalar\\n"), sum_at = dot.find("[label=\"sum\\n");
  const size_t dense_end = dot.find("}", dense);
  BOOST_TEST((mul > dense && mul < dense_end));
  BOOST_TEST((weight > dense && weight < dense_end));
  BOOST_TEST((add > block && add < dense));
  BOOST_TEST(sum_at < block);
  BOOST_TEST(dot.find("freed") == std::string::npos);
  // Without recorded sections: the same nodes, no boxes.
  const Tensor plain = sum(net.block.forward(x));
  BOOST_TEST(dot_of(plain, "plain.dot").find("subgraph") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(to_dot_says_when_backward_freed_the_graph) {
  Tensor x = tensor({1.0f, 2.0f}).requires_grad_();
  Tensor loss = sum(x * x);
  loss.backward();
  StderrCapture capture;
  const std::string dot = dot_of(loss, "freed.dot");
  const std::string err = capture.text();
  BOOST_TEST(err.find("[to_dot] warning: the graph was already freed by backward()") != std::string::npos, err);
  BOOST_TEST(dot.find("// the graph was already freed by backward()") != std::string::npos, dot);
  BOOST_TEST(dot.find("call to_dot before backward()") != std::string::npos, dot);
  BOOST_TEST(dot.find("sum\\n()\\n(freed by backward)") != std::string::npos, dot);
  BOOST_TEST(dot.find(" -> ") == std::string::npos, dot);  // nothing left below the root
  // A new graph on top of a freed one: drawn down to the freed node, with the note.
  Tensor more = loss * 2.0f;
  StderrCapture capture2;
  const std::string dot2 = dot_of(more, "freed2.dot");
  BOOST_TEST(capture2.text().find("1 node(s) of this graph were freed") != std::string::npos);
  BOOST_TEST(dot2.find("mul_scalar\\n()") != std::string::npos, dot2);
  BOOST_TEST(dot2.find("n1 -> n0;") != std::string::npos, dot2);
}

BOOST_AUTO_TEST_CASE(profile_has_layer_and_step_tables) {
  SwitchesOff off;
  {
    StderrCapture drain;  // an earlier table (if D2L_PROFILE=1) goes nowhere
    print_profile();
  }
  Net net({3, 4});
  Adam adam(net.parameters(), 0.1f);
  set_profile(true);
  const Tensor x = tensor({1.0f, 2.0f});
  for (int step = 0; step < 2; ++step) {
    adam.zero_grad();
    Tensor loss = sum(net.block.forward(x));
    loss.backward();
    adam.step();
  }
  StderrCapture capture;
  print_profile();
  set_profile(false);
  const std::string text = capture.text();
  // Rows as (first column, numbers). Per step: Block runs add_scalar and, nested, Dense's
  // mul; sum runs outside any layer. Two steps: Block 4 ops (nested included), Dense 2.
  std::istringstream lines(text);
  std::string line;
  long block_ops = -1, dense_ops = -1, outside_ops = -1, adam_calls = -1;
  bool dense_indented = false;
  while (std::getline(lines, line)) {
    std::istringstream f(line);
    std::string first;
    f >> first;
    if (first == "Block") f >> block_ops;
    if (first == "Dense") {
      f >> dense_ops;
      dense_indented = line.rfind("  Dense", 0) == 0;
    }
    if (line.rfind("(outside any layer)", 0) == 0) std::istringstream(line.substr(19)) >> outside_ops;
    if (first == "Adam.step") f >> adam_calls;
  }
  BOOST_TEST(text.find("layer (nested layers included)") != std::string::npos, text);
  BOOST_TEST(block_ops == 4, text);
  BOOST_TEST(dense_ops == 2, text);
  BOOST_TEST(dense_indented, text);
  BOOST_TEST(outside_ops == 2, text);
  BOOST_TEST(adam_calls == 2, text);
  BOOST_TEST(text.find("layer") > text.find("total"));  // after the per-op table
}

BOOST_AUTO_TEST_CASE(numerics_check_names_the_weight) {
  SwitchesOff off;
  Net net({3, NAN});
  set_check_numerics(true);
  // mul reads the NaN weight: the message says which parameter holds it.
  BOOST_CHECK_EXCEPTION(net.block.forward(tensor({1.0f, 2.0f})), std::runtime_error,
                        message_has({"output of 'mul'", "in section Block > Dense",
                                     "input 1 (2,) (the parameter 'block.dense1.weight') already holds nan",
                                     "the weight itself is non-finite"}));
  // In backward: d sqrt(w)/dw = 1/(2 sqrt w) is inf at w = 0, and w is a weight.
  Net zero({0, 4});
  Tensor loss = sum(sqrt(zero.block.dense1.weight));
  BOOST_CHECK_EXCEPTION(loss.backward(), std::runtime_error,
                        message_has({"gradient of 'sqrt'", "flat index 0 of input 0 (2,) (the parameter 'block.dense1.weight')"}));
}

// The README's walk-through of a backward trace quotes the demo's first eight lines: they
// must be what the demo prints (forward trace, the value, the two backward steps, the
// gradients), so the text explaining each number stays true.
BOOST_AUTO_TEST_CASE(readme_trace_walkthrough_is_the_demos_output) {
  const std::string readme = d2l_test::read_file("README.md");
  const size_t section = readme.find("### Reading a backward trace");
  BOOST_REQUIRE(section != std::string::npos);
  const size_t open = readme.find("```text\n", section), close = readme.find("```", open + 8);
  BOOST_REQUIRE(open != std::string::npos && close != std::string::npos);
  const std::string quoted = readme.substr(open + 8, close - open - 8);
  const auto [rc, out] = d2l_test::run_capture("D2L_TRACE=2 " + d2l_test::build_dir() + "/tools/autograd_demo");
  BOOST_TEST(rc == 0, out);
  std::istringstream lines(out);
  std::string first8, line;
  for (int i = 0; i < 8 && std::getline(lines, line); ++i) first8 += line + "\n";
  BOOST_TEST(first8 == quoted);
  // The numbers the walk-through explains: dy/dx = w = [3, 4] (norm 5), dy/dw = x = [1, 2].
  BOOST_TEST(quoted.find("input 0 leaf (2,) norm 5, input 1 leaf (2,) norm 2.23607") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(op_input_recorder_keeps_one_ops_inputs_in_one_layer) {
  SwitchesOff off;
  // Three ops inside the decoder's section, two outside; only masked_softmax inside is kept:
  // its first input, X = [[[1, 2, 3]]], as given (the mask hides key 2 from the output only).
  const Tensor X = tensor({1.0f, 2.0f, 3.0f}, {1, 1, 3}), lens = tensor({2.0f}, {1});
  StderrCapture capture;
  set_trace(true);  // before the recorder: setting a switch re-points the hook
  std::vector<Tensor> kept, later;
  {
    OpInputRecorder rec("masked_softmax", "10.4 Seq2SeqAttentionDecoder");
    NoGrad no_grad;  // prediction: no graph, the hook still sees every op
    masked_softmax(X * 10.0f, lens);  // outside the section
    {
      SectionScope outer("10.4 Seq2SeqAttentionDecoder");
      SectionScope inner("10.3 AdditiveAttention");
      softmax(X + 1.0f);          // inside, another op
      masked_softmax(X, lens);    // kept
    }
    kept = rec.take();
    later = rec.take();           // take() empties the list
  }
  masked_softmax(X, lens);  // the recorder is gone
  set_trace(false);
  BOOST_REQUIRE_EQUAL(kept.size(), 1u);
  BOOST_TEST(kept[0].shape() == Shape({1, 1, 3}));
  BOOST_TEST(kept[0].to_vector() == std::vector<float>({1, 2, 3}), boost::test_tools::per_element());
  BOOST_TEST(later.empty());
  // It passed every op on to the trace's hook, and put that hook back.
  const auto lines = lines_starting(capture.text(), "[trace] masked_softmax");
  BOOST_REQUIRE_EQUAL(lines.size(), 3u);
  BOOST_TEST(lines[1] == "[trace] masked_softmax (1, 1, 3) (1,) -> (1, 1, 3) in 10.4 Seq2SeqAttentionDecoder > "
                         "10.3 AdditiveAttention");
}

BOOST_AUTO_TEST_SUITE_END()
