// tests/test_module_print.cpp — printing modules as PyTorch's print(net) does (Module::repr,
// extra_repr, operator<<), summary(net) and python_float.
//
// The expected strings are what PyTorch 1.13 (Debian's python3-torch) printed for the same
// module trees, built by tests/module_repr_torch.py with the book's class names, children
// and sizes:
//     /usr/bin/python3 tests/module_repr_torch.py
// That output is kept unchanged in tests/fixtures/module_repr_torch.txt.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "core/nn/container.h"
#include "core/nn/module.h"
#include "layers/attention_scoring_functions.h"
#include "layers/bahdanau_attention.h"
#include "core/nn/basic.h"
#include "layers/gru.h"
#include "layers/multihead_attention.h"
#include "layers/nadaraya_watson.h"
#include "layers/natural_language_inference_attention.h"
#include "layers/seq2seq.h"
#include "layers/transformer.h"

namespace {

// PyTorch's output: tests/fixtures/module_repr_torch.txt is what
//     /usr/bin/python3 tests/module_repr_torch.py > tests/fixtures/module_repr_torch.txt
// wrote; pytorch_repr(name) is its block between '=== name' and the next '=== ' line.
std::string pytorch_repr(const std::string& name) {
  const std::string path = "tests/fixtures/module_repr_torch.txt";
  std::ifstream in(path);
  BOOST_REQUIRE_MESSAGE(in, "cannot open " << path << " (the suite runs from the repository root)");
  std::string line, block;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("=== ", 0) == 0) {
      if (inside) break;
      inside = line == "=== " + name;
    } else if (inside) {
      block += (block.empty() ? "" : "\n") + line;
    }
  }
  BOOST_REQUIRE_MESSAGE(!block.empty(), "no block '=== " << name << "' in " << path);
  return block;
}

// ---- modules built only for these tests ----------------------------------------------------
// The script's WithSettings: its own setting (extra_repr) and one child.
class WithSettings : public d2l::Module {
 public:
  WithSettings() : proj(2, 3, false) { register_module("proj", proj); }
  std::string extra_repr() const override { return "scale=" + d2l::python_float(0.5f); }
  d2l::Linear proj;
};

// nn.Sequential(nn.LayerNorm(2), nn.Linear(3, 4)).
// Built with core/nn/container.h's Sequential, which owns its modules and numbers them.
struct NormThenLinear {
  d2l::Sequential seq;
  NormThenLinear() {
    seq.add<d2l::LayerNorm>(2);
    seq.add<d2l::Linear>(3, 4);
  }
};

