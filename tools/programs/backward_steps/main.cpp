// tools/programs/backward_steps/main.cpp — the backward pass of 10.3's scaled dot-product
// attention or 10.5's multi-head attention on your own input, step by step, natively: the same
// computation the companion pages' backward view runs in the browser (attention_backward.h),
// so its numbers can be checked against the page's.
//
//   build/tools/backward_steps                         10.3, the view's default input
//   build/tools/backward_steps --layer mha --heads 2   10.5 MultiHeadAttention
//   build/tools/backward_steps --queries "1 0; 0 1" --keys "1 0; 0 1; 1 1"
//       --values "1; 2; 3" --valid "2" --row 1 --col 0  (one line) d output[0, 1, 0] / d everything
//   build/tools/backward_steps --json                  the view's JSON: steps, then the
//                                                      finite differences, one line each
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>

#include "core/io/json.h"
#include "tools/programs/backward_steps/attention_backward.h"

using namespace d2l;

namespace {

const char* const kUsage =
    "usage: backward_steps [--layer dot|mha] [--queries ROWS] [--keys ROWS] [--values ROWS] [--valid LENS]\n"
    "                      [--row N] [--col N] [--hiddens N] [--heads N] [--seed N] [--json]\n"
    "  ROWS: numbers, rows separated by ';' (\"1 0; 0 1\"); LENS: one valid length, or one per query\n"
    "  --col N: differentiate output[0, row, N]; without it, the sum of output row --row\n";

const JsonValue& get(const JsonValue& object, const char* key) {
  for (const auto& [k, v] : object.members)
    if (k == key) return v;
  throw std::runtime_error(std::string("no '") + key + "' in the JSON");
}

std::string shape_text(const JsonValue& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.items.size(); ++i) s += (i ? ", " : "") + shape.items[i].text;
  return s + (shape.items.size() == 1 ? ",)" : ")");
}

std::string numbers(const JsonValue& v) {
  std::string s;
  for (size_t i = 0; i < v.items.size(); ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%.6g", i ? " " : "", std::stod(v.items[i].text));
    s += buf;
  }
  return s;
}

// Largest |analytic - numeric| over the largest |gradient| (0 when both are all zero).
double relative_error(const JsonValue& analytic, const JsonValue& numeric) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < analytic.items.size(); ++i) {
    const double a = std::stod(analytic.items[i].text), n = std::stod(numeric.items[i].text);
    diff = std::max(diff, std::fabs(a - n));
    scale = std::max({scale, std::fabs(a), std::fabs(n)});
  }
  return scale > 0 ? diff / scale : 0.0;
}

void print_text(const JsonValue& r, const JsonValue& fd) {
  const JsonValue& nodes = get(r, "nodes");
  std::cout << get(r, "section").text << ", differentiating " << get(get(r, "target"), "text").text << "\n"
            << "output " << shape_text(get(get(r, "output"), "shape")) << ": " << numbers(get(get(r, "output"), "data"))
            << "\n\nthe backward, in the order the engine runs it:\n";
  int k = 0;
  for (const JsonValue& s : get(r, "steps").items) {
    const JsonValue& n = nodes.items.at(static_cast<size_t>(std::stoi(get(s, "node").text)));
    std::cout << "step " << ++k << ": " << get(n, "op").text
              << (get(n, "section").text.empty() ? "" : " in " + get(n, "section").text) << ", output "
              << shape_text(get(n, "shape")) << "\n  grad arriving: " << numbers(get(s, "grad")) << "\n";
    for (size_t j = 0; j < get(s, "sent").items.size(); ++j) {
      const int at = std::stoi(get(n, "inputs").items[j].text);
      if (at < 0) continue;  // an absent input (a Linear without bias)
      const JsonValue& in = nodes.items.at(static_cast<size_t>(at));
      const std::string who = get(in, "name").text.empty() ? get(in, "op").text : get(in, "name").text;
      const JsonValue& sent = get(s, "sent").items[j];
      std::cout << "  to input " << j << " " << who << " " << shape_text(get(in, "shape")) << ": "
                << (sent.kind == JsonValue::Kind::null ? std::string("no gradient") : numbers(sent)) << "\n";
    }
  }
  std::cout << "\ngradients (finite-difference check: largest |difference| / largest |gradient|):\n";
  for (size_t i = 0; i < get(r, "gradients").items.size(); ++i) {
    const JsonValue& g = get(r, "gradients").items[i];
    char err[32];
    std::snprintf(err, sizeof err, "%.2e", relative_error(get(g, "data"), get(get(fd, "gradients").items[i], "data")));
    std::cout << "d/d " << get(g, "name").text << " " << shape_text(get(g, "shape")) << ": " << numbers(get(g, "data"))
              << "\n  finite differences: relative error " << err << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  AttentionBackwardRequest r;
  r.queries = "0.5 1; 1 -0.5";
  r.keys = "1 0; 0 1; 1 1; -1 0.5";
  r.values = "1 0 2; 0 1 -1; 3 1 0; -2 0.5 1";
  r.valid_lens = "2 3";
  bool json = false;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
        return argv[++i];
      };
      if (a == "--layer") r.layer = value();
      else if (a == "--queries") r.queries = value();
      else if (a == "--keys") r.keys = value();
      else if (a == "--values") r.values = value();
      else if (a == "--valid") r.valid_lens = value();
      else if (a == "--row") r.row = std::stoll(value());
      else if (a == "--col") r.col = std::stoll(value());
      else if (a == "--hiddens") r.num_hiddens = std::stoll(value());
      else if (a == "--heads") r.num_heads = std::stoll(value());
      else if (a == "--seed") r.seed = std::stoll(value());
      else if (a == "--json") json = true;
      else if (a == "--help") return std::cout << kUsage, 0;
      else throw std::runtime_error("unknown option '" + a + "'");
    }
    const std::string steps = attention_backward_json(r), fd = attention_gradcheck_json(r);
    if (json) std::cout << steps << "\n" << fd << "\n";
    else print_text(parse_json(steps), parse_json(fd));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "backward_steps: %s\n%s", e.what(), kUsage);
    return 2;
  }
  return 0;
}
