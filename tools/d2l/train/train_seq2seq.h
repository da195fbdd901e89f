// tools/d2l/train/train_seq2seq.h — 9.7 序列到序列学习（seq2seq） / Sequence to Sequence Learning
// (sec_seq2seq_training): the book's train_seq2seq and predict_seq2seq, which 9.7 and
// 10.4 (sec_seq2seq_attention) share.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "layers/bahdanau_attention.h"  // AttentionDecoder
#include "core/io/param_file.h"  // ModelSettings
#include "layers/encoder_decoder.h"
#include "tools/d2l/data/nmt_data.h"
#include "tools/d2l/data/vocab.h"

namespace d2l {

// The book's xavier_init_weights, applied by train_seq2seq: Xavier-uniform on every
// nn.Linear weight and every GRU weight matrix; biases and embeddings keep their init.
// Module keeps no record of which class owns a parameter, so the rule is read off the
// names: a 2-D parameter named "...weight" (Linear) or "...weight_ih_l*"/"weight_hh_l*"
// (GRU, and the LSTM of 10.4's first exercise, which has the same names), except
// "embedding.weight". Returns the names initialised, for tests and logs.
std::vector<std::string> xavier_init_weights(Module& net);

class Checkpoint;

struct TrainSeq2SeqOptions {
  std::string figure_path;  // the loss curve PNG and the Animator's progress line ("": neither)
  bool print_result = true;  // the closing "loss ..., ... tokens/sec on cpu" line
  // --resume and --save (tools/d2l/train/checkpoint.h): with a resume path, training continues
  // from the file's epoch (no Xavier init, Adam and the generator restored) up to
  // num_epochs; after the last epoch the checkpoint saves the model, before the figure is
  // drawn, so a figure that cannot be written never costs the trained model.
  Checkpoint* checkpoint = nullptr;
  // The book's training by default; 9.7's exercises switch each part off:
  // loss_mask = false (ex. 2) scores every one of the num_steps target positions, padding
  // included (valid_len = num_steps for every sequence); teacher_forcing = false (ex. 4)
  // feeds the decoder its own previous prediction (the argmax, no gradient through it)
  // instead of the true previous token, one step at a time, as predict_seq2seq does.
  bool loss_mask = true;
  bool teacher_forcing = true;
  // In a seq2seq program's run (tools/d2l/cli/seq2seq_run.h) the run's options apply:
  // --epochs/--quick, the loss figure, --save/--load/--resume. from_run = false trains as
  // asked and nothing else (an exercise's second model, trained beside the first).
  bool from_run = true;
  // The model's settings a parameter file records (empty: the program's, read off the net):
  // an exercise's variant names its own, e.g. with {"rnn", "lstm"}.
  ModelSettings model_settings;
};

struct TrainSeq2SeqResult {
  double loss = 0;            // last epoch: Σ per-sequence loss / Σ valid target tokens
  double tokens_per_sec = 0;  // last epoch: Σ valid target tokens / its wall time
  std::vector<std::pair<int64_t, double>> curve;  // (epoch, loss) every 10 epochs, as plotted
  std::vector<double> epoch_loss;                  // every epoch this call trained: its loss, for tests
  int64_t first_epoch = 1;  // the epoch epoch_loss starts at (1-based): after --resume K, K + 1
  std::vector<double> epoch_tokens_per_sec;        // and its speed, for benchmarks
};

// The book's train_seq2seq(net, data_iter, lr, num_epochs, tgt_vocab, device): Xavier
// init, Adam(lr), teacher forcing (the decoder reads <bos> followed by Y[:, :-1]),
// MaskedSoftmaxCELoss summed over the batch for backward, global-norm clipping at 1, a
// fresh shuffle of the pairs every epoch, and the book's closing line
//   loss 0.xxx, NNNN.N tokens/sec on cpu
// computed from the last epoch. Puts net in training mode. The figure is written through
// write_figure (tools/d2l/figures/figures.h).
TrainSeq2SeqResult train_seq2seq(EncoderDecoder& net, const NmtData& data, float lr, int64_t num_epochs,
                                 const Vocab& tgt_vocab, const std::string& device = "cpu",
                                 const TrainSeq2SeqOptions& options = {});

// What train_seq2seq does instead when options.from_run (set by a program's run,
// tools/d2l/cli/seq2seq_run.h; none outside one).
using TrainSeq2SeqInRun = std::function<TrainSeq2SeqResult(EncoderDecoder& net, const NmtData& data, float lr,
                                                           int64_t num_epochs, const std::string& device,
                                                           const TrainSeq2SeqOptions& options)>;
void set_train_seq2seq_in_run(TrainSeq2SeqInRun train);

// How well a trained model does, measured alike for every variant the exercises train.
struct Seq2SeqScores {
  // masked cross-entropy per valid target token, eval mode, teacher forcing fed one token
  // per decoder call as in prediction (so the Transformer's decoder sees no future token)
  double loss = 0;
  double bleu = 0;  // mean bleu(k = 2) of predict_seq2seq over the scored pairs
  int64_t pairs = 0;  // how many pairs the bleu averages
};

// Scores net on data: the loss over all pairs, in file order; the bleu over the first
// bleu_pairs pairs of data.path (all if fewer), preprocessed and tokenized as
// load_data_nmt reads them, the reference being the French words themselves (a rare word
// the model can only write as '<unk>' counts as missed). Puts net in eval mode.
Seq2SeqScores evaluate_seq2seq(EncoderDecoder& net, const NmtData& data, int64_t bleu_pairs);

// The book's predict_seq2seq: greedy decoding in eval mode without a graph. The source is
// lower-cased and split on ' ', '<eos>' appended, and enc_valid_len is that count BEFORE
// truncate_pad to num_steps (as the book). Decoding starts from '<bos>', feeds back the
// argmax token, and stops at '<eos>' or after num_steps tokens. With
// save_attention_weights (net.decoder must be an AttentionDecoder), the second result holds
// the attention weights of every decoding step: the decoder's first tensor, (1, 1,
// num_steps) for Seq2SeqAttentionDecoder, and in `all` every tensor it keeps, as the book
// saves net.decoder.attention_weights whole (the Transformer's: the self-attention of each
// block, then the encoder–decoder attention of each block).
struct AttentionWeightSeq : std::vector<Tensor> {
  std::vector<std::vector<Tensor>> all;
};
std::pair<std::string, AttentionWeightSeq> predict_seq2seq(EncoderDecoder& net, const std::string& src_sentence,
                                                           const Vocab& src_vocab, const Vocab& tgt_vocab,
                                                           int64_t num_steps, const std::string& device = "cpu",
                                                           bool save_attention_weights = false);

// A reader's sentence as predict_seq2seq reads it, in one line for the output: the words
// the source vocabulary maps to '<unk>', and the cut to num_steps tokens (with '<eos>').
// "" when neither happens.
std::string source_tokens_note(const std::string& src_sentence, const Vocab& src_vocab, int64_t num_steps);
// Marks a sentence as the reader's own (Seq2SeqOptions marks --translate): predict_seq2seq
// prints "note: ..." (source_tokens_note) before it translates that sentence, once.
void explain_tokens_of(const std::string& src_sentence);

// The last sentence predict_seq2seq translated with save_attention_weights: what it read,
// what it wrote and every step's first attention tensor (10.4's --cues and --dump-attention
// read it after the section's code).
struct Seq2SeqPrediction {
  std::string sentence, translation;
  std::vector<Tensor> weights;
};
const Seq2SeqPrediction& last_prediction();

// The same, with every step's attention tensors only (predict_seq2seq's `all`). on_step, when
// given, sees each step's decoder output Y (1, 1, vocab_size) before its argmax (the live
// panels show the top tokens and the scores the attention had).
std::pair<std::string, std::vector<std::vector<Tensor>>> predict_seq2seq_steps(
    EncoderDecoder& net, const std::string& src_sentence, const Vocab& src_vocab, const Vocab& tgt_vocab,
    int64_t num_steps, const std::string& device = "cpu", bool save_attention_weights = false,
    const std::function<void(const Tensor& Y)>& on_step = nullptr);

// --dump-attention: predict_seq2seq's attention weights (every step's (1, 1, num_steps)) as one
// .npy array (steps, num_steps), every key position kept (the figure cuts them at the
// source's length); prints "wrote PATH: attention weights (steps, num_steps)".
void write_attention_npy(const std::vector<Tensor>& steps, int64_t num_steps, const std::string& path);

}  // namespace d2l
