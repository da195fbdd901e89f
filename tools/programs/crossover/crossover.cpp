// tools/programs/crossover/crossover.cpp — a safetensors model's outputs on the book's inputs, as JSON (see
// the header).
#include "tools/programs/crossover/crossover.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/autograd.h"
#include "core/shape.h"  // check
#include "core/io/json.h"
#include "core/ops.h"
#include "core/io/safetensors.h"
#include "layers/bahdanau_attention.h"
#include "layers/nadaraya_watson.h"
#include "layers/natural_language_inference_attention.h"
#include "layers/seq2seq.h"
#include "layers/transformer.h"
#include "tools/d2l/data/vocab_tokens.h"
#include "tools/d2l/data/text.h"
#include "tools/d2l/train/checkpoint.h"
#include "tools/d2l/train/train_seq2seq.h"

namespace d2l {
namespace {

// A tensor as {"shape": [...], "data": [...]}, floats with 9 significant digits (exact).
std::string json_tensor(const Tensor& t) {
  std::string s = "{\"shape\":[";
  for (size_t i = 0; i < t.shape().size(); ++i) s += (i ? "," : "") + std::to_string(t.shape()[i]);
  s += "],\"data\":[";
  const Tensor& c = t;  // tensors here own dense row-major data
  char buf[32];
  for (int64_t i = 0; i < c.numel(); ++i) {
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(c.data()[i]));
    s += (i ? "," : "") + std::string(buf);
  }
  return s + "]}";
}

const std::string& meta(const SafetensorsMetadata& m, const std::string& key, const std::string& path) {
  for (const auto& [k, v] : m)
    if (k == key) return v;
  throw std::runtime_error("[crossover] " + path + ": __metadata__ has no \"" + key + "\"");
}

// What the file's tensors can justify, so that a setting is checked before a model is built
// from it: a hostile "num_layers=1000000" would otherwise build a million blocks first.
struct FileBounds {
  int64_t tensors = 0;  // a model has at least one tensor per layer
  int64_t max_dim = 0;  // every size setting is some tensor's dimension
};

FileBounds bounds_of(const SafetensorsFile& f) {
  FileBounds b{static_cast<int64_t>(f.tensors.size()), 0};
  for (const SafetensorsTensor& t : f.tensors)
    for (int64_t d : t.shape) b.max_dim = std::max(b.max_dim, d);
  return b;
}

// A positive integer setting at most `limit`; the refusal names the file, the key and the limit.
int64_t meta_int(const SafetensorsMetadata& m, const std::string& key, const std::string& path, int64_t limit,
                 const std::string& why) {
  const std::string& v = meta(m, key, path);
  size_t used = 0;
  long long n = 0;
  try {
    n = std::stoll(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || n <= 0)
    throw std::runtime_error("[crossover] " + path + ": __metadata__ \"" + key + "\" is " + quote_input(v) +
                             ", not a positive integer");
  if (n > limit)
    throw std::runtime_error("[crossover] " + path + ": __metadata__ \"" + key + "\" is " + quote_input(v, 80, '\0') +
                             ", above its limit " +
                             std::to_string(limit) + " (" + why + "); refused before building the model");
  return n;
}

// A finite number setting in [0, 1) (a dropout rate); the refusal names the file and the key,
// not std::stof.
float meta_rate(const SafetensorsMetadata& m, const std::string& key, const std::string& path) {
  const std::string& v = meta(m, key, path);
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !(x >= 0 && x < 1))
    throw std::runtime_error("[crossover] " + path + ": __metadata__ \"" + key + "\" is " + quote_input(v) +
                             ", not a number in [0, 1)");
  return static_cast<float>(x);
}

// The longest translation asked for (the book decodes 10 steps).
constexpr int64_t kMaxSteps = 1000;

Vocab vocab_of(const SafetensorsMetadata& m, const std::string& name, const std::string& path) {
  Vocab v = vocab_from_tokens_json(meta(m, name + ".tokens", path), path + " " + name + ".tokens");
  if (vocab_fingerprint(v) != meta(m, name, path))
    throw std::runtime_error("[crossover] " + path + ": the tokens of " + name + " give '" + vocab_fingerprint(v) +
                             "', the file records " + quote_input(meta(m, name, path), 80, '\''));
  return v;
}

// A vocabulary is an embedding's first dimension: no larger than the file's largest.
Vocab vocab_of(const SafetensorsMetadata& m, const std::string& name, const std::string& path, const FileBounds& b) {
  Vocab v = vocab_of(m, name, path);
  if (v.size() > b.max_dim)
    throw std::runtime_error("[crossover] " + path + ": __metadata__ \"" + name + ".tokens\" holds " +
                             std::to_string(v.size()) + " tokens, above its limit " + std::to_string(b.max_dim) +
                             " (no tensor of the file has a larger dimension); refused before building the model");
  return v;
}

void refuse_variants(const SafetensorsMetadata& m, const std::string& path, std::initializer_list<const char*> keys) {
  for (const auto& [k, v] : m)
    for (const char* key : keys)
      if (k == key)
        throw std::runtime_error("[crossover] " + path + ": an exercise's model (" + k + "=" + quote_input(v) +
                                 "); only the book's is rebuilt here");
}

// Loads the parameters, the file's own settings being the ones to match.
void load_into(Module& net, const std::string& path, const SafetensorsMetadata& m) {
  copy_parameters(read_safetensors_params(path, net, safetensors_settings(m)), net);
}

void translate_all(std::ostream& out, EncoderDecoder& net, const Vocab& src, const Vocab& tgt, int64_t num_steps,
                   const std::vector<std::string>& sentences, const std::vector<Tensor>* encoder_weights) {
  out << "{\"results\":[";
  for (size_t i = 0; i < sentences.size(); ++i) {
    const auto [translation, steps] = predict_seq2seq_steps(net, sentences[i], src, tgt, num_steps, "cpu", true);
    out << (i ? "," : "") << "\n{\"src\":" << json_quote(sentences[i]) << ",\"translation\":" << json_quote(translation)
              << ",\"steps\":[";
    for (size_t s = 0; s < steps.size(); ++s) {
      out << (s ? "," : "") << "[";
      for (size_t k = 0; k < steps[s].size(); ++k) out << (k ? "," : "") << json_tensor(steps[s][k]);
      out << "]";
    }
    out << "]";
    if (encoder_weights) {  // the encoder's self-attention of this sentence, per block
      out << ",\"encoder\":[";
      for (size_t b = 0; b < encoder_weights->size(); ++b) out << (b ? "," : "") << json_tensor((*encoder_weights)[b]);
      out << "]";
    }
    out << "}";
  }
  out << "]}\n";
}

}  // namespace

