// tests/test_core_backward_steps.cpp — suite core_backward_steps: BackwardRecorder
// (core/debug/backward_steps.h) on 10.3's DotProductAttention, whose backward order follows from
// run_backward's depth-first search by hand, and the backward view's computation
// (tools/programs/backward_steps/attention_backward.h) for 10.3 and 10.5: the recorded gradients
// against the leaves' .grad and against central differences, the masked scores' gradient exactly
// 0, and every source line a step links to still where the link says.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "core/debug/backward_steps.h"
#include "core/debug/debug.h"
#include "core/io/json.h"
#include "core/ops.h"
#include "layers/attention_scoring_functions.h"
#include "tests/test_util.h"
#include "tools/programs/backward_steps/attention_backward.h"

using namespace d2l;

namespace {

const JsonValue& get(const JsonValue& object, const std::string& key) {
  for (const auto& [k, v] : object.members)
    if (k == key) return v;
  throw std::runtime_error("no '" + key + "' in the JSON");
}
std::vector<double> numbers(const JsonValue& v) {
  std::vector<double> out;
  for (const JsonValue& x : v.items) out.push_back(std::stod(x.text));
  return out;
}

// The view's default input, queries (1, 2, 2), keys (1, 4, 2), values (1, 4, 3), for `layer`;
// row 0's sum differentiated.
AttentionBackwardRequest request(const std::string& layer) {
  AttentionBackwardRequest r;
  r.layer = layer;
  r.queries = "0.5 1; 1 -0.5";
  r.keys = "1 0; 0 1; 1 1; -1 0.5";
  r.values = "1 0 2; 0 1 -1; 3 1 0; -2 0.5 1";
  r.valid_lens = "2 3";
  return r;
}

// Queries (1, 2, 2), keys (1, 4, 2), values (1, 4, 3); valid length 2 for query 0 and 3 for
// query 1, so scores (0, 2), (0, 3) and (1, 3) are masked.
struct Input {
  Tensor queries = tensor({0.5f, 1, 1, -0.5f}, {1, 2, 2}).requires_grad_();
  Tensor keys = tensor({1, 0, 0, 1, 1, 1, -1, 0.5f}, {1, 4, 2}).requires_grad_();
  Tensor values = tensor({1, 0, 2, 0, 1, -1, 3, 1, 0, -2, 0.5f, 1}, {1, 4, 3}).requires_grad_();
  Tensor valid_lens = tensor({2, 3}, {1, 2});
};

}  // namespace

BOOST_AUTO_TEST_SUITE(core_backward_steps)

// run_backward's search from bmm(weights, values) reaches masked_softmax (input 0) first, then
// mul_scalar (the / sqrt(d)), then bmm(queries, keysᵀ); it runs them in reverse of that
// post-order: the pooling, masked_softmax, the scaling, the score.
BOOST_AUTO_TEST_CASE(steps_follow_the_engine_and_add_up_to_the_leaves_gradients) {
  Input in;
  DotProductAttention attention(0.0f);
  attention.eval();
  BackwardRecorder recorder;
  Tensor out = attention(in.queries, in.keys, in.values, in.valid_lens);
  recorder.take_graph(out, {{in.queries.node(), "queries"}});
  out.backward(ones(out.shape()));
  const std::vector<RecordedNode>& g = recorder.graph();
  std::vector<std::string> ops;
  for (const BackwardStep& s : recorder.steps()) ops.push_back(g[static_cast<size_t>(s.node)].op);
  BOOST_TEST(ops == (std::vector<std::string>{"bmm", "masked_softmax", "mul_scalar", "bmm"}), boost::test_tools::per_element());
  const BackwardStep& first = recorder.steps().front();
  BOOST_TEST(first.grad == std::vector<float>(6, 1.0f), boost::test_tools::per_element());  // d sum / d output
  BOOST_TEST(g[static_cast<size_t>(first.node)].section == "10.3 DotProductAttention");
  // The values receive only the pooling's gradient, the queries only the score's: what those
  // steps sent is the whole of the leaves' gradients.
  BOOST_TEST(first.sent[1] == in.values.grad().to_vector(), boost::test_tools::per_element());
  const BackwardStep& last = recorder.steps().back();
  BOOST_TEST(g[static_cast<size_t>(g[static_cast<size_t>(last.node)].inputs[0])].name == "queries");
  BOOST_TEST(last.sent[0] == in.queries.grad().to_vector(), boost::test_tools::per_element());
  BOOST_TEST(last.sent[1] == in.keys.grad().to_vector(), boost::test_tools::per_element());
  // masked_softmax sends exactly 0 to each masked score; the valid lengths get none.
  const BackwardStep& ms = recorder.steps()[1];
  BOOST_TEST(ms.sent[1].empty());
  for (int flat : {2, 3, 7}) BOOST_TEST(ms.sent[0][static_cast<size_t>(flat)] == 0.0f);
  // The forward's values: masked_softmax's output rows sum to 1.
  const std::vector<float>& w = g[static_cast<size_t>(ms.node)].value;
  BOOST_TEST(w[0] + w[1] == 1.0f, boost::test_tools::tolerance(1e-6f));
}

