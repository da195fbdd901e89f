// tests/test_exercises_transformer_lm_cost.cpp — 10.7 exercises 3, 4 and 5: the decoder-only
// language model (layers/transformer_lm.h) and MultiHeadAttention's memory-efficient heads
// against references and by gradient checks, and the --quick runs of chapters/transformer_lm
// and chapters/attention_cost with their numbers checked for sense.
#include <boost/test/unit_test.hpp>
#include <stb/stb_image.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "core/autograd.h"
#include "core/ops.h"
#include "core/random.h"
#include "layers/multihead_attention.h"
#include "layers/transformer_lm.h"
#include "tests/gradcheck.h"
#include "tests/test_util.h"

namespace fs = std::filesystem;
using namespace d2l;

namespace {

float largest_difference(const Tensor& a, const Tensor& b) {
  const std::vector<float> x = a.to_vector(), y = b.to_vector();
  BOOST_REQUIRE_EQUAL(x.size(), y.size());
  float d = 0;
  for (size_t i = 0; i < x.size(); ++i) d = std::max(d, std::fabs(x[i] - y[i]));
  return d;
}

Tensor ids(const std::vector<float>& v, int64_t B) { return tensor(v, {B, static_cast<int64_t>(v.size()) / B}); }

// stdout of `build/chapters/<name> --threads 2 --out <tmp> <args>`, which must exit 0.
struct Run {
  d2l_test::TempDir tmp;
  std::string text;
  Run(const std::string& name, const std::string& args) : tmp(name + "_exercise") {
    const fs::path exe = fs::path(d2l_test::build_dir()) / "chapters" / name;
    BOOST_REQUIRE_MESSAGE(fs::exists(exe), exe.string() << " not built");
    const auto [rc, out] = d2l_test::run_capture(exe.string() + " --threads 2 --out " + (tmp.path / "out").string() +
                                                 " " + args);
    text = out;
    BOOST_REQUIRE_MESSAGE(rc == 0, name << " " << args << " exited with " << rc << ":\n" << text);
  }
  // The numbers on the first line starting with prefix (after it; words and units skipped).
  std::vector<double> numbers_after(const std::string& prefix) const {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
      if (line.rfind(prefix, 0) == 0) {
        std::vector<double> v;
        std::istringstream words(line.substr(prefix.size()));
        for (std::string w; words >> w;) {
          while (!w.empty() && (w.back() == ',' || w.back() == ':' || w.back() == 'x')) w.pop_back();
          char* end = nullptr;
          const double x = std::strtod(w.c_str(), &end);
          if (!w.empty() && end && *end == '\0') v.push_back(x);
        }
        return v;
      }
    BOOST_FAIL("no line starts with '" << prefix << "' in:\n" << text);
    return {};
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(exercises_transformer_lm_cost)

// The causal mask: changing token t changes no output before t; without the mask it does.
BOOST_AUTO_TEST_CASE(lm_outputs_see_only_the_past_when_causal) {
  for (bool causal : {true, false}) {
    manual_seed(1);
    TransformerLM net(12, 16, 32, 4, 2, 0.0f, causal);
    const Tensor a = net(ids({1, 2, 3, 4, 5, 6}, 1)), b = net(ids({1, 2, 3, 9, 5, 6}, 1));
    const float before = largest_difference(slice(a, 1, 0, 3), slice(b, 1, 0, 3));
    const float at = largest_difference(slice(a, 1, 3, 4), slice(b, 1, 3, 4));
    BOOST_TEST(at > 1e-3f);
    if (causal)
      BOOST_TEST(before == 0.0f);
    else
      BOOST_TEST(before > 1e-3f);
  }
}

// Cached decoding, one token per forward, gives the outputs of the whole sequence at once.
BOOST_AUTO_TEST_CASE(lm_cached_decoding_matches_the_full_forward) {
  manual_seed(2);
  TransformerLM net(12, 16, 32, 4, 2, 0.1f);
  net.eval();
  const std::vector<float> seq = {3, 1, 4, 1, 5, 9, 2};
  const Tensor full = net(ids(seq, 1));
  std::vector<Tensor> cache;
  const Tensor first = net(ids({3, 1, 4}, 1), &cache);  // a prompt, then one token at a time
  BOOST_TEST(largest_difference(first, slice(full, 1, 0, 3)) < 1e-5f);
  for (size_t t = 3; t < seq.size(); ++t) {
    const Tensor step = net(ids({seq[t]}, 1), &cache);
    BOOST_TEST(largest_difference(step, slice(full, 1, t, t + 1)) < 1e-5f, "step " << t);
  }
  BOOST_TEST(cache[0].size(1) == 7);
}

BOOST_AUTO_TEST_CASE(lm_block_gradcheck) {
  for (bool causal : {true, false}) {
    manual_seed(3);
    TransformerLMBlock block(8, 12, 2, 0.0f);
    BOOST_CHECK(test::gradcheck([&](std::vector<Tensor>& x) {
      Tensor cache;
      return block.forward(x[0], cache, causal);
    }, {normal(0, 1, {2, 4, 8})}, "TransformerLMBlock", block.parameters()));
  }
}

// MultiHeadAttention with memory-efficient heads: the plain layer's outputs and gradients,
// with the decoder's causal (per-query) valid lengths and with per-batch ones.
BOOST_AUTO_TEST_CASE(memory_efficient_heads_match_the_plain_layer) {
  for (int mask = 0; mask < 3; ++mask) {
    manual_seed(4);
    MultiHeadAttention mha(32, 32, 32, 32, 4, 0.0f);
    const Tensor X0 = normal(0, 1, {2, 70, 32});
    Tensor lens;
    if (mask == 1) lens = tensor({0.0f, 41.0f});
    if (mask == 2) lens = repeat(arange(1.0f, 71.0f), {2, 1});
    Tensor y[2], gx[2], gw[2];
    for (int way = 0; way < 2; ++way) {
      mha.memory_efficient = way == 1;
      Tensor X = d2l_test::leaf(X0.to_vector(), X0.shape());
      mha.zero_grad();
      y[way] = mha(X, X, X, lens);
      sum(y[way] * y[way]).backward();
      gx[way] = tensor(d2l_test::grad_of(X), X.shape());
      gw[way] = tensor(d2l_test::grad_of(mha.W_q.weight), mha.W_q.weight.shape());
    }
    BOOST_TEST(largest_difference(y[0], y[1]) < 1e-5f, "mask " << mask);
    BOOST_TEST(largest_difference(gx[0], gx[1]) < 1e-4f, "mask " << mask);
    BOOST_TEST(largest_difference(gw[0], gw[1]) < 1e-4f, "mask " << mask);
    BOOST_TEST(!mha.attention.attention_weights.defined());
  }
  MultiHeadAttention dropping(8, 8, 8, 8, 2, 0.5f);
  dropping.memory_efficient = true;
  const Tensor X = zeros({1, 3, 8});
  BOOST_CHECK_EXCEPTION(dropping(X, X, X), std::exception,
                        d2l_test::message_has({"MultiHeadAttention", "memory_efficient", "dropout"}));
  dropping.eval();
  BOOST_TEST(dropping(X, X, X).size(1) == 3);
}

BOOST_AUTO_TEST_CASE(memory_efficient_heads_gradcheck) {
  manual_seed(5);
  MultiHeadAttention mha(8, 8, 8, 8, 2, 0.0f);
  mha.memory_efficient = true;
  const Tensor lens = tensor({{1.0f, 2.0f, 3.0f}, {0.0f, 3.0f, 3.0f}});
  BOOST_CHECK(test::gradcheck([&](std::vector<Tensor>& x) { return mha(x[0], x[0], x[0], lens); },
                              {normal(0, 1, {2, 3, 8})}, "MultiHeadAttention (memory-efficient)", mha.parameters()));
}

// 10.7 ex. 3, --quick: the causal model's two perplexities agree (it cannot read ahead),
// both beat nothing absurd, and cached decoding reproduces the uncached tokens.
BOOST_AUTO_TEST_CASE(transformer_lm_quick) {
  const Run run("transformer_lm", "--quick");
  const std::vector<double> causal = run.numbers_after("causal     ");
  const std::vector<double> none = run.numbers_after("no mask    ");
  BOOST_REQUIRE_EQUAL(causal.size(), 3u);
  BOOST_REQUIRE_EQUAL(none.size(), 3u);
  BOOST_TEST(std::fabs(causal[1] - causal[2]) <= 1e-3 * causal[1]);  // teacher-forced == next-token
  for (double ppl : {causal[1], causal[2], none[1], none[2]}) BOOST_TEST((ppl > 1.0 && ppl < 1000.0));
  const std::vector<double> e1 = run.numbers_after("causal epoch 1/2, training loss ");
  const std::vector<double> e2 = run.numbers_after("causal epoch 2/2, training loss ");
  BOOST_TEST(e2.at(0) < e1.at(0));
  BOOST_TEST(run.text.find("same tokens: yes") != std::string::npos);
  BOOST_TEST(run.text.find("i'm => ") != std::string::npos);
}

// 10.7 ex. 4 and 5, --quick: eight measurements (2 layers x 2 kinds x 2 lengths), times and
// peaks that are numbers, and both figures.
BOOST_AUTO_TEST_CASE(attention_cost_quick) {
  const Run run("attention_cost", "--quick");
  int rows = 0;
  std::istringstream in(run.text);
  for (std::string line; std::getline(in, line);) {
    char tier[16], layer[16], impl[16];
    long long n = 0;
    double seconds = -1, mb = -1;
    if (std::sscanf(line.c_str(), "%15s %15s %15s %lld %lf %lf", tier, layer, impl, &n, &seconds, &mb) == 6) {
      ++rows;
      BOOST_TEST((n == 32 || n == 64));
      BOOST_TEST((seconds > 0 && seconds < 10));
      BOOST_TEST(mb > -50.0);  // a peak minus the memory held before: small, may round below 0
    }
  }
  BOOST_TEST(rows == 8);
  for (const char* png : {"time.png", "memory.png"}) {
    int w = 0, h = 0, comp = 0;
    BOOST_TEST(stbi_info((run.tmp.path / "out" / png).string().c_str(), &w, &h, &comp) == 1);
    BOOST_TEST(w > 100);
  }
}

BOOST_AUTO_TEST_SUITE_END()
