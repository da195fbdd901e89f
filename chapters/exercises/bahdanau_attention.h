// chapters/exercises/bahdanau_attention.h — what 10.4's section (chapters/bahdanau_attention.cpp)
// calls from its exercise file: the model an exercise's setting trains in place of the
// book's, the cues of 10.1's exercise 1, and the table comparing a setting with the book's.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "layers/bahdanau_attention.h"
#include "layers/exercises/bahdanau_attention.h"
#include "layers/seq2seq.h"
#include "tools/d2l/cli/cli_args.h"
#include "tools/d2l/data/nmt_data.h"
#include "tools/d2l/train/checkpoint.h"
#include "tools/d2l/train/train_seq2seq.h"

// The model an exercise trains: the book's (GRU, additive, mask, teacher forcing) unless
// the command line (--rnn, --scoring, --no-loss-mask, --no-teacher-forcing) changes a part.
struct Setting {
  d2l::RecurrentCell cell = d2l::RecurrentCell::gru;
  d2l::AttentionScoring scoring = d2l::AttentionScoring::additive;
  bool loss_mask = true, teacher_forcing = true;

  static Setting from(const d2l::CliArgs& args);
  bool is_book() const;
  std::string name() const;          // "lstm, additive, no loss mask"
  std::string scoring_name() const;  // "additive", "dot" or "bilinear"
  // The setting's entries for the checkpoint: none for the book's, so its files keep their
  // settings.
  void add_to(d2l::ModelSettings& model, d2l::ModelSettings& run) const;
  d2l::TrainSeq2SeqOptions train_options(const std::string& figure_path, d2l::Checkpoint* checkpoint) const;
};

// The book's classes for the book's cell and scoring (so its run is unchanged), else the
// exercises' variants (layers/bahdanau_attention.h), which first reseed from --seed: an
// exercise's run and the book's run it is compared with both start from it.
struct Model {
  std::unique_ptr<d2l::Encoder> encoder;
  std::unique_ptr<d2l::AttentionDecoder> decoder;
};
Model make_model(const Setting& s, const d2l::CliArgs& args, int64_t src_vocab, int64_t tgt_vocab, int64_t embed_size,
                 int64_t num_hiddens, int64_t num_layers, float dropout);

// 10.1 ex. 1 (--cues): for each target step of a translation, the token read, the token
// produced and the source token given the most weight.
void print_cues(const std::string& sentence, const std::string& translation, const std::vector<d2l::Tensor>& steps,
                int64_t num_steps);

// After an exercise's setting was trained: trains the book's model as long from --seed and
// prints one table row for each (epoch losses, eval loss, BLEU, tokens/sec).
// make_book builds the book's model (after the reseed).
void compare_with_book(const Setting& setting, const d2l::CliArgs& args, d2l::EncoderDecoder& net,
                       const d2l::NmtData& data, const d2l::TrainSeq2SeqResult& trained, double bleu4,
                       const std::function<Model()>& make_book, int64_t num_epochs, float lr, int64_t num_steps,
                       const std::vector<std::string>& engs, const std::vector<std::string>& fras);
