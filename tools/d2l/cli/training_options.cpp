// tools/d2l/cli/training_options.cpp — the training chapters' shared options (see the header).
#include "tools/d2l/cli/training_options.h"

#include "tools/d2l/train/train_seq2seq.h"  // explain_tokens_of

#include "tools/d2l/data/vocab_tokens.h"

#include <cstdio>
#include <stdexcept>
#include <utility>

namespace d2l {

CheckpointOptions::CheckpointOptions(CliArgs& args, bool resumable, const std::string& save_help,
                                     const std::string& load_help)
    : args_(args), resumable_(resumable) {
  args.add_string("save", "", save_help, "FILE");
  args.add_string("load", "", load_help, "FILE");
  if (!resumable) return;
  args.add_string("resume", "",
                  "continue the training saved in FILE up to --epochs, exactly as if it had never stopped", "FILE");
  args.add_int("save-every", 0,
               "also write --save after every N epochs (0: after the last only); --resume continues any of them", 0,
               100000);
}

const std::string& CheckpointOptions::load_path() const { return args_.get_string("load"); }

Checkpoint CheckpointOptions::checkpoint(ModelSettings model, ModelSettings run) const {
  const std::string resume = resumable_ ? args_.get_string("resume") : "";
  if (!load_path().empty() && !resume.empty())
    throw std::invalid_argument("--load (skip training) and --resume (continue training) exclude each other");
  const int64_t save_every = resumable_ ? args_.get_int("save-every") : 0;
  if (save_every > 0 && args_.get_string("save").empty())
    throw std::invalid_argument("[--save-every] needs --save FILE: where to write the checkpoints");
  Checkpoint checkpoint(std::move(model), std::move(run), args_.get_string("save"), resume);
  checkpoint.set_save_every(save_every);
  return checkpoint;
}

bool CheckpointOptions::load_if_given(Module& net, Checkpoint& checkpoint, const std::string& note) const {
  if (load_path().empty()) return false;
  checkpoint.load(net, load_path());
  std::printf("loaded %s%s\n", load_path().c_str(), note.c_str());
  std::fflush(stdout);
  return true;
}

void CheckpointOptions::train_or_load(Module& net, Checkpoint& checkpoint, const std::function<void()>& train) const {
  if (load_if_given(net, checkpoint, " (training skipped)")) {
    checkpoint.save(net);
    return;
  }
  train();
  if (!resumable_) checkpoint.save(net);
  else if (!checkpoint.reached_trainer())
    throw std::logic_error("[CheckpointOptions::train_or_load] the train function did not pass the checkpoint to the "
                           "trainer: --save and --resume would be ignored");
}

namespace {

// The seq2seq options that come before the checkpoint family in --help.
CliArgs& with_seq2seq_head(CliArgs& args, int64_t book_epochs, int64_t quick_epochs) {
  args.add_int("epochs", book_epochs, "training epochs (the book: " + std::to_string(book_epochs) + ")", 1, 100000);
  args.add_flag("quick", std::to_string(quick_epochs) + " epochs: a smoke test");
  args.add_string("data", "", "fra.txt to train on (default: data/fra-eng/fra.txt, else the bundled corpus)", "PATH");
  return args;
}

}  // namespace

Seq2SeqOptions::Seq2SeqOptions(CliArgs& args, int64_t book_epochs, int64_t quick_epochs)
    : CheckpointOptions(with_seq2seq_head(args, book_epochs, quick_epochs), true), args_(args), quick_epochs_(quick_epochs) {
  args.add_string("translate", "", "also translate this English sentence and draw its attention");
}

int64_t Seq2SeqOptions::num_epochs() const { return args_.get_flag("quick") ? quick_epochs_ : args_.get_int("epochs"); }
const std::string& Seq2SeqOptions::data() const { return args_.get_string("data"); }
const std::string& Seq2SeqOptions::translate() const {
  explain_tokens_of(args_.get_string("translate"));  // predict_seq2seq then notes its <unk> words and cut
  return args_.get_string("translate");
}

Checkpoint Seq2SeqOptions::checkpoint(const std::string& model, const ModelSettings& hyper, const NmtData& data,
                                      ModelSettings run) const {
  ModelSettings settings{{"model", model}};
  settings.insert(settings.end(), hyper.begin(), hyper.end());
  settings.push_back({"src_vocab", vocab_fingerprint(data.src_vocab)});
  settings.push_back({"tgt_vocab", vocab_fingerprint(data.tgt_vocab)});
  Checkpoint checkpoint = CheckpointOptions::checkpoint(std::move(settings), std::move(run));
  checkpoint.set_safetensors_metadata({{"src_vocab.tokens", vocab_tokens_json(data.src_vocab)},
                                       {"tgt_vocab.tokens", vocab_tokens_json(data.tgt_vocab)}});
  return checkpoint;
}

void Seq2SeqOptions::train_or_load(Module& net, Checkpoint& checkpoint,
                                   const std::function<void(int64_t num_epochs)>& train) const {
  CheckpointOptions::train_or_load(net, checkpoint, [&] { train(num_epochs()); });
}

}  // namespace d2l