void crossover_outputs(std::ostream& out, const std::string& path, std::vector<std::string> sentences) {
  const SafetensorsFile file = read_safetensors(path);
  const SafetensorsMetadata& m = file.metadata;
  const std::string kind = meta(m, "model", path);
  const FileBounds b = bounds_of(file);
  const std::string layers_why = "the file holds " + std::to_string(b.tensors) + " tensors";
  const std::string dim_why = "no tensor of the file has a larger dimension";
  const std::string steps_why = "the longest translation this tool decodes";
  if (!sentences.empty() && kind != "bahdanau_attention" && kind != "transformer")
    throw std::runtime_error("[crossover] --sentence is a sentence to translate, but " + path + " holds a " +
                             quote_input(kind) + " model, which translates nothing");
  if (sentences.empty()) sentences = {"go .", "i lost .", "he's calm .", "i'm home ."};

  if (kind == "nadaraya_watson") {
    // 10.2: 10 test inputs 0, 0.5, ..., 4.5 attending to 8 keys 0.3, 0.9, ..., 4.5 with values
    // 2 sin x + x^0.8 (the section's function, without noise): fixed, so both sides agree.
    NWKernelRegression net;
    load_into(net, path, m);
    std::vector<float> q, k, v;
    for (int i = 0; i < 10; ++i) q.push_back(0.5f * static_cast<float>(i));
    for (int i = 0; i < 8; ++i) k.push_back(0.3f + 0.6f * static_cast<float>(i));
    for (float x : k) v.push_back(2.0f * std::sin(x) + std::pow(x, 0.8f));
    const Tensor keys = repeat(tensor(k, {1, 8}), {10, 1}), values = repeat(tensor(v, {1, 8}), {10, 1});
    NoGrad no_grad;
    const Tensor y = net(tensor(q, {10}), keys, values);
    out << "{\"results\":[{\"w\":" << json_tensor(net.w) << ",\"prediction\":" << json_tensor(y)
        << ",\"attention\":" << json_tensor(net.attention_weights) << "}]}\n";
  } else if (kind == "bahdanau_attention") {
    refuse_variants(m, path, {"rnn", "scoring"});
    const Vocab src = vocab_of(m, "src_vocab", path, b), tgt = vocab_of(m, "tgt_vocab", path, b);
    const int64_t embed = meta_int(m, "embed_size", path, b.max_dim, dim_why),
                  hiddens = meta_int(m, "num_hiddens", path, b.max_dim, dim_why),
                  layers = meta_int(m, "num_layers", path, b.tensors, layers_why),
                  steps = meta_int(m, "num_steps", path, kMaxSteps, steps_why);
    const float dropout = meta_rate(m, "dropout", path);
    Seq2SeqEncoder encoder(src.size(), embed, hiddens, layers, dropout);
    Seq2SeqAttentionDecoder decoder(tgt.size(), embed, hiddens, layers, dropout);
    EncoderDecoder net(encoder, decoder);
    load_into(net, path, m);
    translate_all(out, net, src, tgt, steps, sentences, nullptr);
  } else if (kind == "transformer") {
    refuse_variants(m, path, {"scoring", "pe"});
    const Vocab src = vocab_of(m, "src_vocab", path, b), tgt = vocab_of(m, "tgt_vocab", path, b);
    const int64_t h = meta_int(m, "num_hiddens", path, b.max_dim, dim_why),
                  layers = meta_int(m, "num_layers", path, b.tensors, layers_why),
                  heads = meta_int(m, "num_heads", path, h, "num_hiddens, split among the heads"),
                  ffn = meta_int(m, "ffn_num_hiddens", path, b.max_dim, dim_why),
                  key = meta_int(m, "key_size", path, b.max_dim, dim_why),
                  query = meta_int(m, "query_size", path, b.max_dim, dim_why),
                  value = meta_int(m, "value_size", path, b.max_dim, dim_why),
                  steps = meta_int(m, "num_steps", path, kMaxSteps, steps_why);
    const float dropout = meta_rate(m, "dropout", path);
    TransformerEncoder encoder(src.size(), key, query, value, h, {h}, h, ffn, heads, layers, dropout);
    TransformerDecoder decoder(tgt.size(), key, query, value, h, {h}, h, ffn, heads, layers, dropout);
    EncoderDecoder net(encoder, decoder);
    load_into(net, path, m);
    translate_all(out, net, src, tgt, steps, sentences, &encoder.attention_weights);
  } else if (kind == "decomposable_attention") {
    check(meta(m, "mask_pad", path) == "0", "crossover", path, ": a model with mask_pad=1 is an exercise's variant");
    const Vocab vocab = vocab_of(m, "vocab", path, b);
    const int64_t embed = meta_int(m, "embed_size", path, b.max_dim, dim_why),
                  hiddens = meta_int(m, "num_hiddens", path, b.max_dim, dim_why);
    DecomposableAttention net(vocab.size(), embed, hiddens, embed, 2 * embed, 2 * hiddens);
    load_into(net, path, m);
    net.eval();
    NoGrad no_grad;
    // The book's example, then pairs that reach the other labels and unknown words.
    const std::vector<std::pair<std::string, std::string>> pairs = {
        {"he is good .", "he is bad ."},
        {"a man is playing a guitar .", "a man is playing music ."},
        {"two dogs are running in a park .", "the cat is sleeping on a sofa ."},
        {"a woman is sleeping .", "a woman is awake ."}};
    out << "{\"results\":[";
    for (size_t i = 0; i < pairs.size(); ++i) {
      const std::vector<std::string> p = split(pairs[i].first), q = split(pairs[i].second);
      const Tensor logits = net(token_row(vocab, p), token_row(vocab, q));
      out << (i ? "," : "") << "\n{\"premise\":" << json_quote(pairs[i].first)
                << ",\"hypothesis\":" << json_quote(pairs[i].second) << ",\"prediction\":"
                << json_quote(predict_snli(net, vocab, p, q)) << ",\"logits\":" << json_tensor(logits)
                << ",\"beta\":" << json_tensor(net.attend.beta_weights)
                << ",\"alpha\":" << json_tensor(net.attend.alpha_weights) << "}";
    }
    out << "]}\n";
  } else {
    throw std::runtime_error("[crossover] " + path + ": model " + quote_input(kind, 80, '\'') +
                             " is none of nadaraya_watson, bahdanau_attention, transformer, decomposable_attention");
  }
}

}  // namespace d2l
