// tools/d2l/cli/seq2seq_run.h — the run around a seq2seq section's code (10.4, 10.7): what
// the book's d2l.load_data_nmt and d2l.train_seq2seq do in a program, beyond the book.
//
// The section's room declares the program (add_seq2seq_options); then, in that run,
//   load_data_nmt(batch_size, num_steps)   reads --data (else the default search) and prints
//       "using data: ...", after checking that --save names none of the program's files;
//   train_seq2seq(net, train_iter, lr, num_epochs, tgt_vocab, "cpu")   trains --epochs or
//       --quick's epochs (saying so in one line when that is not the book's num_epochs),
//       draws the loss curve into --out, and does --save/--load/--resume/--save-every with a
//       checkpoint whose settings it builds: "model", the program's model settings (read off
//       the trained net), both vocabularies' fingerprints, and the run's batch_size and lr;
//   predict_seq2seq keeps the last sentence it translated with its attention weights,
// so that the room's `after` can do --translate, --dump-attention and --cues with the
// model the book's code trained (trained_seq2seq, restore_trained) once that code returned.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/io/param_file.h"
#include "layers/encoder_decoder.h"
#include "tools/d2l/cli/cli_args.h"
#include "tools/d2l/data/nmt_data.h"

namespace d2l {

using NamedFiles = std::vector<std::pair<std::string, std::string>>;  // (what, path)

struct Seq2SeqProgram {
  std::string model;           // the checkpoint's "model" setting: "bahdanau_attention"
  int64_t book_epochs = 0;     // the book's num_epochs: --epochs' default and help
  int64_t quick_epochs = 0;    // what --quick trains
  std::string loss_figure;     // train_seq2seq's curve, under --out: "train_seq2seq.png"
  // The files the program writes besides --save (its figures, --dump-attention's array):
  // --save may name none of them, nor --data.
  std::function<NamedFiles()> files_written;
  // The model's settings a parameter file records between "model" and the vocabularies,
  // as the section names its constants ({"embed_size", "32"}, ..., {"num_steps", "10"}).
  std::function<ModelSettings(const EncoderDecoder& net, const NmtData& data)> model_settings;
  // What the program does with a trained model after the book's code (--translate's
  // sentence, --dump-attention): the room's `after` calls it with the book's model rebuilt
  // (restore_trained), an exercise that trains its own model with that one (after_training).
  std::function<void(EncoderDecoder& net, const NmtData& data)> after_training;
};

// Declares --epochs, --quick, --data, --save, --load, --resume, --save-every and --translate
// (tools/d2l/cli/training_options.h's Seq2SeqOptions) and makes load_data_nmt and
// train_seq2seq honour them in this program's run.
void add_seq2seq_options(CliArgs& args, Seq2SeqProgram program);

// --translate's sentence ("" when not given), and the epochs the run trains.
const std::string& translate_option();
int64_t run_num_epochs(int64_t book_epochs);

// An exercise's run that trains its own model: runs the section's code up to its
// load_data_nmt (the cells before the training: shape checks, demos), so the exercise
// prints them exactly as the section does, then returns.
void run_book_until_training();

// The model the last train_seq2seq of the run trained (or --load read): its data, settings
// and parameters, kept after the section's code has returned.
struct TrainedSeq2Seq {
  NmtData data;
  ParamFileContents parameters;  // the settings and values, as --save writes them
  int64_t num_steps() const { return data.src.num_steps; }
  // The setting `key` as a number ("embed_size" -> 32); throws when the settings lack it.
  double setting(const std::string& key) const;
};
const TrainedSeq2Seq& trained_seq2seq();  // throws std::logic_error before any training
// Copies the kept parameters into `net`, a model built as the trained one.
void restore_trained(Module& net);
// The program's after_training with `net` trained on `data`.
void after_training(EncoderDecoder& net, const NmtData& data);

}  // namespace d2l
