// tools/browser/api.cpp — the entry points the companion pages' live panels call (tools/browser/
// panels.js), over the library's layers: this file and the engine, compiled to WebAssembly
// (reference tier, one thread), are build-browser/d2l_engine.js (`make browser`, README.md).
//
// Each entry point takes C strings and numbers and answers a JSON object (valid until the
// next call): the results, or {"error": "..."} with the engine's own message when an op or a
// check throws, so the page shows it beside the input. Models: d2l_load reads a safetensors
// file the run saved (--save FILE.safetensors) from the module's file system, where the page
// wrote it; its settings (in the file's metadata) give the model's sizes, its ".tokens"
// entries the vocabularies.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/autograd.h"
#include "core/io/param_file.h"
#include "core/io/safetensors.h"
#include "core/nn/optim.h"
#include "core/ops.h"
#include "core/random.h"
#include "layers/attention_scoring_functions.h"
#include "layers/bahdanau_attention.h"
#include "layers/exercises/natural_language_inference_attention.h"
#include "layers/nadaraya_watson.h"
#include "layers/natural_language_inference_attention.h"
#include "layers/self_attention_and_positional_encoding.h"
#include "layers/seq2seq.h"
#include "layers/transformer.h"
#include "tools/browser/json_out.h"
#include "tools/d2l/data/snli_data.h"
#include "tools/d2l/data/text.h"
#include "tools/d2l/data/vocab_tokens.h"
#include "tools/d2l/train/train_seq2seq.h"

using namespace d2l;
using d2l::browser::JsonOut;

