// tools/programs/backward_steps/attention_backward.cpp — attention_backward_json and
// attention_gradcheck_json (attention_backward.h).
//
// The JSON of attention_backward_json:
//   layer, section        "dot" and "10.3 DotProductAttention", or "mha" and "10.5 MultiHeadAttention"
//   target                {row, col, text}: what is differentiated, as the book would write it
//   output                {shape, data}: the layer's output
//   nodes                 the graph in forward order (leaves first): {op, name, section, shape,
//                         value, inputs (node indices), requires_grad, links, callers, masked}
//                         links: where the op is written: {label, file, within, text}, the line
//                         being the first holding `text` at or after the first holding `within`;
//                         callers: the layer lines that called it, outermost first; masked
//                         (masked_softmax only): 1 where a score is masked, 0 elsewhere
//   steps                 the backward in the order the engine ran it: {node, grad (arriving at
//                         the output), sent (per input: what the step added to its gradient, or null)}
//   gradients             the inputs' and parameters' gradients: {name, node, shape, data}
//   engine                the line of core/autograd.cpp that runs each step
#include "tools/programs/backward_steps/attention_backward.h"

#include <cmath>
#include <memory>
#include <sstream>

#include "core/creation.h"
#include "core/debug/backward_steps.h"
#include "core/ops.h"
#include "core/random.h"
#include "layers/attention_scoring_functions.h"
#include "layers/multihead_attention.h"
#include "tools/browser/json_out.h"

namespace d2l {
namespace {

using browser::JsonOut;

constexpr int64_t kMaxRows = 8, kMaxSize = 8, kMaxHiddens = 16;

// "1 0; 0 1" -> a (1, rows, cols) tensor; every row as long as the first.
Tensor parse_rows(const std::string& text, const char* what, int64_t max_size) {
  std::vector<float> data;
  int64_t rows = 0, cols = -1;
  std::stringstream all(text);
  for (std::string row; std::getline(all, row, ';');) {
    std::stringstream in(row);
    int64_t n = 0;
    for (std::string word; in >> word; ++n) {
      size_t used = 0;
      float v = 0;
      try {
        v = std::stof(word, &used);
      } catch (const std::exception&) {
      }
      check(used == word.size() && std::isfinite(v), "backward view", what, ": '", word, "' is not a number");
      data.push_back(v);
    }
    if (n == 0) continue;  // an empty row (a trailing ';')
    check(cols < 0 || n == cols, "backward view", what, ": row ", rows + 1, " has ", n, " numbers, row 1 has ", cols);
    cols = n;
    ++rows;
  }
  check(rows >= 1 && rows <= kMaxRows && cols <= max_size, "backward view", what, " must be 1 to ", kMaxRows,
        " rows of 1 to ", max_size, " numbers, rows separated by ';': got ", rows, " rows of ", cols);
  return tensor(data, {1, rows, cols});
}

std::string shape_json(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

std::string nums_json(const std::vector<float>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + JsonOut::number(v[i]);
  return out + "]";
}

std::string list_json(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i];
  return out + "]";
}

// --- the layer, built from the request ------------------------------------------------------

struct Attention {
  Tensor queries, keys, values, valid_lens;
  std::unique_ptr<DotProductAttention> dot;  // one of the two
  std::unique_ptr<MultiHeadAttention> mha;
  std::vector<std::pair<std::string, Tensor>> checked;  // what gets a gradient: inputs, then parameters
  int64_t row = 0, col = -1;