// With the trace on, the recorder passes the steps on: the trace still prints every one.
BOOST_AUTO_TEST_CASE(the_backward_trace_still_prints_under_the_recorder) {
  Input in;
  set_trace_level(2);
  std::string printed;
  size_t recorded = 0;
  {
    d2l_test::StderrCapture capture;
    BackwardRecorder recorder;
    DotProductAttention attention(0.0f);
    attention.eval();
    Tensor out = attention(in.queries, in.keys, in.values, in.valid_lens);
    recorder.take_graph(out);
    sum(out).backward();
    recorded = recorder.steps().size();
    printed = capture.text();
  }
  set_trace_level(0);
  BOOST_TEST(printed.find("[backward] masked_softmax in 10.3 DotProductAttention") != std::string::npos, printed);
  // One trace line per recorded step: sum's (a reshape and a sum), then the layer's four.
  size_t lines = 0;
  for (size_t at = printed.find("[backward] "); at != std::string::npos; at = printed.find("[backward] ", at + 1)) ++lines;
  BOOST_TEST(recorded >= 5u);
  BOOST_TEST(lines == recorded);
}

// The view's computation: the queries' gradient it records against central differences taken
// here in double-checked float steps, and against its own finite-difference answer; for 10.5
// the four weights too.
BOOST_AUTO_TEST_CASE(the_views_gradients_match_finite_differences) {
  for (const std::string layer : {"dot", "mha"}) {
    BOOST_TEST_CONTEXT(layer) {
      const AttentionBackwardRequest r = request(layer);
      const JsonValue steps = parse_json(attention_backward_json(r)), fd = parse_json(attention_gradcheck_json(r));
      const JsonValue& grads = get(steps, "gradients");
      BOOST_TEST(grads.items.size() == (layer == "dot" ? 3u : 7u));
      std::set<std::string> names;
      for (size_t i = 0; i < grads.items.size(); ++i) {
        const std::vector<double> a = numbers(get(grads.items[i], "data")),
                                  n = numbers(get(get(fd, "gradients").items[i], "data"));
        double diff = 0, scale = 0;
        for (size_t k = 0; k < a.size(); ++k)
          diff = std::max(diff, std::fabs(a[k] - n[k])), scale = std::max(scale, std::fabs(a[k]));
        names.insert(get(grads.items[i], "name").text);
        BOOST_TEST(scale > 0.0, get(grads.items[i], "name").text);
        BOOST_TEST(diff <= 1e-2 * scale, get(grads.items[i], "name").text << ": " << diff << " of " << scale);
      }
      if (layer == "mha")
        for (const char* w : {"W_q.weight", "W_k.weight", "W_v.weight", "W_o.weight"}) BOOST_TEST(names.count(w) == 1u, w);
      // Row 0 reads keys 0 and 1 only (valid length 2): keys 2 and 3 get exactly 0.
      const std::vector<double> keys = numbers(get(grads.items[1], "data"));
      const size_t d = keys.size() / 4;
      for (size_t k = 2 * d; k < keys.size(); ++k) BOOST_TEST(keys[k] == 0.0);
      // Every step ran an op of the graph that needs a gradient, each once.
      const JsonValue& nodes = get(steps, "nodes");
      std::set<int> ran;
      for (const JsonValue& s : get(steps, "steps").items) ran.insert(std::stoi(get(s, "node").text));
      int ops = 0;
      for (const JsonValue& n : nodes.items) ops += !get(n, "inputs").items.empty() && get(n, "requires_grad").boolean;
      BOOST_TEST(ran.size() == get(steps, "steps").items.size());
      BOOST_TEST(static_cast<int>(ran.size()) == ops);
      BOOST_TEST(ops == (layer == "dot" ? 4 : 20));
    }
  }
}

