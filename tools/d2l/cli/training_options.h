// tools/d2l/cli/training_options.h — the options of the chapters that train a model, declared
// once: the checkpoint family (--save, --load, --resume, --save-every) and the load-or-train
// step, and the block the two seq2seq chapters (10.4, 10.7) add to it.
//
// A section's room declares them (chapters/run/nadaraya_watson.cpp: `CheckpointOptions
// saving(args, /*resumable=*/false)`, --save and --load), and the library's training code
// reads them from the run (tools/d2l/cli/run.h): 10.2's EpochAnimator (tools/d2l/train/epochs.h),
// the seq2seq run (tools/d2l/cli/seq2seq_run.h: Seq2SeqOptions::train_or_load) and 15.5's
// (tools/d2l/train/nli_setup.h).
//
// A resumable program's trainer takes the checkpoint (train_seq2seq, train_ch13:
// tools/d2l/train/checkpoint.h says how it resumes and saves); another program's --save is
// written after its train function returns.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "core/nn/module.h"
#include "tools/d2l/cli/cli_args.h"
#include "tools/d2l/data/nmt_data.h"
#include "tools/d2l/train/checkpoint.h"

namespace d2l {

class CheckpointOptions {
 public:
  // Declares --save FILE and --load FILE (with these help texts), and for a resumable
  // program --resume FILE and --save-every N. `args` must outlive this object.
  CheckpointOptions(CliArgs& args, bool resumable,
                    const std::string& save_help = "write the trained parameters, the model's settings and the "
                                                   "training state to FILE (FILE.safetensors: the parameters and "
                                                   "settings in that format, for PyTorch)",
                    const std::string& load_help = "read parameters from FILE instead of training (same model "
                                                   "settings and data)");

  const std::string& load_path() const;  // "" without --load

  // The checkpoint for --save and --resume, with the model's settings (hyper-parameters and
  // vocabulary fingerprints, checked by --load and --resume) and the run's (checked by
  // --resume). --load with --resume, and --save-every without --save, are refused.
  Checkpoint checkpoint(ModelSettings model, ModelSettings run) const;

  // --load FILE: reads the parameters into `net` (the file's settings must be the
  // checkpoint's) and prints "loaded FILE" followed by `note`. Returns whether it loaded.
  bool load_if_given(Module& net, Checkpoint& checkpoint, const std::string& note = "") const;

  // The load-or-train step. With --load FILE: loads (printing "loaded FILE (training
  // skipped)") and, with --save, writes the parameters again. Otherwise calls train(), then:
  // for a resumable program, checks that the train function passed the checkpoint to its
  // trainer (which resumes from --resume and writes --save after the last epoch); for
  // another, writes --save itself.
  void train_or_load(Module& net, Checkpoint& checkpoint, const std::function<void()>& train) const;

 private:
  const CliArgs& args_;
  bool resumable_;
};

// The seq2seq chapters' block on top: --epochs N, --quick, --data PATH (a fra.txt),
// --translate "sentence" (one more sentence to translate and draw), and the resumable
// checkpoint family. 10.4 and 10.7 declare it through add_seq2seq_options
// (tools/d2l/cli/seq2seq_run.h), whose load_data_nmt and train_seq2seq use it in their run.
class Seq2SeqOptions : public CheckpointOptions {
 public:
  // book_epochs is the section's num_epochs (the --epochs default); quick_epochs is what
  // --quick trains.
  Seq2SeqOptions(CliArgs& args, int64_t book_epochs, int64_t quick_epochs);

  int64_t num_epochs() const;            // quick_epochs with --quick, else --epochs
  const std::string& data() const;       // --data, "" for the default search (resolve_nmt_data)
  const std::string& translate() const;  // --translate, "" when not given

  // The checkpoint of an encoder-decoder named `model` trained on `data`: its settings are
  // {"model", model}, `hyper` and both vocabularies' fingerprints; a .safetensors file also
  // holds both vocabularies' tokens, for PyTorch to rebuild them.
  Checkpoint checkpoint(const std::string& model, const ModelSettings& hyper, const NmtData& data,
                        ModelSettings run) const;
  using CheckpointOptions::checkpoint;

  // train_or_load with the number of epochs to train.
  void train_or_load(Module& net, Checkpoint& checkpoint, const std::function<void(int64_t num_epochs)>& train) const;

 private:
  const CliArgs& args_;
  int64_t quick_epochs_;
};

}  // namespace d2l