  Tensor forward() const {
    return mha ? (*mha)(queries, keys, values, valid_lens) : (*dot)(queries, keys, values, valid_lens);
  }
};

Attention build(const AttentionBackwardRequest& r) {
  check(r.layer == "dot" || r.layer == "mha", "backward view", "the layer is 'dot' (10.3) or 'mha' (10.5), not '",
        r.layer, "'");
  const bool mha = r.layer == "mha";
  Attention a;
  a.queries = parse_rows(r.queries, "the queries", kMaxSize).requires_grad_();
  a.keys = parse_rows(r.keys, "the keys", kMaxSize).requires_grad_();
  a.values = parse_rows(r.values, "the values", kMaxSize).requires_grad_();
  const int64_t Q = a.queries.size(1), K = a.keys.size(1);
  check(a.values.size(1) == K, "backward view", "there are ", K, " keys and ", a.values.size(1),
        " values: each key needs its value");
  check(mha || a.queries.size(2) == a.keys.size(2), "backward view",
        "scaled dot-product attention needs queries and keys of the same length d: queries ", a.queries.shape(),
        ", keys ", a.keys.shape());
  const Tensor lens = parse_rows(r.valid_lens, "the valid lengths", kMaxRows);
  check(lens.size(1) == 1 && (lens.size(2) == 1 || lens.size(2) == Q), "backward view",
        "give one valid length, or one per query (", Q, "): got ", lens.numel(), " numbers");
  // A leaf of its own, (1,) or (1, no. of queries), as masked_softmax takes it.
  a.valid_lens = tensor(lens.to_vector(), lens.size(2) == 1 ? Shape{1} : Shape{1, Q});
  const int64_t out_cols = mha ? r.num_hiddens : a.values.size(2);
  check(r.row >= 0 && r.row < Q && r.col >= -1 && r.col < out_cols, "backward view", "the output is (1, ", Q, ", ",
        out_cols, "): no row ", r.row, (r.col >= 0 ? ", column " + std::to_string(r.col) : std::string()));
  a.row = r.row;
  a.col = r.col;
  a.checked = {{"queries", a.queries}, {"keys", a.keys}, {"values", a.values}};
  if (mha) {
    check(r.num_hiddens >= 1 && r.num_hiddens <= kMaxHiddens && r.num_heads >= 1 &&
              r.num_hiddens % r.num_heads == 0,
          "backward view", "num_hiddens must be 1 to ", kMaxHiddens, " and a multiple of num_heads: got ",
          r.num_hiddens, " and ", r.num_heads);
    manual_seed(static_cast<uint64_t>(r.seed));
    a.mha = std::make_unique<MultiHeadAttention>(a.keys.size(2), a.queries.size(2), a.values.size(2),
                                                 r.num_hiddens, r.num_heads, 0.0f);
    a.mha->eval();
    for (const auto& [name, p] : a.mha->named_parameters()) a.checked.push_back({name, p});
  } else {
    a.dot = std::make_unique<DotProductAttention>(0.0f);
    a.dot->eval();
  }
  return a;
}

// d(target)/d(output): 1 at the chosen element, or along the chosen row.
Tensor seed_gradient(const Attention& a, const Shape& out) {
  Tensor g = zeros(out);
  for (int64_t j = 0; j < out[2]; ++j)
    if (a.col < 0 || a.col == j) g.data()[a.row * out[2] + j] = 1.0f;
  return g;
}

double target_value(const Attention& a, const Tensor& out) {
  const std::vector<float> v = out.to_vector();
  const int64_t cols = out.size(2);
  double s = 0;
  for (int64_t j = 0; j < cols; ++j)
    if (a.col < 0 || a.col == j) s += v[static_cast<size_t>(a.row * cols + j)];
  return s;
}

// --- where each step's op is written -------------------------------------------------------

struct Link {
  const char *label, *file, *within, *text;
};
std::string link_json(const Link& l) {
  return JsonOut().str("label", l.label).str("file", l.file).str("within", l.within).str("text", l.text).done();
}

// The op's forward, its backward and the reference kernel the pages run (core/kernels/reference/).
std::vector<Link> op_links(const std::string& op) {
  if (op == "bmm")
    return {{"forward", "core/ops/matmul.cpp", "", "Tensor bmm("},
            {"backward", "core/ops/matmul.cpp", "Tensor product(", "return op.finish(y, [ta, tb"},
            {"kernel", "core/kernels/reference/matmul.cpp", "", "void matmul_backward("}};
  if (op == "mul_scalar")
    return {{"forward", "core/ops/elementwise.cpp", "", "Tensor mul(const Tensor& a, float s)"},
            {"backward", "core/ops/elementwise.cpp", "Tensor unary(", "return op.finish(y, [f, s, needs_y]"},
            {"kernel", "core/kernels/reference/elementwise.cpp", "", "void unary_backward("},
            {"derivative", "core/kernels/reference/elementwise.cpp", "float unary_derivative(", "case Unary::mul_scalar:"}};
  if (op == "masked_softmax")
    return {{"forward", "core/ops/softmax.cpp", "", "Tensor masked_softmax("},
            {"backward", "core/ops/softmax.cpp", "Tensor masked_softmax(", "kernels::masked_softmax_backward("},
            {"kernel", "core/kernels/reference/softmax.cpp", "", "void masked_softmax_backward("}};
  if (op == "linear")
    return {{"forward", "core/ops/matmul.cpp", "", "Tensor linear("},
            {"backward", "core/ops/matmul.cpp", "Tensor linear(", "kernels::linear_backward("},
            {"kernel", "core/kernels/reference/matmul.cpp", "", "void linear_backward("}};
  if (op == "reshape")
    return {{"forward", "core/ops/shape.cpp", "", "Tensor reshape(const Tensor& x"},
            {"backward", "core/ops/shape.cpp", "Tensor reshaped(", "op.gradient_is_identity(0);"},
            {"kernel", "core/engine/bookkeeping.cpp", "", "void add_identity_grads("}};
  if (op == "permute")
    return {{"forward", "core/ops/shape.cpp", "", "Tensor permute("},
            {"backward", "core/ops/shape.cpp", "Tensor permute(", "// Backward: the same walk"}};
  return {};
}

// The layer lines that called node i's op, outermost first.
std::vector<Link> caller_links(const std::vector<RecordedNode>& g, int i) {
  auto node = [&g](int k) -> const RecordedNode& { return g[static_cast<size_t>(k)]; };
  const RecordedNode& n = node(i);
  const auto in = [&n](const char* layer) { return n.section.find(layer) != std::string::npos; };
  const char* mha = "layers/multihead_attention.cpp";
  std::vector<Link> out;
  if (in("DotProductAttention")) {
    if (in("MultiHeadAttention")) out.push_back({"called by", mha, "", "(*attention)(q, k, v, lens)"});
    const char* h = "layers/attention_scoring_functions.h";
    if (n.op == "masked_softmax")
      out.push_back({"layer", h, "", "masked_softmax(layer.score(queries, keys)"});
    else if (n.op == "bmm" && node(n.inputs[0]).op == "masked_softmax")  // the pooling, weights x values
      out.push_back({"layer", h, "", "return bmm(layer.dropout("});
    else  // the score and its scaling
      out.push_back({"layer", "layers/attention_scoring_functions.cpp", "", "return bmm(queries, keys, false, true)"});
    return out;
  }
  if (!in("MultiHeadAttention")) return out;
  // The projection (W_q, W_k, W_v or W_o) a node comes from: the first linear below it along
  // the first inputs; none for transpose_output's ops, which sit above the heads.
  std::string projection;
  for (int k = i; k >= 0 && projection.empty() && node(k).section.find("DotProductAttention") == std::string::npos;
       k = node(k).inputs.empty() ? -1 : node(k).inputs[0])
    if (node(k).op == "linear") projection = node(node(k).inputs[1]).name;
  const std::string p = projection.substr(0, 3);  // "W_q"
  if (n.op == "linear") {
    out.push_back({"called by", mha, "",
                   p == "W_q" ? "W_q(queries)" : p == "W_k" ? "W_k(keys)" : p == "W_v" ? "W_v(values)" : "W_o(transpose_output("});
    out.push_back({"Linear", "core/nn/basic.cpp", "Tensor Linear::forward(", "return linear(x, weight, bias);"});
  } else if (n.op == "reshape" || n.op == "permute") {
    const bool qkv = !p.empty();
    out.push_back({"called by", mha, "",
                   !qkv ? "W_o(transpose_output(" : p == "W_q" ? "transpose_qkv(W_q(" : p == "W_k" ? "transpose_qkv(W_k(" : "transpose_qkv(W_v("});
    const bool first = n.op == "reshape" && node(n.inputs[0]).shape.size() == 3;
    out.push_back({"layer", mha, qkv ? "Tensor transpose_qkv(" : "Tensor transpose_output(",
                   n.op == "permute" ? "permute(Y" : first ? "reshape(X" : "return reshape(Y"});
  }
  return out;
}

// For a masked_softmax node: 1 where the score is masked (key index >= the row's valid length).
std::vector<float> masked_positions(const std::vector<RecordedNode>& g, const RecordedNode& n) {
  const RecordedNode& lens = g.at(static_cast<size_t>(n.inputs[1]));
  const int64_t B = n.shape[0], Q = n.shape[1], K = n.shape[2];
  const bool per_query = lens.shape.size() == 2;
  std::vector<float> m(static_cast<size_t>(B * Q * K));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t q = 0; q < Q; ++q)
      for (int64_t k = 0; k < K; ++k)
        m[static_cast<size_t>((b * Q + q) * K + k)] = k >= lens.value[static_cast<size_t>(per_query ? b * Q + q : b)];
  return m;
}

}  // namespace