// Each link a step carries names a line that is in its file: the first holding `text` at or
// after the first holding `within`.
BOOST_AUTO_TEST_CASE(every_source_link_finds_its_line) {
  for (const std::string layer : {"dot", "mha"}) {
    AttentionBackwardRequest r = request(layer);
    r.valid_lens = "3";  // one length for both queries
    const JsonValue steps = parse_json(attention_backward_json(r));
    std::vector<const JsonValue*> links{&get(steps, "engine")};
    int ops_with_links = 0;
    for (const JsonValue& n : get(steps, "nodes").items) {
      for (const JsonValue& l : get(n, "links").items) links.push_back(&l);
      for (const JsonValue& l : get(n, "callers").items) links.push_back(&l);
      ops_with_links += !get(n, "inputs").items.empty() && !get(n, "links").items.empty() && !get(n, "callers").items.empty();
    }
    BOOST_TEST(ops_with_links == (layer == "dot" ? 4 : 20));
    for (const JsonValue* l : links) {
      const std::string file = get(*l, "file").text, within = get(*l, "within").text, text = get(*l, "text").text;
      const std::string source = d2l_test::read_file(file);
      const size_t from = within.empty() ? 0 : source.find(within);
      BOOST_TEST((from != std::string::npos && source.find(text, from) != std::string::npos), file << ": " << within << " / " << text);
    }
  }
}

// A wrong input is refused with a message naming it, before anything runs.
BOOST_AUTO_TEST_CASE(wrong_inputs_are_named) {
  auto refused = [](AttentionBackwardRequest r, const std::string& words) {
    try {
      attention_backward_json(r);
    } catch (const std::exception& e) {
      BOOST_TEST(std::string(e.what()).find(words) != std::string::npos, e.what());
      return;
    }
    BOOST_ERROR("accepted: " << words);
  };
  AttentionBackwardRequest r = request("dot");
  refused([r]() mutable { r.keys = "1 0; 0"; return r; }(), "the keys: row 2 has 1 numbers, row 1 has 2");
  refused([r]() mutable { r.values = "1; 2"; return r; }(), "there are 4 keys and 2 values");
  refused([r]() mutable { r.queries = "1 0 1"; return r; }(), "queries and keys of the same length d");
  refused([r]() mutable { r.valid_lens = "1 2 3"; return r; }(), "one per query (2): got 3 numbers");
  refused([r]() mutable { r.valid_lens = "1.5"; return r; }(), "valid length 1.5");
  refused([r]() mutable { r.row = 2; return r; }(), "no row 2");
  refused([r]() mutable { r.queries = "1 x"; return r; }(), "'x' is not a number");
  refused([r]() mutable { r.layer = "mha"; r.num_hiddens = 6; r.num_heads = 4; return r; }(),
          "a multiple of num_heads: got 6 and 4");
}

BOOST_AUTO_TEST_SUITE_END()