namespace {

std::string answer;  // the last result, returned to JavaScript as a C string

const char* reply(const std::function<std::string()>& body) {
  try {
    answer = body();
  } catch (const std::exception& e) {
    answer = JsonOut().str("error", e.what()).done();
  }
  return answer.c_str();
}

// A model the page loaded: its modules and vocabularies.
struct Loaded {
  ModelSettings settings;
  std::vector<std::unique_ptr<Module>> parts;  // encoder, decoder (translation) or the NLI net
  std::unique_ptr<EncoderDecoder> net;
  Vocab src, tgt;
  int64_t num_steps = 0;
};
std::map<std::string, Loaded> models;

const std::string& setting(const ModelSettings& s, const std::string& key, const std::string& path) {
  for (const auto& kv : s)
    if (kv.first == key) return kv.second;
  throw std::runtime_error("[d2l_load] " + path + ": no setting '" + key + "' in the file's metadata");
}
int64_t int_setting(const ModelSettings& s, const std::string& key, const std::string& path) {
  return std::stoll(setting(s, key, path));
}
const std::string& metadata(const SafetensorsMetadata& m, const std::string& key, const std::string& path) {
  for (const auto& kv : m)
    if (kv.first == key) return kv.second;
  throw std::runtime_error("[d2l_load] " + path + ": no '" + key + "' in the file's metadata");
}

Loaded& loaded(const std::string& name) {
  auto it = models.find(name);
  check(it != models.end(), "live panel", "the model '", name, "' is not loaded");
  return it->second;
}

// The words of a sentence as predict_seq2seq reads them; each must be in the vocabulary (an
// unknown word would be read as <unk>), and with <eos> they must fit in num_steps.
std::vector<std::string> source_words(const std::string& sentence, const Loaded& m) {
  std::vector<std::string> words;
  for (const std::string& w : split(lower_utf8(sentence), ' '))
    if (!w.empty()) words.push_back(w);
  check(!words.empty(), "translate", "the sentence is empty");
  for (const std::string& w : words)
    check(m.src[w] != m.src.unk(), "translate", "'", w, "' is not in the source vocabulary (", m.src.size(),
          " tokens, from the training pairs): it would be read as <unk>");
  check(static_cast<int64_t>(words.size()) + 1 <= m.num_steps, "translate", "the sentence has ", words.size(),
        " words; with <eos> the model reads at most num_steps = ", m.num_steps, " tokens");
  return words;
}

std::string load(const std::string& name, const std::string& path) {
  const SafetensorsFile file = read_safetensors(path);
  Loaded m;
  m.settings = safetensors_settings(file.metadata);
  const ModelSettings& s = m.settings;
  // The "model" setting each chapter records (15.5 names its class).
  const std::string expected = name == "natural_language_inference_attention" ? "decomposable_attention" : name;
  const std::string model = setting(s, "model", path);
  check(model == expected, "d2l_load", path, " holds the model '", model, "', not '", expected, "'");
  if (name == "natural_language_inference_attention") {
    m.src = vocab_from_tokens_json(metadata(file.metadata, "vocab.tokens", path), path);
    const int64_t e = int_setting(s, "embed_size", path), h = int_setting(s, "num_hiddens", path);
    const bool mask_pad = setting(s, "mask_pad", path) == "1";
    m.parts.push_back(make_decomposable_attention(m.src.size(), e, h, e, 2 * e, 2 * h, mask_pad, m.src["<pad>"]));
  } else {
    m.src = vocab_from_tokens_json(metadata(file.metadata, "src_vocab.tokens", path), path);
    m.tgt = vocab_from_tokens_json(metadata(file.metadata, "tgt_vocab.tokens", path), path);
    m.num_steps = int_setting(s, "num_steps", path);
    const int64_t h = int_setting(s, "num_hiddens", path), L = int_setting(s, "num_layers", path);
    const float dropout = std::stof(setting(s, "dropout", path));
    if (name == "bahdanau_attention") {
      const int64_t e = int_setting(s, "embed_size", path);
      m.parts.push_back(std::make_unique<Seq2SeqEncoder>(m.src.size(), e, h, L, dropout));
      m.parts.push_back(std::make_unique<Seq2SeqAttentionDecoder>(m.tgt.size(), e, h, L, dropout));
    } else if (name == "transformer") {
      const int64_t heads = int_setting(s, "num_heads", path), ffn = int_setting(s, "ffn_num_hiddens", path);
      const int64_t k = int_setting(s, "key_size", path), q = int_setting(s, "query_size", path),
                    v = int_setting(s, "value_size", path);
      m.parts.push_back(std::make_unique<TransformerEncoder>(m.src.size(), k, q, v, h, Shape{h}, h, ffn, heads, L,
                                                             dropout));
      m.parts.push_back(
          std::make_unique<TransformerDecoder>(m.tgt.size(), k, q, v, h, Shape{h}, h, ffn, heads, L, dropout));
    } else {
      throw std::runtime_error("[d2l_load] no live panel has a model named '" + name + "'");
    }
    m.net = std::make_unique<EncoderDecoder>(static_cast<Encoder&>(*m.parts[0]), static_cast<Decoder&>(*m.parts[1]));
  }
  Module& net = m.net ? static_cast<Module&>(*m.net) : *m.parts[0];
  copy_parameters(read_safetensors_params(path, net, s), net);
  net.eval();
  int64_t parameters = 0;
  for (const Tensor& p : net.parameters()) parameters += p.numel();
  models[name] = std::move(m);
  return JsonOut().str("model", name).num("parameters", static_cast<double>(parameters)).done();
}

// 10.4 and 10.7: the translation and its attention. Bahdanau: one row of weights over the
// source per decoding step. Transformer: the encoder's self-attention (layer, head, query,
// key) and the decoder–encoder attention (layer, head, step, key); keys cut to the source's
// tokens and <eos>, as the book's figures cut them.
std::string translate(const std::string& name, const std::string& sentence) {
  Loaded& m = loaded(name);
  std::vector<std::string> words = source_words(sentence, m);
  std::string joined;
  for (const std::string& w : words) joined += (joined.empty() ? "" : " ") + w;
  auto [translation, steps] = predict_seq2seq_steps(*m.net, joined, m.src, m.tgt, m.num_steps, "cpu", true);
  const int64_t keys = static_cast<int64_t>(words.size()) + 1, T = static_cast<int64_t>(steps.size());
  words.push_back("<eos>");
  std::vector<std::string> out_tokens;
  for (const std::string& w : split(translation, ' '))
    if (!w.empty()) out_tokens.push_back(w);
  out_tokens.push_back("<eos>");
  out_tokens.resize(static_cast<size_t>(T));  // steps: the tokens written, <eos> last when reached
  JsonOut o;
  o.str("translation", translation).strs("source", words).strs("target", out_tokens);
  if (name == "bahdanau_attention") {
    std::vector<Tensor> rows;
    for (const auto& step : steps) rows.push_back(slice(reshape(step.at(0), {1, m.num_steps}), 1, 0, keys));
    o.tensor("attention", reshape(concat(rows, 0), {1, 1, T, keys}));
  } else {
    const auto& encoder = static_cast<const TransformerEncoder&>(*m.parts[0]);
    const int64_t L = static_cast<int64_t>(encoder.attention_weights.size());
    const int64_t heads = encoder.attention_weights.at(0).size(0);
    const Tensor enc = reshape(concat(encoder.attention_weights, 0), {L, heads, m.num_steps, m.num_steps});
    o.tensor("encoder", slice(slice(enc, 2, 0, keys), 3, 0, keys));
    std::vector<Tensor> layers;  // per layer (heads, T, keys): step t's row of the inter attention
    for (int64_t l = 0; l < L; ++l) {
      std::vector<Tensor> rows;
      for (const auto& step : steps) rows.push_back(reshape(step.at(static_cast<size_t>(L + l)), {heads, 1, -1}));
      layers.push_back(slice(concat(rows, 1), 2, 0, keys));
    }
    o.tensor("decoder_encoder", stack(layers, 0));
  }
  return o.done();
}

std::vector<float> numbers(const std::string& json, const char* what) {
  const JsonValue v = parse_json(json);
  check(v.kind == JsonValue::Kind::array, "live panel", what, " must be a list of numbers");
  std::vector<float> out;
  for (const JsonValue& x : v.items) {
    check(x.kind == JsonValue::Kind::number, "live panel", what, " must be a list of numbers, got a ", x.kind_name());
    out.push_back(std::stof(x.text));
  }
  return out;
}

// 10.3: masked_softmax of a (rows, cols) score matrix with one valid length per row.
std::string masked_softmax_rows(const std::string& scores_json, int64_t rows, const std::string& valid_json) {
  const std::vector<float> s = numbers(scores_json, "the scores"), v = numbers(valid_json, "the valid lengths");
  check(rows > 0 && static_cast<int64_t>(s.size()) % rows == 0, "masked_softmax", s.size(),
        " scores do not fill ", rows, " rows");
  const Tensor X = tensor(s, {1, rows, static_cast<int64_t>(s.size()) / rows});
  return JsonOut().tensor("weights", masked_softmax(X, tensor(v, {1, static_cast<int64_t>(v.size())}))).done();
}

// 10.3: additive and scaled dot-product attention on the same keys (n, 2), one query of
// length 2 (so both scorings take it), values 0..4n-1 as (n, 4), a valid length; the layers
// start from the seeded generator, as in the chapter.
std::string compare_scoring(const std::string& keys_json, const std::string& query_json, int64_t valid, int64_t seed) {
  const std::vector<float> k = numbers(keys_json, "the keys"), q = numbers(query_json, "the query");
  check(!k.empty() && k.size() % 2 == 0, "scoring", "the keys are pairs (k1, k2): got ", k.size(), " numbers");
  check(q.size() == 2, "scoring", "the query is a pair (q1, q2): got ", q.size(), " numbers");
  const int64_t n = static_cast<int64_t>(k.size()) / 2;
  manual_seed(static_cast<uint64_t>(seed));
  AdditiveAttention additive(2, 2, 8, 0.1f);
  DotProductAttention dot(0.5f);
  additive.eval();
  dot.eval();
  NoGrad no_grad;
  const Tensor keys = tensor(k, {1, n, 2}), query = tensor(q, {1, 1, 2});
  const Tensor values = reshape(arange(4 * n), {1, n, 4}), lens = tensor({static_cast<float>(valid)});
  const Tensor a = additive(query, keys, values, lens), d = dot(query, keys, values, lens);
  return JsonOut()
      .tensor("additive", additive.attention_weights)
      .tensor("dot", dot.attention_weights)
      .tensor("additive_out", a)
      .tensor("dot_out", d)
      .done();
}

// 10.6: the sinusoidal P for positions 0..num_steps-1 and encoding_dim columns.
std::string positional_encoding(int64_t num_steps, int64_t encoding_dim) {
  check(num_steps >= 1 && num_steps <= 1000 && encoding_dim >= 2 && encoding_dim <= 512 && encoding_dim % 2 == 0,
        "PositionalEncoding", "positions must be 1..1000 and dimensions an even number 2..512, got ", num_steps,
        " and ", encoding_dim);
  PositionalEncoding pe(encoding_dim, 0.0f);
  pe.eval();
  return JsonOut().tensor("P", pe(zeros({1, num_steps, encoding_dim}))).done();
}

// 10.2: the book's data (f(x) = 2 sin x + x^0.8, noise N(0, 0.5)), then the nonparametric
// pooling with bandwidth h (weights softmax(-((x - x_i)/h)² / 2)), and with epochs > 0 the
// parametric model trained as the chapter trains it (SGD, lr 0.5, keys leaving out each
// query's own point), its losses and predictions.
Tensor f(const Tensor& x) { return 2.0f * sin(x) + pow(x, 0.8f); }
Tensor off_diagonal(const Tensor& tile) {
  const int64_t n = tile.size(0);
  const std::vector<float> all = tile.to_vector();
  std::vector<float> v;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      if (i != j) v.push_back(all[static_cast<size_t>(i * n + j)]);
  return tensor(v, {n, n - 1});
}
std::string nadaraya_watson(int64_t n_train, float bandwidth, int64_t epochs, int64_t seed) {
  check(n_train >= 2 && n_train <= 2000, "nadaraya_watson", "training points must be 2..2000, got ", n_train);
  check(bandwidth > 0.0f && std::isfinite(bandwidth), "nadaraya_watson", "the bandwidth must be > 0, got ", bandwidth);
  check(epochs >= 0 && epochs <= 1000, "nadaraya_watson", "epochs must be 0..1000, got ", epochs);
  manual_seed(static_cast<uint64_t>(seed));
  std::vector<float> xs = (rand({n_train}) * 5.0f).to_vector();
  std::sort(xs.begin(), xs.end());
  const Tensor x_train = tensor(xs, {n_train}), y_train = f(x_train) + normal(0.0f, 0.5f, {n_train});
  const Tensor x_test = arange(0.0f, 5.0f, 0.1f), y_truth = f(x_test);
  const int64_t n_test = x_test.numel();
  const Tensor X_repeat = reshape(repeat_interleave(x_test, n_train, 0), {-1, n_train});
  const Tensor weights = softmax(pow((X_repeat - x_train) * (1.0f / bandwidth), 2.0f) * -0.5f);
  JsonOut o;
  o.nums("x_train", x_train.to_vector()).nums("y_train", y_train.to_vector()).nums("x_test", x_test.to_vector());
  o.nums("y_truth", y_truth.to_vector()).tensor("weights", weights);
  o.nums("y_hat", reshape(matmul(weights, unsqueeze(y_train, 1)), {-1}).to_vector());
  if (epochs > 0) {
    NWKernelRegression net;
    const Tensor keys = off_diagonal(repeat(x_train, {n_train, 1}));
    const Tensor values = off_diagonal(repeat(y_train, {n_train, 1}));
    SGD trainer(net.parameters(), 0.5f);
    std::vector<float> losses;
    for (int64_t e = 0; e < epochs; ++e) {
      trainer.zero_grad();
      const Tensor l = pow(net(x_train, keys, values) - y_train, 2.0f) * 0.5f;
      sum(l).backward();
      trainer.step();
      losses.push_back(sum(l).item());
    }
    NoGrad no_grad;
    const Tensor y_param = net(x_test, repeat(x_train, {n_test, 1}), repeat(y_train, {n_test, 1}));
    o.nums("losses", losses).num("w", net.w.item()).nums("y_param", y_param.to_vector());
    o.tensor("param_weights", net.attention_weights);
  }
  return o.done();
}

// 15.5: predict_snli on the reader's pair (tokenised as the chapter's --premise), the class
// probabilities and the alignment the prediction used: β (m, n) and α (n, m).
std::string nli(const std::string& premise, const std::string& hypothesis) {
  Loaded& m = loaded("natural_language_inference_attention");
  auto words = [&m](const std::string& s) {
    std::vector<std::string> w;
    for (const std::string& t : split(split_punctuation(s), ' '))
      if (!t.empty()) w.push_back(t);
    for (const std::string& t : w)
      check(m.src[t] != m.src.unk(), "predict_snli", "'", t, "' is not in the vocabulary (", m.src.size(),
            " tokens, from the training pairs): it would be read as <unk>");
    return w;
  };
  const std::vector<std::string> p = words(premise), h = words(hypothesis);
  auto& net = static_cast<DecomposableAttention&>(*m.parts[0]);
  const std::string label = predict_snli(net, m.src, p, h);
  NoGrad no_grad;
  auto row = [&m](const std::vector<std::string>& tokens) {
    std::vector<float> ids;
    for (int64_t i : m.src[tokens]) ids.push_back(static_cast<float>(i));
    return tensor(ids, {1, static_cast<int64_t>(ids.size())});
  };
  const Tensor probs = softmax(net(row(p), row(h)));
  return JsonOut()
      .str("label", label)
      .nums("probabilities", probs.to_vector())
      .strs("labels", {snli_label_name(0), snli_label_name(1), snli_label_name(2)})
      .strs("premise", p)
      .strs("hypothesis", h)
      .tensor("beta", net.attend.beta_weights)
      .tensor("alpha", net.attend.alpha_weights)
      .done();
}

}  // namespace

extern "C" {
const char* d2l_load(const char* name, const char* path) { return reply([&] { return load(name, path); }); }
const char* d2l_translate(const char* name, const char* sentence) {
  return reply([&] { return translate(name, sentence); });
}
const char* d2l_masked_softmax(const char* scores, int rows, const char* valid_lens) {
  return reply([&] { return masked_softmax_rows(scores, rows, valid_lens); });
}
const char* d2l_scoring(const char* keys, const char* query, int valid, int seed) {
  return reply([&] { return compare_scoring(keys, query, valid, seed); });
}
const char* d2l_positional_encoding(int num_steps, int encoding_dim) {
  return reply([&] { return positional_encoding(num_steps, encoding_dim); });
}
const char* d2l_nadaraya_watson(int n_train, float bandwidth, int epochs, int seed) {
  return reply([&] { return nadaraya_watson(n_train, bandwidth, epochs, seed); });
}
const char* d2l_nli(const char* premise, const char* hypothesis) {
  return reply([&] { return nli(premise, hypothesis); });
}
}