std::string attention_backward_json(const AttentionBackwardRequest& request) {
  Attention a = build(request);
  std::map<const Node*, std::string> names{{a.queries.node(), "queries"},
                                           {a.keys.node(), "keys"},
                                           {a.values.node(), "values"},
                                           {a.valid_lens.node(), "valid_lens"}};
  BackwardRecorder recorder;
  Tensor out = a.forward();
  recorder.take_graph(out, names);
  out.backward(seed_gradient(a, out.shape()));
  const std::vector<RecordedNode>& g = recorder.graph();

  std::vector<std::string> nodes, steps, gradients;
  for (size_t i = 0; i < g.size(); ++i) {
    const RecordedNode& n = g[i];
    std::vector<std::string> links, callers, inputs;
    for (const Link& l : op_links(n.op)) links.push_back(link_json(l));
    for (const Link& l : caller_links(g, static_cast<int>(i))) callers.push_back(link_json(l));
    for (int k : n.inputs) inputs.push_back(std::to_string(k));
    JsonOut o;
    o.str("op", n.op).str("name", n.name).str("section", n.section).raw("shape", shape_json(n.shape));
    o.nums("value", n.value).raw("inputs", list_json(inputs)).raw("requires_grad", n.requires_grad ? "true" : "false");
    o.raw("links", list_json(links)).raw("callers", list_json(callers));
    if (n.op == "masked_softmax") o.nums("masked", masked_positions(g, n));
    nodes.push_back(o.done());
  }
  for (const BackwardStep& s : recorder.steps()) {
    std::vector<std::string> sent;
    for (const std::vector<float>& v : s.sent) sent.push_back(v.empty() ? "null" : nums_json(v));
    steps.push_back(JsonOut().num("node", s.node).nums("grad", s.grad).raw("sent", list_json(sent)).done());
  }
  for (const auto& [name, t] : a.checked)
    gradients.push_back(JsonOut()
                            .str("name", name)
                            .num("node", recorder.index_of(t.node()))
                            .raw("shape", shape_json(t.shape()))
                            .nums("data", t.grad().defined() ? t.grad().to_vector() : std::vector<float>(t.numel()))
                            .done());
  const bool mha = request.layer == "mha";
  std::string target = "output[0, " + std::to_string(a.row) + ", " +
                       (a.col < 0 ? std::string(":].sum()") : std::to_string(a.col) + "]");
  return JsonOut()
      .str("layer", request.layer)
      .str("section", mha ? MultiHeadAttention::section : DotProductAttention::section)
      .raw("target", JsonOut().num("row", a.row).num("col", a.col).str("text", target).done())
      .raw("output", JsonOut().raw("shape", shape_json(out.shape())).nums("data", out.to_vector()).done())
      .raw("nodes", list_json(nodes))
      .raw("steps", list_json(steps))
      .raw("gradients", list_json(gradients))
      .raw("engine", link_json({"run by", "core/autograd.cpp", "void run_backward(", "n->backward_fn(*n);"}))
      .done();
}

std::string attention_gradcheck_json(const AttentionBackwardRequest& request) {
  Attention a = build(request);
  NoGrad no_grad;
  // eps as tests/gradcheck.h reasons: an output of size ~1 moves by ~1e-3 x its gradient,
  // four digits above float32 rounding, while the central difference's eps² term stays far below.
  const float eps = 1e-3f;
  std::vector<std::string> gradients;
  for (auto& [name, t] : a.checked) {
    std::vector<float> numeric(static_cast<size_t>(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) {
      const float x = t.data()[i];
      t.data()[i] = x + eps;
      const double up = target_value(a, a.forward());
      t.data()[i] = x - eps;
      const double down = target_value(a, a.forward());
      t.data()[i] = x;
      numeric[static_cast<size_t>(i)] = static_cast<float>((up - down) / (2.0 * eps));
    }
    gradients.push_back(JsonOut().str("name", name).raw("shape", shape_json(t.shape())).nums("data", numeric).done());
  }
  return JsonOut().num("eps", eps).raw("gradients", list_json(gradients)).done();
}

}  // namespace d2l
