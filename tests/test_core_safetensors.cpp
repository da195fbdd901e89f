// tests/test_core_safetensors.cpp — the safetensors reader and writer (core/io/safetensors.h, the JSON
// of core/io/json.h) and the crossing to PyTorch: the chapters' models register the book's
// state_dict() names (checked against files PyTorch wrote), fixtures written by PyTorch in
// F32, BF16 and F64 (tests/fixtures/safetensors/, README there) give here the outputs PyTorch
// computed, a round trip here -> file -> here is bit-exact, and hostile headers are refused.
// (The chapter programs' --save/--load of .safetensors files: test_tools_checkpoint.cpp.)
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstring>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "core/io/json.h"
#include "core/random.h"
#include "core/io/safetensors.h"
#include "layers/bahdanau_attention.h"
#include "layers/encoder_decoder.h"
#include "layers/nadaraya_watson.h"
#include "layers/natural_language_inference_attention.h"
#include "layers/seq2seq.h"
#include "layers/transformer.h"
#include "tests/test_util.h"
#include "tools/d2l/train/checkpoint.h"
#include "tools/programs/crossover/crossover.h"

using d2l_test::message_has;
using d2l_test::read_file;
using d2l_test::TempDir;

namespace {

const std::string kDir = "tests/fixtures/safetensors/";

// A file from its JSON header and data, the header size as written.
std::string file_of(const std::string& header, const std::string& data = "", int64_t size = -1) {
  std::string s;
  const uint64_t n = size >= 0 ? static_cast<uint64_t>(size) : header.size();
  for (int i = 0; i < 8; ++i) s += static_cast<char>((n >> (8 * i)) & 0xFF);
  return s + header + data;
}

std::string f32_bytes(const std::vector<float>& v) {
  std::string s(4 * v.size(), '\0');
  std::memcpy(&s[0], v.data(), s.size());  // the test machine is little-endian, as the format
  return s;
}

// The names and shapes of a model's parameters, as "name (a, b)".
std::vector<std::string> names_shapes(const d2l::Module& net) {
  std::vector<std::string> out;
  for (const auto& [name, t] : net.named_parameters()) out.push_back(name + " " + d2l::shape_str(t.shape()));
  return out;
}
std::vector<std::string> names_shapes(const d2l::SafetensorsFile& f) {
  std::vector<std::string> out;
  for (const auto& t : f.tensors) out.push_back(t.name + " " + d2l::shape_str(t.shape));
  return out;
}

// The fixtures' models, with the hyper-parameters the fixture script gives them.
struct Bahdanau {
  d2l::Seq2SeqEncoder encoder{12, 8, 8, 2, 0.1f};
  d2l::Seq2SeqAttentionDecoder decoder{16, 8, 8, 2, 0.1f};
  d2l::EncoderDecoder net{encoder, decoder};
};
struct Transformer {
  d2l::TransformerEncoder encoder{12, 8, 8, 8, 8, {8}, 8, 16, 2, 2, 0.1f};
  d2l::TransformerDecoder decoder{16, 8, 8, 8, 8, {8}, 8, 16, 2, 2, 0.1f};
  d2l::EncoderDecoder net{encoder, decoder};
};

// Every string equal and every number within tol, walking both JSON trees.
void expect_same_json(const d2l::JsonValue& a, const d2l::JsonValue& b, double tol, const std::string& at, double& worst) {
  BOOST_REQUIRE_MESSAGE(a.kind == b.kind, at << ": " << a.kind_name() << " here, " << b.kind_name() << " in PyTorch's");
  switch (a.kind) {
    case d2l::JsonValue::Kind::number: {
      const double d = std::fabs(std::stod(a.text) - std::stod(b.text));
      worst = std::max(worst, d);
      BOOST_TEST(d <= tol, at << ": " << a.text << " here, " << b.text << " in PyTorch's");
      break;
    }
    case d2l::JsonValue::Kind::string: BOOST_TEST(a.text == b.text, at << ": '" << a.text << "' vs '" << b.text << "'"); break;
    case d2l::JsonValue::Kind::array:
      BOOST_REQUIRE_MESSAGE(a.items.size() == b.items.size(), at << ": " << a.items.size() << " vs " << b.items.size() << " items");
      for (size_t i = 0; i < a.items.size(); ++i) expect_same_json(a.items[i], b.items[i], tol, at + "[" + std::to_string(i) + "]", worst);
      break;
    case d2l::JsonValue::Kind::object:
      BOOST_REQUIRE_EQUAL(a.members.size(), b.members.size());
      for (size_t i = 0; i < a.members.size(); ++i) {
        BOOST_REQUIRE_EQUAL(a.members[i].first, b.members[i].first);
        expect_same_json(a.members[i].second, b.members[i].second, tol, at + "." + a.members[i].first, worst);
      }
      break;
    default: break;
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core_safetensors)

BOOST_AUTO_TEST_CASE(models_register_the_books_state_dict_names) {
  // PyTorch's state_dict() of the book's models, in its order, as the fixture script wrote it.
  Bahdanau b;
  BOOST_TEST(names_shapes(b.net) == names_shapes(d2l::read_safetensors(kDir + "bahdanau_attention.safetensors")),
             boost::test_tools::per_element());
  Transformer t;
  BOOST_TEST(names_shapes(t.net) == names_shapes(d2l::read_safetensors(kDir + "transformer.safetensors")),
             boost::test_tools::per_element());
  d2l::DecomposableAttention nli(12, 6, 8, 6, 12, 16);
  BOOST_TEST(names_shapes(nli) == names_shapes(d2l::read_safetensors(kDir + "decomposable_attention.safetensors")),
             boost::test_tools::per_element());
  // 10.2: self.w = nn.Parameter(torch.rand((1,), requires_grad=True)).
  d2l::NWKernelRegression nw;
  BOOST_TEST(names_shapes(nw) == std::vector<std::string>{"w (1,)"}, boost::test_tools::per_element());
  // A few by hand, as the book's notebooks print them.
  const auto names = names_shapes(t.net);
  BOOST_TEST(names[1] == "encoder.blks.block0.attention.W_q.weight (8, 8)");
  BOOST_TEST(names_shapes(b.net)[1] == "encoder.rnn.weight_ih_l0 (24, 8)");
}

BOOST_AUTO_TEST_CASE(fixtures_written_by_pytorch_give_pytorchs_outputs) {
  // F32 (10.4), BF16 (10.7) and F64 (15.5) files; the outputs PyTorch computed beside them.
  for (const std::string name : {"bahdanau_attention", "transformer", "decomposable_attention"}) {
    BOOST_TEST_CONTEXT(name) {
      std::ostringstream ours;
      d2l::crossover_outputs(ours, kDir + name + ".safetensors");
      double worst = 0;
      expect_same_json(d2l::parse_json(ours.str()), d2l::parse_json(read_file(kDir + name + ".expected.json")), 1e-5,
                       name, worst);
      BOOST_TEST_MESSAGE(name << ": largest difference " << worst);
    }
  }
}

BOOST_AUTO_TEST_CASE(round_trip_is_bit_exact) {
  TempDir dir("safetensors_round_trip");
  d2l::manual_seed(3);
  Transformer a;
  const d2l::ModelSettings settings{{"model", "transformer"}, {"num_hiddens", "8"}};
  d2l::save_safetensors_params(dir("t.safetensors"), a.net, settings, {{"src_vocab.tokens", "[\"<unk>\",\"é\"]"}});
  d2l::manual_seed(4);
  Transformer b;
  BOOST_REQUIRE(b.net.parameters()[0].data()[0] != a.net.parameters()[0].data()[0]);
  const d2l::ParamFileContents c = d2l::read_safetensors_params(dir("t.safetensors"), b.net, settings);
  BOOST_TEST((c.settings == settings));
  d2l::copy_parameters(c, b.net);
  const auto pa = a.net.named_parameters(), pb = b.net.named_parameters();
  for (size_t i = 0; i < pa.size(); ++i)
    BOOST_TEST(std::memcmp(pa[i].second.data(), pb[i].second.data(), 4 * pa[i].second.numel()) == 0, pa[i].first);
  // The layout: a header size that keeps the data 8-byte aligned, metadata first, raw LE floats.
  const std::string bytes = read_file(dir("t.safetensors"));
  uint64_t n;
  std::memcpy(&n, bytes.data(), 8);
  BOOST_TEST(n % 8 == 0);
  const d2l::JsonValue h = d2l::parse_json(bytes.substr(8, n));
  BOOST_TEST(h.members[0].first == "__metadata__");
  BOOST_TEST(h.members[0].second.members[0].second.text == "pt");  // "format"
  BOOST_TEST(h.members[0].second.members[3].second.text == "[\"<unk>\",\"é\"]");
  BOOST_TEST(std::memcmp(bytes.data() + 8 + n, pa[0].second.data(), 4 * pa[0].second.numel()) == 0);
  // The settings may come in another order (PyTorch writers may sort them), not other values.
  BOOST_CHECK_NO_THROW(d2l::read_safetensors_params(dir("t.safetensors"), b.net, {settings[1], settings[0]}));
  BOOST_CHECK_EXCEPTION(d2l::read_safetensors_params(dir("t.safetensors"), b.net, {{"model", "transformer"}, {"num_hiddens", "16"}}),
                        std::runtime_error, message_has({"t.safetensors", "num_hiddens: the file has '8', this run '16'"}));
}

BOOST_AUTO_TEST_CASE(checkpoint_picks_the_format_by_extension) {
  TempDir dir("safetensors_checkpoint");
  Bahdanau a, b;
  const d2l::ModelSettings settings{{"model", "bahdanau_attention"}};
  d2l::Checkpoint save(settings, {}, dir("m.safetensors"));
  save.set_safetensors_metadata({{"src_vocab.tokens", "[\"<unk>\"]"}});
  save.save(a.net);
  const d2l::SafetensorsFile f = d2l::read_safetensors(dir("m.safetensors"));
  BOOST_TEST(f.metadata.size() == 3u);
  BOOST_TEST(f.metadata[2].first == "src_vocab.tokens");
  d2l::Checkpoint load(settings, {});
  load.load(b.net, dir("m.safetensors"));
  BOOST_TEST(std::memcmp(a.net.parameters()[5].data(), b.net.parameters()[5].data(), 4 * a.net.parameters()[5].numel()) == 0);
  d2l::Checkpoint resume(settings, {}, "", dir("m.safetensors"));
  d2l::Adam adam(b.net.parameters(), 0.01f);
  BOOST_CHECK_EXCEPTION(resume.resume(b.net, adam, 10, nullptr), std::runtime_error,
                        message_has({"m.safetensors", "parameters only"}));
}

BOOST_AUTO_TEST_CASE(half_bfloat_and_double_are_converted) {
  // F16: 1, -2.5, 65504 (the largest), 2^-24 (the smallest subnormal), -0, inf;
  // BF16: 1, -2.5; F64: 0.1 (rounded to the nearest float), 1e300 (beyond float: inf).
  std::string data;
  for (uint16_t h : {0x3c00, 0xc100, 0x7bff, 0x0001, 0x8000, 0x7c00, 0x3f80, 0xc020})
    data += static_cast<char>(h & 0xFF), data += static_cast<char>(h >> 8);
  for (double d : {0.1, 1e300}) {
    char b[8];
    std::memcpy(b, &d, 8);
    data.append(b, 8);
  }
  const std::string header =
      R"({"h":{"dtype":"F16","shape":[2,3],"data_offsets":[0,12]},"b":{"dtype":"BF16","shape":[2],"data_offsets":[12,16]},)"
      R"("d":{"dtype":"F64","shape":[2],"data_offsets":[16,32]}})";
  const d2l::SafetensorsFile f = d2l::parse_safetensors(file_of(header, data), "mixed");
  BOOST_REQUIRE_EQUAL(f.tensors.size(), 3u);
  const std::vector<float>& h = f.tensors[0].values;
  BOOST_TEST(h[0] == 1.0f);
  BOOST_TEST(h[1] == -2.5f);
  BOOST_TEST(h[2] == 65504.0f);
  BOOST_TEST(h[3] == std::ldexp(1.0f, -24));
  BOOST_TEST((h[4] == 0.0f && std::signbit(h[4])));
  BOOST_TEST(std::isinf(h[5]));
  BOOST_TEST((f.tensors[0].shape == d2l::Shape{2, 3}));
  BOOST_TEST(f.tensors[1].values == (std::vector<float>{1.0f, -2.5f}), boost::test_tools::per_element());
  BOOST_TEST(f.tensors[2].values[0] == 0.1f);
  BOOST_TEST(std::isinf(f.tensors[2].values[1]));
}

BOOST_AUTO_TEST_CASE(hostile_headers_are_refused) {
  const std::string f8 = f32_bytes({1, 2});
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"abc", "shorter than the 8-byte header size"},
      {file_of("{}", "", int64_t(1) << 62), "above the format's limit"},
      {file_of("{}", "", 40), "runs past the end of the file"},
      {file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", f8),
       "overlaps"},
      {file_of(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", f8), "belong to no tensor"},
      {file_of(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", f8), "bytes 4 to 8 of the data belong to no tensor"},
      {file_of(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", f8), "run past the data (8 bytes)"},
      {file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", f8), "run backwards"},
      {file_of(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,8]}})", f8), "needs 4 bytes, data_offsets give 8"},
      {file_of(R"({"a":{"dtype":"F32","shape":[1099511627776,1099511627776],"data_offsets":[0,8]}})", f8),
       "more bytes than the file has"},
      {file_of(R"({"a":{"dtype":"F7","shape":[2],"data_offsets":[0,8]}})", f8), "dtype \"F7\" is unknown"},
      {file_of(R"({"a":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}})", f8), "not a floating type"},
      {file_of("{\"\xff\":1}"), "not valid UTF-8"},
      {file_of("{\"a\xc0\x80\":1}"), "not valid UTF-8"},  // an overlong NUL
      {file_of(R"({"a":1,"a":2})"), "duplicate key"},
      {file_of(std::string(100, '[') + std::string(100, ']')), "nested deeper than 64"},
      {file_of("[1, 2]"), "not an object"},
      {file_of(R"({"__metadata__":{"k":3}})"), "is a number, not a string"},
      {file_of(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,8]}})", f8), "non-negative integers"},
      {file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1}})", f8), "unknown field"},
      {file_of(R"({"a":{"dtype":"F32","shape":[2]}})", f8), "needs dtype, shape and data_offsets"},
      {file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})", f8), "malformed"},
  };
  for (const auto& [bytes, part] : cases)
    BOOST_CHECK_EXCEPTION(d2l::parse_safetensors(bytes, "hostile.safetensors"), std::runtime_error,
                          message_has({"[safetensors] hostile.safetensors", part}));
  // From disk, a huge header size is refused after reading 8 bytes.
  TempDir dir("safetensors_hostile");
  const std::string path = dir.write("big.safetensors", file_of("{}", "", int64_t(1) << 40));
  BOOST_CHECK_EXCEPTION(d2l::read_safetensors(path), std::runtime_error, message_has({path, "above the format's limit"}));
}

