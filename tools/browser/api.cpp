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
//
// Every input is bounded (kLimits, which d2l_limits hands to the page so that it refuses an
// input before copying it in), every answer is finite (JsonOut refuses NaN and infinity, and
// the entry point names the inputs that made it), and no error leaves state behind: a failed
// call only replaces the last answer.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/autograd.h"
#include "core/debug/op_inputs.h"
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
#include "tools/d2l/cli/cli_args.h"
#include "tools/d2l/cli/run.h"
#include "tools/d2l/cli/section.h"
#include "tools/d2l/data/snli_data.h"
#include "tools/d2l/data/text.h"
#include "tools/d2l/data/vocab_tokens.h"
#include "tools/d2l/figures/figures.h"
#include "tools/d2l/train/epochs.h"
#include "tools/d2l/train/train_seq2seq.h"

using namespace d2l;
using d2l::browser::JsonOut;

// 10.2's code, defined by the section (chapters/nadaraya_watson.cpp, compiled into the engine
// with its main renamed): the panel runs the book's own cells.
void nadaraya_watson();

namespace {

std::string answer;  // the last result, returned to JavaScript as a C string

// The bounds on every input, chosen by cost: what the engine computes in well under a second
// on one thread and what the page can draw without freezing (a heatmap's cells).
struct Limits {
  size_t sentence_bytes = 1000;   // d2l_translate: the model reads num_steps tokens of it anyway
  size_t nli_bytes = 1000;        // d2l_nli: premise, hypothesis
  int64_t nli_tokens = 100;       // ... and their tokens (SNLI's longest premise has 82)
  size_t list_bytes = 65536;      // a list of numbers as JSON text
  int64_t scores = 4096;          // d2l_masked_softmax: rows x columns
  int64_t score_rows = 64;
  int64_t keys = 256;             // d2l_scoring: key pairs
  double magnitude = 1e6;         // |any number| in a list: its products stay finite in float
  int64_t positions = 1000, dims = 512, pe_cells = 65536;  // d2l_positional_encoding
  int64_t nw_epochs = 400;        // d2l_nadaraya_watson: 400 x 50 x 49 kernel evaluations, ~0.6 s
  double bandwidth_min = 1e-4, bandwidth_max = 1e4;
  size_t name_bytes = 256;        // d2l_load: model name, path
};
const Limits kLimits;

// The C string `s`, refused past `bound` bytes before anything reads it whole.
std::string bounded(const char* s, size_t bound, const char* op, const char* what) {
  check(s != nullptr, op, what, " is missing");
  const size_t n = strnlen(s, bound + 1);
  check(n <= bound, op, what, ": more than ", bound, " bytes, the panel's bound");
  return std::string(s, n);
}

// Runs an entry point: its JSON, or {"error"} with the message. A non-finite number in the
// answer (JsonOut::NonFinite) is reported with the inputs that produced it.
const char* reply(const std::string& inputs, const std::function<std::string()>& body) {
  try {
    answer = body();
  } catch (const JsonOut::NonFinite& e) {
    answer = JsonOut().str("error", std::string(e.what()) + ", from the inputs " + inputs).done();
  } catch (const std::bad_alloc&) {
    answer = JsonOut().str("error", "out of memory for the inputs " + inputs).done();
  } catch (const std::exception& e) {
    answer = JsonOut().str("error", e.what()).done();
  }
  return answer.c_str();
}
std::string show(double v) { return JsonOut::number(v); }

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
// A size from the file's metadata: a whole number 1..1e6 written as digits only ("10abc",
// "1e3" and "" are refused, as is a size no panel could hold).
int64_t int_setting(const ModelSettings& s, const std::string& key, const std::string& path) {
  const std::string& v = setting(s, key, path);
  const bool digits = !v.empty() && v.size() <= 7 && v.find_first_not_of("0123456789") == std::string::npos;
  check(digits, "d2l_load", path, ": the setting '", key, "' is ", json_quote(v.substr(0, 40)),
        ", not a whole number of at most 7 digits");
  const int64_t n = std::stoll(v);
  check(n >= 1 && n <= 1000000, "d2l_load", path, ": the setting '", key, "' is ", n, ", outside 1..1000000");
  return n;
}
// A probability from the metadata (dropout): a decimal number in [0, 1), the whole string.
float rate_setting(const ModelSettings& s, const std::string& key, const std::string& path) {
  const std::string& v = setting(s, key, path);
  char* end = nullptr;
  errno = 0;
  const double x = v.empty() ? -1.0 : std::strtod(v.c_str(), &end);
  check(!v.empty() && end == v.c_str() + v.size() && errno == 0 && x >= 0.0 && x < 1.0, "d2l_load", path,
        ": the setting '", key, "' is ", json_quote(v.substr(0, 40)), ", not a number in [0, 1)");
  return static_cast<float>(x);
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

// A sentence's tokens as predict_seq2seq reads them: lowered, split at each space (two
// spaces make an empty word), each word not in the vocabulary read as <unk>, then <eos>, cut
// or padded to num_steps. `unknown`: the words read as <unk>; valid: the tokens before the cut.
struct ReadSentence {
  std::vector<std::string> tokens;  // num_steps of them, as the encoder sees them
  std::vector<std::string> unknown;
  int64_t valid = 0;
};
ReadSentence read_sentence(const std::string& sentence, const Vocab& vocab, int64_t num_steps) {
  check(sentence.find_first_not_of(' ') != std::string::npos, "translate", "the sentence is empty");
  ReadSentence r;
  for (const std::string& w : split(lower_utf8(sentence), ' ')) {
    const bool unk = vocab[w] == vocab.unk();
    r.tokens.push_back(unk ? "<unk>" : w);
    if (unk) r.unknown.push_back(w);
  }
  r.tokens.push_back("<eos>");
  r.valid = static_cast<int64_t>(r.tokens.size());
  r.tokens.resize(static_cast<size_t>(num_steps), "<pad>");
  return r;
}

// The k most probable entries of a probability vector: (index, probability), best first.
std::vector<std::pair<int64_t, float>> top_k(const std::vector<float>& p, size_t k) {
  std::vector<std::pair<int64_t, float>> all;
  for (size_t i = 0; i < p.size(); ++i) all.push_back({static_cast<int64_t>(i), p[i]});
  k = std::min(k, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k), all.end(),
                    [](const auto& a, const auto& b) { return a.second > b.second || (a.second == b.second && a.first < b.first); });
  all.resize(k);
  return all;
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
    check(m.num_steps <= 200, "d2l_load", path, ": num_steps is ", m.num_steps, "; the panels read at most 200 tokens");
    const float dropout = rate_setting(s, "dropout", path);
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

// 10.4 and 10.7: the translation and its attention, the sentence read exactly as the native
// program reads its --translate (predict_seq2seq_steps on the same string). Bahdanau: one
// row of weights over the source per decoding step. Transformer: the encoder's
// self-attention (layer, head, query, key) and the decoder–encoder attention (layer, head,
// step, key); keys cut to the source's tokens and <eos>, as the book's figures cut them.
// Per step, inside the forward: the decoder's attention scores before masked_softmax over all
// num_steps keys (the mask hides keys from `valid_len` on), and the five most probable
// output tokens.
std::string translate(const std::string& name, const std::string& sentence) {
  Loaded& m = loaded(name);
  const ReadSentence read = read_sentence(sentence, m.src, m.num_steps);
  const bool bahdanau = name == "bahdanau_attention";
  std::vector<Tensor> step_scores;  // per step: (rows, num_steps), a row per (layer, head)
  std::vector<std::vector<std::pair<int64_t, float>>> step_top;
  // The scores are masked_softmax's input, taken from outside the layers while the decoder
  // runs (core/debug/op_inputs.h): one call per step for Bahdanau, (1, 1, num_steps); one per
  // 10.7 DecoderBlock, its encoder–decoder attention's (num_heads, 1, num_steps). The blocks'
  // self-attention gets no valid_lens in prediction (its cache holds only the past), and
  // masked_softmax without valid_lens runs as a plain softmax op.
  OpInputRecorder scores("masked_softmax", bahdanau ? "10.4 Seq2SeqAttentionDecoder" : "10.7 DecoderBlock");
  const size_t calls_per_step =
      bahdanau ? 1 : static_cast<size_t>(static_cast<const TransformerDecoder&>(*m.parts[1]).num_layers);
  auto on_step = [&](const Tensor& Y) {
    step_top.push_back(top_k(softmax(reshape(Y, {-1})).to_vector(), 5));
    std::vector<Tensor> rows = scores.take();
    check(rows.size() == calls_per_step, "d2l_translate", "the decoder step ran masked_softmax ", rows.size(),
          " times, not ", calls_per_step);
    for (Tensor& r : rows) r = reshape(r, {-1, m.num_steps});
    step_scores.push_back(concat(rows, 0));
  };
  auto [translation, steps] = predict_seq2seq_steps(*m.net, sentence, m.src, m.tgt, m.num_steps, "cpu", true, on_step);
  const int64_t keys = std::min(read.valid, m.num_steps), T = static_cast<int64_t>(steps.size());
  const std::vector<std::string> words(read.tokens.begin(), read.tokens.begin() + keys);
  std::vector<std::string> out_tokens;
  for (const std::string& w : split(translation, ' '))
    if (!w.empty()) out_tokens.push_back(w);
  out_tokens.push_back("<eos>");
  out_tokens.resize(static_cast<size_t>(T));  // steps: the tokens written, <eos> last when reached
  JsonOut o;
  o.str("translation", translation).strs("source", words).strs("target", out_tokens);
  o.strs("unknown", read.unknown).num("valid_len", static_cast<double>(read.valid)).num("num_steps", static_cast<double>(m.num_steps));
  o.strs("keys", read.tokens).tensor("scores", stack(step_scores, 0));
  std::string top = "[";
  for (size_t t = 0; t < step_top.size(); ++t) {
    top += t ? ",[" : "[";
    for (size_t k = 0; k < step_top[t].size(); ++k)
      top += (k ? "," : "") + std::string("[") + json_quote(m.tgt.to_tokens(step_top[t][k].first)) + "," +
             JsonOut::finite_number(step_top[t][k].second, "top") + "]";
    top += "]";
  }
  o.raw("top", top + "]");
  if (bahdanau) {
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

// The vocabulary the reader's words are looked up in (the source side for translation).
std::string vocabulary(const std::string& name) {
  const Loaded& m = loaded(name);
  return JsonOut().strs("tokens", m.src.idx_to_token()).done();
}

// A JSON list of numbers, each finite and within ±kLimits.magnitude, at most `most` of them.
std::vector<float> numbers(const std::string& json, const char* op, const char* what, int64_t most) {
  check(json.size() <= kLimits.list_bytes, op, what, ": more than ", kLimits.list_bytes, " bytes, the panel's bound");
  const JsonValue v = parse_json(json);
  check(v.kind == JsonValue::Kind::array, op, what, " must be a list of numbers");
  check(static_cast<int64_t>(v.items.size()) <= most, op, what, " has ", v.items.size(),
        " numbers; the panel takes at most ", most);
  std::vector<float> out;
  for (const JsonValue& x : v.items) {
    check(x.kind == JsonValue::Kind::number, op, what, " must be a list of numbers, got a ", x.kind_name());
    const double d = std::strtod(x.text.c_str(), nullptr);
    check(std::isfinite(d) && std::fabs(d) <= kLimits.magnitude, op, what, " must be numbers within \u00b1",
          show(kLimits.magnitude), " (so that their products stay finite in float): got ", x.text.substr(0, 40));
    out.push_back(static_cast<float>(d));
  }
  return out;
}

// 10.3: masked_softmax of a (rows, cols) score matrix with one valid length per row.
std::string masked_softmax_rows(const std::string& scores_json, int64_t rows, const std::string& valid_json) {
  const std::vector<float> s = numbers(scores_json, "masked_softmax", "the scores", kLimits.scores);
  check(rows >= 1 && rows <= kLimits.score_rows, "masked_softmax", "the scores must have 1..", kLimits.score_rows,
        " rows, got ", rows);
  const std::vector<float> v = numbers(valid_json, "masked_softmax", "the valid lengths", rows);
  check(rows > 0 && static_cast<int64_t>(s.size()) % rows == 0, "masked_softmax", s.size(),
        " scores do not fill ", rows, " rows");
  const Tensor X = tensor(s, {1, rows, static_cast<int64_t>(s.size()) / rows});
  return JsonOut().tensor("weights", masked_softmax(X, tensor(v, {1, static_cast<int64_t>(v.size())}))).done();
}

// 10.3: additive and scaled dot-product attention on the same keys (n, 2), one query of
// length 2 (so both scorings take it), values 0..4n-1 as (n, 4), a valid length; the layers
// start from the seeded generator, as in the chapter.
std::string compare_scoring(const std::string& keys_json, const std::string& query_json, int64_t valid, int64_t seed) {
  const std::vector<float> k = numbers(keys_json, "scoring", "the keys", 2 * kLimits.keys);
  const std::vector<float> q = numbers(query_json, "scoring", "the query", 2);
  check(!k.empty() && k.size() % 2 == 0, "scoring", "the keys are pairs (k1, k2): got ", k.size(), " numbers");
  check(q.size() == 2, "scoring", "the query is a pair (q1, q2): got ", q.size(), " numbers");
  check(valid >= 0 && valid <= kLimits.keys, "scoring", "the valid length must be 0..", kLimits.keys, ", got ", valid);
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
  check(num_steps >= 1 && num_steps <= kLimits.positions && encoding_dim >= 2 && encoding_dim <= kLimits.dims &&
            encoding_dim % 2 == 0,
        "PositionalEncoding", "positions must be 1..", kLimits.positions, " and dimensions an even number 2..",
        kLimits.dims, ", got ", num_steps, " and ", encoding_dim);
  check(num_steps * encoding_dim <= kLimits.pe_cells, "PositionalEncoding", num_steps, " positions x ", encoding_dim,
        " dimensions = ", num_steps * encoding_dim, " values; the panel draws at most ", kLimits.pe_cells);
  PositionalEncoding pe(encoding_dim, 0.0f);
  pe.eval();
  return JsonOut().tensor("P", pe(zeros({1, num_steps, encoding_dim}))).done();
}

// 10.2: the section's own code (chapters/nadaraya_watson.cpp's nadaraya_watson()) run as the
// native program runs it with --seed S --epochs E: the book's 50 points, its SGD loop through
// EpochAnimator. The page gets what that run drew (record_figures: the data, the trained
// model's predictions and weights) and what each step did (epoch_record: the loss, dL/dw
// before the step, w after it), then pools the section's data with the reader's bandwidth h
// (exercise 3's variant: weights softmax(-((x - x_i)/h)² / 2)).
std::string nadaraya_watson(float bandwidth, int64_t epochs, int64_t seed) {
  check(std::isfinite(bandwidth) && bandwidth >= kLimits.bandwidth_min && bandwidth <= kLimits.bandwidth_max,
        "nadaraya_watson", "the bandwidth h must be within ", show(kLimits.bandwidth_min), "..",
        show(kLimits.bandwidth_max), ", got ", show(bandwidth),
        " (a smaller h makes ((x - x_i)/h)^2 overflow float: every weight NaN)");
  check(epochs >= 1 && epochs <= kLimits.nw_epochs, "nadaraya_watson", "epochs must be 1..", kLimits.nw_epochs,
        ", got ", epochs);
  // The run: the section room's options (chapters/run/nadaraya_watson.cpp, linked into the
  // engine) and the shared ones, as run_section declares them; figures into the page's memory.
  CliArgs args = section_args("nadaraya_watson");
  args.parse({"--epochs", std::to_string(epochs), "--seed", std::to_string(seed), "--out", "/tmp/nadaraya_watson"});
  const std::string out = apply_chapter_options(args);
  struct Run {  // ended however the section's code ends
    Run(const CliArgs& a, const std::string& o) { begin_run(a, o); record_figures(true); }
    ~Run() { record_figures(false); end_run(); }
  };
  JsonOut o;
  {
    const Run run(args, out);
    ::nadaraya_watson();
    // plot_kernel_reg's series: truth and prediction over x_test, then the training points.
    const std::vector<Series>& drawn = drawn_figure(out + "/parametric.png").series;
    check(drawn.size() == 3, "nadaraya_watson", "the section's parametric.png has ", drawn.size(),
          " series; the panel reads 3 (truth, prediction, training points)");
    const HeatmapGrid& g = drawn_figure(out + "/parametric_attention.png").grid;
    const int64_t n_train = static_cast<int64_t>(drawn[2].x.size());
    const Tensor x_train = tensor(drawn[2].x, {n_train}), y_train = tensor(drawn[2].y, {n_train});
    const Tensor x_test = tensor(drawn[0].x, {static_cast<int64_t>(drawn[0].x.size())});
    const Tensor X_repeat = reshape(repeat_interleave(x_test, n_train, 0), {-1, n_train});
    const Tensor weights = softmax(pow((X_repeat - x_train) * (1.0f / bandwidth), 2.0f) * -0.5f);
    o.nums("x_train", drawn[2].x).nums("y_train", drawn[2].y).nums("x_test", drawn[0].x);
    o.nums("y_truth", drawn[0].y).tensor("weights", weights);
    o.nums("y_hat", reshape(matmul(weights, unsqueeze(y_train, 1)), {-1}).to_vector());
    o.nums("y_param", drawn[1].y).tensor("param_weights", tensor(g.values, {g.height, g.width}));
  }
  const EpochRecord& r = epoch_record();
  check(r.names.size() == 1 && !r.steps.empty(), "nadaraya_watson",
        "the section's training recorded no step of its one parameter w");
  std::vector<float> losses, grads, ws;  // per epoch: the loss, dL/dw before the step, w after it
  for (const EpochRecord::Step& st : r.steps) {
    losses.push_back(st.loss);
    grads.push_back(st.grads[0]);
    ws.push_back(st.values[0]);
  }
  o.num("w0", r.start[0]).nums("grads", grads).nums("ws", ws).nums("losses", losses).num("w", ws.back());
  return o.done();
}

// 15.5: predict_snli on the reader's pair (tokenised as the chapter's --premise), the class
// probabilities and the alignment the prediction used: β (m, n) and α (n, m).
std::string nli(const std::string& premise, const std::string& hypothesis) {
  Loaded& m = loaded("natural_language_inference_attention");
  // Tokenised as the chapter's --premise (split_punctuation, then words), not lowered, as
  // there; a word not in the vocabulary is read as <unk> by predict_snli and named here.
  std::vector<std::string> unknown;
  auto words = [&](const std::string& s, const char* what) {
    std::vector<std::string> w = split(split_punctuation(s));
    check(!w.empty(), "predict_snli", "the ", what, " is empty");
    check(static_cast<int64_t>(w.size()) <= kLimits.nli_tokens, "predict_snli", "the ", what, " has ", w.size(),
          " tokens; the panel takes at most ", kLimits.nli_tokens);
    for (const std::string& t : w)
      if (m.src[t] == m.src.unk()) unknown.push_back(t);
    return w;
  };
  const std::vector<std::string> p = words(premise, "premise"), h = words(hypothesis, "hypothesis");
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
      .strs("premise", m.src.to_tokens(m.src[p]))
      .strs("hypothesis", m.src.to_tokens(m.src[h]))
      .strs("unknown", unknown)
      .tensor("beta", net.attend.beta_weights)
      .tensor("alpha", net.attend.alpha_weights)
      .done();
}

}  // namespace

extern "C" {
const char* d2l_limits() {
  return reply("()", [] {
    const Limits& l = kLimits;
    const auto d = [](auto v) { return static_cast<double>(v); };
    return JsonOut()  // by entry point, as Limits lists them
        .num("sentence_bytes", d(l.sentence_bytes))
        .num("nli_bytes", d(l.nli_bytes)).num("nli_tokens", d(l.nli_tokens))
        .num("list_bytes", d(l.list_bytes)).num("scores", d(l.scores)).num("score_rows", d(l.score_rows))
        .num("keys", d(l.keys)).num("magnitude", l.magnitude)
        .num("positions", d(l.positions)).num("dims", d(l.dims)).num("pe_cells", d(l.pe_cells))
        .num("nw_epochs", d(l.nw_epochs))
        .num("bandwidth_min", l.bandwidth_min).num("bandwidth_max", l.bandwidth_max)
        .num("name_bytes", d(l.name_bytes))
        .done();
  });
}
const char* d2l_load(const char* name, const char* path) {
  return reply("(model file)", [&] {
    return load(bounded(name, kLimits.name_bytes, "d2l_load", "the model name"),
                bounded(path, kLimits.name_bytes, "d2l_load", "the path"));
  });
}
const char* d2l_vocab(const char* name) {
  return reply("(vocabulary)", [&] { return vocabulary(bounded(name, kLimits.name_bytes, "d2l_vocab", "the model name")); });
}
const char* d2l_translate(const char* name, const char* sentence) {
  return reply("(the sentence)", [&] {
    return translate(bounded(name, kLimits.name_bytes, "translate", "the model name"),
                     bounded(sentence, kLimits.sentence_bytes, "translate", "the sentence"));
  });
}
const char* d2l_masked_softmax(const char* scores, int rows, const char* valid_lens) {
  return reply("(the scores, rows = " + std::to_string(rows) + ", the valid lengths)", [&] {
    return masked_softmax_rows(bounded(scores, kLimits.list_bytes, "masked_softmax", "the scores"), rows,
                               bounded(valid_lens, kLimits.list_bytes, "masked_softmax", "the valid lengths"));
  });
}
const char* d2l_scoring(const char* keys, const char* query, int valid, int seed) {
  return reply("(the keys, the query, valid length " + std::to_string(valid) + ")", [&] {
    return compare_scoring(bounded(keys, kLimits.list_bytes, "scoring", "the keys"),
                           bounded(query, kLimits.list_bytes, "scoring", "the query"), valid, seed);
  });
}
const char* d2l_positional_encoding(int num_steps, int encoding_dim) {
  return reply("positions = " + std::to_string(num_steps) + ", dimensions = " + std::to_string(encoding_dim),
               [&] { return positional_encoding(num_steps, encoding_dim); });
}
const char* d2l_nadaraya_watson(float bandwidth, int epochs, int seed) {
  return reply("h = " + show(bandwidth) + ", epochs = " + std::to_string(epochs),
               [&] { return nadaraya_watson(bandwidth, epochs, seed); });
}
const char* d2l_nli(const char* premise, const char* hypothesis) {
  return reply("(the premise and hypothesis)", [&] {
    return nli(bounded(premise, kLimits.nli_bytes, "predict_snli", "the premise"),
               bounded(hypothesis, kLimits.nli_bytes, "predict_snli", "the hypothesis"));
  });
}
}
