// tools/d2l/cli/seq2seq_options.h — the option block of the two chapters that train the book's
// encoder–decoder on English–French and translate with it: 10.4 (bahdanau_attention) and
// 10.7 (transformer). Both declare it the same way and use it the same way:
//
//   CliArgs args("transformer", "10.7 Transformer ...");
//   const Seq2SeqOptions seq2seq(args, 200, 20);   // the book's epochs, --quick's epochs
//   add_chapter_options(args, "out/transformer");
//   args.parse_or_exit(argc, argv);
//   ... resolve_nmt_data(seq2seq.data()) ...
//   Checkpoint checkpoint = seq2seq.checkpoint(model_settings, run_settings);
//   seq2seq.train_or_load(net, checkpoint, [&](int64_t num_epochs) {
//     train_seq2seq(net, data, lr, num_epochs, ..., {figure_path, true, &checkpoint});
//   });
//
// Options: --epochs N, --quick, --data PATH (a fra.txt), --save FILE, --save-every N (write it
// every N epochs too), --load FILE (skip training), --resume FILE (continue a saved training up to --epochs), --translate
// "sentence" (one more sentence to translate and draw).
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "core/nn/module.h"
#include "tools/d2l/cli/cli_args.h"
#include "tools/d2l/train/checkpoint.h"

namespace d2l {

class Seq2SeqOptions {
 public:
  // Declares the options on `args`, which must outlive this object. book_epochs is the
  // section's num_epochs (the --epochs default); quick_epochs is what --quick trains.
  Seq2SeqOptions(CliArgs& args, int64_t book_epochs, int64_t quick_epochs);

  int64_t num_epochs() const;            // quick_epochs with --quick, else --epochs
  const std::string& data() const;       // --data, "" for the default search (resolve_nmt_data)
  const std::string& translate() const;  // --translate, "" when not given

  // The checkpoint for --save and --resume, with the model's settings (hyper-parameters and
  // vocabulary fingerprints, checked by --load and --resume) and the run's (checked by
  // --resume). --load and --resume together are refused.
  Checkpoint checkpoint(ModelSettings model, ModelSettings run) const;

  // With --load FILE: reads the parameters into `net` (the file's settings must be the
  // checkpoint's), prints "loaded FILE (training skipped)" and, with --save, writes them.
  // Otherwise calls train(num_epochs()), which passes the checkpoint to the trainer: it
  // resumes from --resume and writes --save after the last epoch, before its figure.
  void train_or_load(Module& net, Checkpoint& checkpoint, const std::function<void(int64_t num_epochs)>& train) const;

 private:
  const CliArgs& args_;
  int64_t quick_epochs_;
};

}  // namespace d2l
