// tools/d2l/train/train_seq2seq.cpp — 9.7 序列到序列学习（seq2seq） / Sequence to Sequence Learning
// (sec_seq2seq_training): train_seq2seq, predict_seq2seq.
#include "tools/d2l/train/train_seq2seq.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>

#include "core/autograd.h"
#include "core/io/json.h"  // quote_input
#include "core/nn/init.h"
#include "core/ops.h"
#include "core/nn/optim.h"
#include "layers/seq2seq.h"
#include "tools/d2l/data/bleu.h"
#include "tools/d2l/data/text.h"
#include "tools/d2l/figures/animator.h"
#include "tools/d2l/figures/npy.h"
#include "tools/d2l/train/checkpoint.h"
#include "tools/d2l/train/ids_tensor.h"
#include "tools/d2l/train/seq2seq_training.h"

namespace d2l {
namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The leaf name after the last '.', e.g. "weight_hh_l1" for "encoder.rnn.weight_hh_l1".
std::string leaf_name(const std::string& name) {
  const size_t dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

// Teacher forcing one step per decoder call, as in prediction: dec_input (batch_size,
// num_steps) -> Y_hat (batch_size, num_steps, vocab_size). For the RNN decoders this equals
// one call on the whole input; the Transformer's decoder, in eval mode, has no causal mask
// on a whole input (the book's decoder expects one token at a time there) and would let
// each position see the tokens after it.
Tensor decode_teacher_forced_stepwise(EncoderDecoder& net, const Tensor& X, const Tensor& X_valid_len,
                                      const Tensor& dec_input) {
  DecoderState state = net.decoder.init_state(net.encoder(X, X_valid_len), X_valid_len);
  std::vector<Tensor> steps;
  for (int64_t t = 0; t < dec_input.size(1); ++t) {
    auto [Y, next] = net.decoder(slice(dec_input, 1, t, t + 1), state);
    state = std::move(next);
    steps.push_back(Y);
  }
  return concat(steps, 1);
}

TrainSeq2SeqInRun& train_in_run() {
  static TrainSeq2SeqInRun train;
  return train;
}

Seq2SeqPrediction& kept_prediction() {
  static Seq2SeqPrediction p;
  return p;
}

std::string join_words(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

}  // namespace

std::vector<std::string> xavier_init_weights(Module& net) {
  std::vector<std::string> done;
  for (auto& [name, p] : net.named_parameters()) {
    const std::string leaf = leaf_name(name);
    const bool linear_weight = leaf == "weight" && !ends_with(name, "embedding.weight");
    const bool gru_weight = leaf.rfind("weight_ih_l", 0) == 0 || leaf.rfind("weight_hh_l", 0) == 0;
    if (p.ndim() == 2 && (linear_weight || gru_weight)) {
      xavier_uniform_(p);
      done.push_back(name);
    }
  }
  return done;
}

void set_train_seq2seq_in_run(TrainSeq2SeqInRun train) { train_in_run() = std::move(train); }

const Seq2SeqPrediction& last_prediction() { return kept_prediction(); }

TrainSeq2SeqResult train_seq2seq(EncoderDecoder& net, const NmtData& data, float lr, int64_t num_epochs,
                                 const Vocab& tgt_vocab, const std::string& device,
                                 const TrainSeq2SeqOptions& options) {
  if (options.from_run && train_in_run()) return train_in_run()(net, data, lr, num_epochs, device, options);
  check(num_epochs >= 1, "train_seq2seq", "num_epochs must be >= 1, got ", num_epochs);
  check(device == "cpu", "train_seq2seq", "only device 'cpu' exists in this engine, got '", device, "'");
  const bool resuming = options.checkpoint && !options.checkpoint->resume_path().empty();
  if (!resuming) xavier_init_weights(net);  // a resumed run takes its weights from the file
  Seq2SeqTraining training(net, data, lr, tgt_vocab, options.loss_mask, options.teacher_forcing);
  Adam& optimizer = training.optimizer();
  net.train();
  // The book's Animator(xlabel='epoch', ylabel='loss', xlim=[10, num_epochs]).
  std::optional<Animator> animator;
  if (!options.figure_path.empty()) {
    // (With 10 epochs or fewer the single point needs a wider range than [10, 10].)
    const std::pair<float, float> xlim{num_epochs > 10 ? 10.0f : 0.0f,
                                       static_cast<float>(std::max<int64_t>(num_epochs, 10))};
    animator.emplace("epoch", std::vector<std::string>{}, xlim, num_epochs, options.figure_path);
    animator->options().ylabel = "loss";
  }
  const int64_t first_epoch =
      options.checkpoint ? options.checkpoint->resume(net, optimizer, num_epochs, animator ? &*animator : nullptr) : 0;
  training.set_epoch(first_epoch);
  TrainSeq2SeqResult result;
  result.first_epoch = first_epoch + 1;
  if (animator && !animator->series().empty()) {  // the points drawn before a resume (as floats)
    const Series& drawn = animator->series()[0];
    for (size_t k = 0; k < drawn.x.size(); ++k) result.curve.emplace_back(std::lround(drawn.x[k]), drawn.y[k]);
  }
  for (int64_t epoch = first_epoch; epoch < num_epochs; ++epoch) {
    const Seq2SeqEpoch trained = training.train_epoch();  // seq2seq_training.h
    result.loss = trained.loss;
    result.tokens_per_sec = trained.num_tokens / trained.seconds;
    result.epoch_loss.push_back(result.loss);
    result.epoch_tokens_per_sec.push_back(result.tokens_per_sec);
    if ((epoch + 1) % 10 == 0) {
      result.curve.emplace_back(epoch + 1, result.loss);
      char speed[64];
      std::snprintf(speed, sizeof speed, "%.1f tokens/sec", result.tokens_per_sec);
      if (animator) animator->add(static_cast<float>(epoch + 1), {static_cast<float>(result.loss)}, speed);
    }
    if (options.checkpoint)  // --save-every
      options.checkpoint->epoch_end(net, optimizer, epoch + 1, num_epochs, animator ? &*animator : nullptr);
  }
  if (animator) animator->end_progress();
  // The model first (--save), then the figure: a figure that cannot be written must not
  // cost the trained model.
  if (options.checkpoint) options.checkpoint->trained(net, optimizer, num_epochs, animator ? &*animator : nullptr);
  if (animator && !result.curve.empty()) {
    write_figure(options.figure_path, [&] { animator->draw(); });
  } else if (animator) {  // the book plots every 10 epochs: fewer leave nothing to draw
    std::printf("no loss curve: %s gets a point every 10 epochs and this run trained %lld (train 10 or more)\n",
                options.figure_path.c_str(), static_cast<long long>(num_epochs));
  }
  if (options.print_result) {
    std::printf("loss %s, %.1f tokens/sec on %s\n", format_metric(result.loss).c_str(), result.tokens_per_sec,
                device.c_str());
    // Unless the Animator has, say how to find where a NaN came from.
    if (!std::isfinite(result.loss) && !(animator && animator->noted_non_finite()))
      std::printf("%s\n", non_finite_note("loss", result.loss, "epoch " + std::to_string(num_epochs)).c_str());
    std::fflush(stdout);
  }
  return result;
}

Seq2SeqScores evaluate_seq2seq(EncoderDecoder& net, const NmtData& data, int64_t bleu_pairs) {
  check(bleu_pairs >= 0, "evaluate_seq2seq", "bleu_pairs must be >= 0, got ", bleu_pairs);
  net.eval();
  Seq2SeqScores scores;
  {
    NoGrad no_grad;
    const MaskedSoftmaxCELoss loss;
    const int64_t n = data.src.rows(), bos_id = data.tgt_vocab["<bos>"];
    std::vector<int64_t> order(n);
    for (int64_t i = 0; i < n; ++i) order[i] = i;
    double loss_sum = 0, num_tokens = 0;
    for (int64_t begin = 0; begin < n; begin += data.batch_size) {
      const NmtBatch batch = data.gather(order, begin, std::min(data.batch_size, n - begin));
      const int64_t B = batch.batch_size, T = batch.num_steps;
      const Tensor X = ids_tensor(batch.X, {B, T}), Y = ids_tensor(batch.Y, {B, T});
      const Tensor bos = reshape(full({B}, static_cast<float>(bos_id)), {-1, 1});
      const Tensor Y_hat =
          decode_teacher_forced_stepwise(net, X, ids_tensor(batch.X_valid_len, {B}), concat({bos, slice(Y, 1, 0, T - 1)}, 1));
      const Tensor l = loss(Y_hat, Y, ids_tensor(batch.Y_valid_len, {B}));
      for (int64_t b = 0; b < B; ++b) {
        loss_sum += l.data()[b];
        num_tokens += static_cast<double>(batch.Y_valid_len[b]);
      }
    }
    scores.loss = loss_sum / num_tokens;
  }
  // The pairs as the file has them (preprocessed, before the vocabulary turns rare words
  // into '<unk>'), so a predicted '<unk>' never matches a reference word.
  const TokenizedNmt pairs = tokenize_nmt(preprocess_nmt(read_data_nmt(data.path)), bleu_pairs, data.path);
  scores.pairs = std::min<int64_t>(bleu_pairs, static_cast<int64_t>(pairs.source.size()));
  double bleu_sum = 0;
  for (int64_t r = 0; r < scores.pairs; ++r) {
    const std::string translation = predict_seq2seq(net, join_words(pairs.source[r]), data.src_vocab, data.tgt_vocab,
                                                    data.src.num_steps, "cpu").first;
    bleu_sum += bleu(translation, join_words(pairs.target[r]), 2);
  }
  scores.bleu = scores.pairs ? bleu_sum / static_cast<double>(scores.pairs) : 0.0;
  return scores;
}

std::string source_tokens_note(const std::string& src_sentence, const Vocab& src_vocab, int64_t num_steps) {
  const std::vector<std::string> words = split(lower_utf8(src_sentence), ' ');
  std::string unknown, note;
  for (const std::string& w : words)
    if (src_vocab[w] == src_vocab.unk()) unknown += (unknown.empty() ? "" : ", ") + quote_input(w, 40, '\'');
  if (!unknown.empty()) note = "not in the vocabulary, read as <unk>: " + unknown;
  const int64_t tokens = static_cast<int64_t>(words.size()) + 1;  // with <eos>
  if (tokens > num_steps)
    note += (note.empty() ? "" : "; ") + std::to_string(tokens) + " tokens with <eos>, cut to num_steps = " +
            std::to_string(num_steps) + " (the rest is not read)";
  return note;
}

namespace {
std::string g_explained_sentence;  // explain_tokens_of's sentence
bool g_explained = false;          // its note printed
}  // namespace

void explain_tokens_of(const std::string& src_sentence) {
  if (src_sentence != g_explained_sentence) g_explained_sentence = src_sentence, g_explained = false;
}

std::pair<std::string, std::vector<std::vector<Tensor>>> predict_seq2seq_steps(
    EncoderDecoder& net, const std::string& src_sentence, const Vocab& src_vocab, const Vocab& tgt_vocab,
    int64_t num_steps, const std::string& device, bool save_attention_weights,
    const std::function<void(const Tensor& Y)>& on_step) {
  check(num_steps >= 1, "predict_seq2seq", "num_steps must be >= 1, got ", num_steps);
  check(device == "cpu", "predict_seq2seq", "only device 'cpu' exists in this engine, got '", device, "'");
  const auto* attention_decoder = dynamic_cast<const AttentionDecoder*>(&net.decoder);
  check(!save_attention_weights || attention_decoder, "predict_seq2seq",
        "save_attention_weights needs an AttentionDecoder (e.g. Seq2SeqAttentionDecoder)");
  if (!g_explained && !src_sentence.empty() && src_sentence == g_explained_sentence) {
    g_explained = true;
    if (const std::string note = source_tokens_note(src_sentence, src_vocab, num_steps); !note.empty()) {
      std::printf("note: %s\n", note.c_str());
      std::fflush(stdout);
    }
  }
  net.eval();  // dropout off while predicting
  NoGrad no_grad;
  std::vector<int64_t> src_tokens = src_vocab[split(lower_utf8(src_sentence), ' ')];
  src_tokens.push_back(src_vocab["<eos>"]);
  // Counted before truncation, as the book: a long sentence keeps a length > num_steps,
  // which masked_softmax treats as "mask nothing".
  const Tensor enc_valid_len = ids_tensor({static_cast<int64_t>(src_tokens.size())}, {1});
  src_tokens = truncate_pad(src_tokens, num_steps, src_vocab["<pad>"]);
  const Tensor enc_X = ids_tensor(src_tokens, {1, num_steps});  // with the batch axis
  const EncoderOutputs enc_outputs = net.encoder(enc_X, enc_valid_len);
  DecoderState dec_state = net.decoder.init_state(enc_outputs, enc_valid_len);
  Tensor dec_X = ids_tensor({tgt_vocab["<bos>"]}, {1, 1});
  const int64_t eos = tgt_vocab["<eos>"];
  std::vector<int64_t> output_seq;
  std::vector<std::vector<Tensor>> attention_weight_seq;
  for (int64_t step = 0; step < num_steps; ++step) {
    auto [Y, next] = net.decoder(dec_X, dec_state);  // Y (1, 1, vocab_size)
    dec_state = std::move(next);
    if (on_step) on_step(Y);
    // The most likely token is the next step's input.
    dec_X = argmax(Y, 2);  // (1, 1)
    const int64_t pred = static_cast<int64_t>(dec_X.item());
    if (save_attention_weights) attention_weight_seq.push_back(attention_decoder->attention_weights());
    if (pred == eos) break;  // the sequence is complete once <eos> is predicted
    output_seq.push_back(pred);
  }
  // ' '.join(tgt_vocab.to_tokens(output_seq))
  const std::vector<std::string> tokens = tgt_vocab.to_tokens(output_seq);
  std::string translation;
  for (size_t i = 0; i < tokens.size(); ++i) translation += (i ? " " : "") + tokens[i];
  return {translation, attention_weight_seq};
}

std::pair<std::string, AttentionWeightSeq> predict_seq2seq(EncoderDecoder& net, const std::string& src_sentence,
                                                           const Vocab& src_vocab, const Vocab& tgt_vocab,
                                                           int64_t num_steps, const std::string& device,
                                                           bool save_attention_weights) {
  auto [translation, steps] =
      predict_seq2seq_steps(net, src_sentence, src_vocab, tgt_vocab, num_steps, device, save_attention_weights);
  AttentionWeightSeq weights;
  for (const auto& w : steps) weights.push_back(w.at(0));  // Seq2SeqAttentionDecoder keeps one tensor per step
  weights.all = std::move(steps);
  if (save_attention_weights) kept_prediction() = {src_sentence, translation, weights};
  return {translation, weights};
}

void write_attention_npy(const std::vector<Tensor>& steps, int64_t num_steps, const std::string& path) {
  std::vector<float> values;
  for (const Tensor& s : steps) {
    const std::vector<float> row = reshape(s, {num_steps}).to_vector();
    values.insert(values.end(), row.begin(), row.end());
  }
  write_npy(path, {static_cast<int64_t>(steps.size()), num_steps}, values);
  std::printf("wrote %s: attention weights (%zu, %lld)\n", path.c_str(), steps.size(), static_cast<long long>(num_steps));
}

}  // namespace d2l