// Compares line by line, so a failure names the first line that differs.
void check_lines(const std::string& got, const std::string& want) {
  std::istringstream g(got), w(want);
  std::string gl, wl;
  int line = 1;
  for (; std::getline(w, wl); ++line) {
    const bool more = static_cast<bool>(std::getline(g, gl));
    BOOST_REQUIRE_MESSAGE(more, "line " << line << ": output ends early, want '" << wl << "'");
    BOOST_REQUIRE_MESSAGE(gl == wl, "line " << line << ":\n  got  '" << gl << "'\n  want '" << wl << "'");
  }
  BOOST_CHECK_MESSAGE(!std::getline(g, gl), "line " << line << ": extra output '" << gl << "'");
  BOOST_CHECK_EQUAL(got, want);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(module_print)

BOOST_AUTO_TEST_CASE(book_modules_print_as_pytorch) {
  {  // 10.5 and 10.6 print this after attention.eval()
    d2l::MultiHeadAttention attention(100, 100, 100, 100, 5, 0.5f);
    check_lines(attention.repr(), pytorch_repr("multihead_attention"));
    std::ostringstream os;
    os << attention;
    BOOST_CHECK_EQUAL(os.str(), pytorch_repr("multihead_attention"));
  }
  check_lines(d2l::AdditiveAttention(2, 20, 8, 0.1f).repr(), pytorch_repr("additive_attention"));
  check_lines(d2l::NWKernelRegression().repr(), pytorch_repr("nw_kernel_regression"));
  check_lines(NormThenLinear().seq.repr(), pytorch_repr("layer_norm_linear"));
  {
    d2l::Seq2SeqEncoder encoder(10, 8, 16, 2, 0.1f);
    d2l::Seq2SeqAttentionDecoder decoder(10, 8, 16, 2, 0.1f);
    d2l::EncoderDecoder net(encoder, decoder);
    check_lines(net.repr(), pytorch_repr("bahdanau"));
  }
  check_lines(d2l::GRU(4, 6).repr(), pytorch_repr("gru_one_layer"));
  check_lines(d2l::TransformerEncoder(200, 24, 24, 24, 24, {100, 24}, 24, 48, 8, 2, 0.5f).repr(),
              pytorch_repr("transformer_encoder"));
  check_lines(d2l::TransformerDecoder(20, 8, 8, 8, 8, {8}, 8, 16, 2, 1, 0.1f).repr(), pytorch_repr("transformer_decoder"));
  check_lines(d2l::DecomposableAttention(50, 100, 200).repr(), pytorch_repr("decomposable_attention"));
  check_lines(WithSettings().repr(), pytorch_repr("with_settings"));
}

// The containers added for printing change no parameter name.
BOOST_AUTO_TEST_CASE(registered_names_unchanged) {
  d2l::TransformerEncoder encoder(200, 24, 24, 24, 24, {100, 24}, 24, 48, 8, 2, 0.5f);
  const auto params = encoder.named_parameters();
  BOOST_REQUIRE_GE(params.size(), 3u);
  BOOST_CHECK_EQUAL(params[0].first, "embedding.weight");
  BOOST_CHECK_EQUAL(params[1].first, "blks.block0.attention.W_q.weight");
  BOOST_CHECK_EQUAL(params.back().first, "blks.block1.addnorm2.ln.bias");
  d2l::mlp h(400, 200, true);
  const auto hp = h.named_parameters();
  BOOST_REQUIRE_EQUAL(hp.size(), 4u);
  BOOST_CHECK_EQUAL(hp[0].first, "1.weight");
  BOOST_CHECK_EQUAL(hp[2].first, "5.weight");
  d2l::PositionWiseFFN ffn(4, 4, 8);
  BOOST_CHECK_EQUAL(ffn.named_parameters()[2].first, "dense2.weight");
}

BOOST_AUTO_TEST_CASE(summary_lists_shapes_and_total) {
  // Hand-counted: four 100 x 100 weights, no biases.
  const d2l::MultiHeadAttention attention(100, 100, 100, 100, 5, 0.5f);
  BOOST_CHECK_EQUAL(d2l::summary(attention),
                    "MultiHeadAttention\n"
                    "parameter          shape       count\n"
                    "W_q.weight         (100, 100)  10000\n"
                    "W_k.weight         (100, 100)  10000\n"
                    "W_v.weight         (100, 100)  10000\n"
                    "W_o.weight         (100, 100)  10000\n"
                    "total (4 tensors)              40000\n");
  // Linear(3, 4): weight (4, 3) = 12, bias (4,) = 4; LayerNorm(2): 2 + 2.
  NormThenLinear m;
  BOOST_CHECK_EQUAL(d2l::summary(m.seq),
                    "Sequential\n"
                    "parameter          shape   count\n"
                    "0.weight           (2,)        2\n"
                    "0.bias             (2,)        2\n"
                    "1.weight           (4, 3)     12\n"
                    "1.bias             (4,)        4\n"
                    "total (4 tensors)             20\n");
  BOOST_CHECK_EQUAL(d2l::summary(d2l::NWKernelRegression()),
                    "NWKernelRegression\n"
                    "parameter         shape  count\n"
                    "w                 (1,)       1\n"
                    "total (1 tensor)             1\n");
}

// Python's repr of floats (checked against python3: repr(0.1), repr(1e-05), ...).
BOOST_AUTO_TEST_CASE(python_float_repr) {
  BOOST_CHECK_EQUAL(d2l::python_float(0.5f), "0.5");
  BOOST_CHECK_EQUAL(d2l::python_float(0.1f), "0.1");
  BOOST_CHECK_EQUAL(d2l::python_float(0.2f), "0.2");
  BOOST_CHECK_EQUAL(d2l::python_float(1e-5f), "1e-05");
  BOOST_CHECK_EQUAL(d2l::python_float(1.5e-7f), "1.5e-07");
  BOOST_CHECK_EQUAL(d2l::python_float(0.00025f), "0.00025");
  BOOST_CHECK_EQUAL(d2l::python_float(0.0f), "0.0");
  BOOST_CHECK_EQUAL(d2l::python_float(1.0f), "1.0");
  BOOST_CHECK_EQUAL(d2l::python_float(-2.0f), "-2.0");
  BOOST_CHECK_EQUAL(d2l::python_float(100000.0f), "100000.0");
  BOOST_CHECK_EQUAL(d2l::python_float(123.456f), "123.456");
  BOOST_CHECK_EQUAL(d2l::python_float(1e16f), "1e+16");
}

BOOST_AUTO_TEST_CASE(type_name_without_namespace) {
  BOOST_CHECK_EQUAL(d2l::Linear(2, 3).type_name(), "Linear");
  BOOST_CHECK_EQUAL(WithSettings().type_name(), "WithSettings");  // (anonymous namespace) dropped
  BOOST_CHECK_EQUAL(d2l::mlp(2, 3, false).type_name(), "Sequential");
  BOOST_CHECK_EQUAL(d2l::Flatten().repr(), "Flatten(start_dim=1, end_dim=-1)");
  BOOST_CHECK_EQUAL(d2l::ReLU().repr(), "ReLU()");
  BOOST_CHECK_EQUAL(d2l::Embedding(10, 8).repr(), "Embedding(10, 8)");
}

BOOST_AUTO_TEST_SUITE_END()
