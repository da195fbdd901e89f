// tools/browser/training.cpp — the entry points of the companion page that trains 10.4's model
// while the reader watches (tools/browser/training.js, run in a Web Worker by
// training_worker.js): the section's model built as the section builds it, trained one epoch
// per call by the library's own loop (Seq2SeqTraining, the body of train_seq2seq), and asked
// for a translation with its attention between epochs. Each entry point answers JSON (valid
// until the next call), or {"error": ...} with the engine's message.
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/ops.h"
#include "core/random.h"
#include "layers/bahdanau_attention.h"
#include "layers/seq2seq.h"
#include "tools/browser/json_out.h"
#include "tools/d2l/data/nmt_data.h"
#include "tools/d2l/data/text.h"
#include "tools/d2l/train/seq2seq_training.h"
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

// 10.4.3's settings, as the section writes them.
constexpr int64_t kEmbedSize = 32, kNumHiddens = 32, kNumLayers = 2, kBatchSize = 64, kNumSteps = 10;
constexpr float kDropout = 0.1f, kLr = 0.005f;

// The section's model and its training, from one seed.
struct Run {
  NmtData data;
  std::unique_ptr<Seq2SeqEncoder> encoder;
  std::unique_ptr<Seq2SeqAttentionDecoder> decoder;
  std::unique_ptr<EncoderDecoder> net;
  std::unique_ptr<Seq2SeqTraining> training;
};
std::unique_ptr<Run> run;

Run& current() {
  check(run != nullptr, "training", "no training started (d2l_train_start first)");
  return *run;
}

// As the section's program with --seed seed: manual_seed, then the small encoder and decoder
// of its shape check (10.4.2), whose initialisers draw from the generator before the model's
// do, then load_data_nmt (the first 600 pairs), the model, and train_seq2seq's Xavier init.
// With the same seed the page's epochs are the program's, loss for loss.
std::string start(const std::string& corpus_path, int64_t seed) {
  manual_seed(static_cast<uint64_t>(seed));
  {
    Seq2SeqEncoder shape_check_encoder(10, 8, 16, 2);
    Seq2SeqAttentionDecoder shape_check_decoder(10, 8, 16, 2);
  }
  auto r = std::make_unique<Run>();
  r->data = load_data_nmt(kBatchSize, kNumSteps, 600, corpus_path);
  r->encoder = std::make_unique<Seq2SeqEncoder>(r->data.src_vocab.size(), kEmbedSize, kNumHiddens, kNumLayers, kDropout);
  r->decoder =
      std::make_unique<Seq2SeqAttentionDecoder>(r->data.tgt_vocab.size(), kEmbedSize, kNumHiddens, kNumLayers, kDropout);
  r->net = std::make_unique<EncoderDecoder>(*r->encoder, *r->decoder);
  xavier_init_weights(*r->net);
  r->training = std::make_unique<Seq2SeqTraining>(*r->net, r->data, kLr, r->data.tgt_vocab);
  int64_t parameters = 0;
  for (const Tensor& p : r->net->parameters()) parameters += p.numel();
  const int64_t pairs = r->data.src.rows();
  run = std::move(r);
  return JsonOut()
      .num("pairs", static_cast<double>(pairs))
      .num("batches", static_cast<double>((pairs + kBatchSize - 1) / kBatchSize))
      .num("parameters", static_cast<double>(parameters))
      .num("src_vocab", static_cast<double>(run->data.src_vocab.size()))
      .num("tgt_vocab", static_cast<double>(run->data.tgt_vocab.size()))
      .done();
}

std::string epoch() {
  const Seq2SeqEpoch e = current().training->train_epoch();
  // The loss to 17 digits, as D2L_EPOCH_LOSS prints it natively: the page compares the text.
  char loss[32];
  std::snprintf(loss, sizeof loss, "%.17g", e.loss);
  return JsonOut()
      .num("epoch", static_cast<double>(e.epoch))
      .raw("loss", loss)
      .str("loss_text", loss)
      .num("seconds", e.seconds)
      .num("tokens", e.num_tokens)
      .done();
}

// predict_seq2seq on the model as trained so far: the translation, and the attention of every
// decoding step over the source's tokens and its <eos> (as the section's figure cuts the keys).
// Unknown words are read as <unk>, as natively, and named; words beyond num_steps - 1 are cut.
std::string translate(const std::string& sentence) {
  Run& r = current();
  std::vector<std::string> words, unknown;
  for (const std::string& w : split(lower_utf8(sentence), ' '))
    if (!w.empty()) words.push_back(w);
  check(!words.empty(), "translate", "the sentence is empty");
  for (const std::string& w : words)
    if (r.data.src_vocab[w] == r.data.src_vocab.unk()) unknown.push_back(w);
  std::string joined;
  for (const std::string& w : words) joined += (joined.empty() ? "" : " ") + w;
  auto [translation, steps] =
      predict_seq2seq(*r.net, joined, r.data.src_vocab, r.data.tgt_vocab, kNumSteps, "cpu", true);
  words.push_back("<eos>");
  const int64_t keys = std::min<int64_t>(static_cast<int64_t>(words.size()), kNumSteps);
  words.resize(static_cast<size_t>(keys));
  const int64_t T = static_cast<int64_t>(steps.size());
  std::vector<std::string> target;
  for (const std::string& w : split(translation, ' '))
    if (!w.empty()) target.push_back(w);
  target.push_back("<eos>");
  target.resize(static_cast<size_t>(T));  // one token per step, <eos> last when reached
  std::vector<Tensor> rows;
  for (const Tensor& s : steps) rows.push_back(slice(reshape(s, {1, kNumSteps}), 1, 0, keys));
  JsonOut o;
  o.str("translation", translation).strs("source", words).strs("target", target).strs("unknown", unknown);
  if (T > 0) o.tensor("attention", concat(rows, 0));
  return o.done();
}

}  // namespace

extern "C" {
const char* d2l_train_start(const char* corpus_path, int seed) {
  return reply([&] { return start(corpus_path, seed); });
}
const char* d2l_train_epoch() { return reply([] { return epoch(); }); }
const char* d2l_train_translate(const char* sentence) { return reply([&] { return translate(sentence); }); }
}
