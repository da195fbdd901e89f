// tools/d2l/cli/seq2seq_options.cpp — the seq2seq chapters' shared options (see the header).
#include "tools/d2l/cli/seq2seq_options.h"

#include <cstdio>
#include <stdexcept>
#include <utility>

namespace d2l {

Seq2SeqOptions::Seq2SeqOptions(CliArgs& args, int64_t book_epochs, int64_t quick_epochs)
    : args_(args), quick_epochs_(quick_epochs) {
  args.add_int("epochs", book_epochs, "training epochs (the book: " + std::to_string(book_epochs) + ")", 1, 100000);
  args.add_flag("quick", std::to_string(quick_epochs) + " epochs: a smoke test");
  args.add_string("data", "", "fra.txt to train on (default: data/fra-eng/fra.txt, else the bundled corpus)",
                  "PATH");
  args.add_string("save", "", "write the trained parameters, the model's settings and the training state to FILE (FILE.safetensors: the parameters and settings in that format, for PyTorch)",
                  "FILE");
  args.add_string("load", "", "read parameters from FILE instead of training (same model settings and data)", "FILE");
  args.add_string("resume", "",
                  "continue the training saved in FILE up to --epochs, exactly as if it had never stopped", "FILE");
  args.add_int("save-every", 0,
               "also write --save after every N epochs (0: after the last only); --resume continues any of them", 0,
               100000);
  args.add_string("translate", "", "also translate this English sentence and draw its attention");
}

int64_t Seq2SeqOptions::num_epochs() const { return args_.get_flag("quick") ? quick_epochs_ : args_.get_int("epochs"); }
const std::string& Seq2SeqOptions::data() const { return args_.get_string("data"); }
const std::string& Seq2SeqOptions::translate() const { return args_.get_string("translate"); }

Checkpoint Seq2SeqOptions::checkpoint(ModelSettings model, ModelSettings run) const {
  if (!args_.get_string("load").empty() && !args_.get_string("resume").empty())
    throw std::invalid_argument("--load (skip training) and --resume (continue training) exclude each other");
  if (args_.get_int("save-every") > 0 && args_.get_string("save").empty())
    throw std::invalid_argument("[--save-every] needs --save FILE: where to write the checkpoints");
  Checkpoint checkpoint(std::move(model), std::move(run), args_.get_string("save"), args_.get_string("resume"));
  checkpoint.set_save_every(args_.get_int("save-every"));
  return checkpoint;
}

void Seq2SeqOptions::train_or_load(Module& net, Checkpoint& checkpoint,
                                   const std::function<void(int64_t num_epochs)>& train) const {
  if (const std::string& path = args_.get_string("load"); !path.empty()) {
    checkpoint.load(net, path);
    std::printf("loaded %s (training skipped)\n", path.c_str());
    std::fflush(stdout);
    checkpoint.save(net);
  } else {
    train(num_epochs());
    if (!checkpoint.reached_trainer())
      throw std::logic_error("[Seq2SeqOptions::train_or_load] the train function did not pass the checkpoint to the "
                             "trainer: --save and --resume would be ignored");
  }
}

}  // namespace d2l