BOOST_AUTO_TEST_CASE(a_file_for_another_model_is_refused) {
  TempDir dir("safetensors_model");
  d2l::NWKernelRegression nw;
  const d2l::ModelSettings s{{"model", "nadaraya_watson"}};
  auto write = [&](const std::string& name, const std::string& header, const std::vector<float>& v) {
    return dir.write(name, file_of(header, f32_bytes(v)));
  };
  const std::string meta = R"("__metadata__":{"format":"pt","model":"nadaraya_watson"})";
  const std::string ok = write("ok.safetensors", "{" + meta + R"(,"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", {2.5f});
  d2l::copy_parameters(d2l::read_safetensors_params(ok, nw, s), nw);
  BOOST_TEST(nw.w.data()[0] == 2.5f);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {write("bare.safetensors", R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", {1}),
       "records no model settings"},
      {write("other.safetensors", R"({"__metadata__":{"model":"transformer"},"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", {1}),
       "model: the file has 'transformer', this run 'nadaraya_watson'"},
      {write("missing.safetensors", "{" + meta + R"(,"v":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", {1}),
       "has no tensor 'w'"},
      {write("extra.safetensors", "{" + meta + R"(,"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"v":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", {1, 2}),
       "holds tensor 'v', which this model does not have"},
      {write("shape.safetensors", "{" + meta + R"(,"w":{"dtype":"F32","shape":[1,1],"data_offsets":[0,4]}})", {1}),
       "tensor 'w' has shape [1, 1], the model expects [1]"},
      {write("nan.safetensors", "{" + meta + R"(,"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
             {std::numeric_limits<float>::quiet_NaN()}),
       "holds NaN"},
  };
  for (const auto& [path, part] : cases)
    BOOST_CHECK_EXCEPTION(d2l::read_safetensors_params(path, nw, s), std::runtime_error,
                          message_has({"[Module.load] " + path, part}));
  BOOST_TEST(nw.w.data()[0] == 2.5f);  // nothing changed
  // Writing a non-finite weight is refused and leaves no file.
  nw.w.data()[0] = INFINITY;
  BOOST_CHECK_EXCEPTION(d2l::save_safetensors_params(dir("inf.safetensors"), nw, s), std::runtime_error,
                        message_has({"inf.safetensors", "holds inf"}));
  BOOST_TEST(!std::filesystem::exists(dir("inf.safetensors")));
}

BOOST_AUTO_TEST_CASE(json_strings_and_numbers) {
  const d2l::JsonValue v = d2l::parse_json(R"( {"a": "x\"\\\n\u00e9\ud83d\ude00", "n": [0, 18446744073709551615, 18446744073709551616, 1.5]} )");
  BOOST_TEST(v.members[0].second.text == "x\"\\\n\xc3\xa9\xf0\x9f\x98\x80");
  uint64_t u = 0;
  BOOST_TEST(v.members[1].second.items[1].as_u64(u));
  BOOST_TEST(u == UINT64_MAX);
  BOOST_TEST(!v.members[1].second.items[2].as_u64(u));  // 2^64 does not fit
  BOOST_TEST(!v.members[1].second.items[3].as_u64(u));
  BOOST_TEST(d2l::json_quote("a\"b\x01") == "\"a\\\"b\\u0001\"");
  for (const char* bad : {"\"\\ud800\"", "[1,]", "01", "{\"a\" 1}", "\"\t\"", "tru", "1 2"})
    BOOST_CHECK_THROW(d2l::parse_json(bad), std::runtime_error);
}

BOOST_AUTO_TEST_SUITE_END()
