// tools/d2l/cli/seq2seq_run.cpp — the run around a seq2seq section's code (see the header).
#include "tools/d2l/cli/seq2seq_run.h"

#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>

#include "tools/d2l/cli/run.h"
#include "tools/d2l/cli/training_options.h"
#include "tools/d2l/train/checkpoint.h"
#include "tools/d2l/train/train_seq2seq.h"

namespace d2l {
namespace {

struct Seq2SeqRun {
  Seq2SeqProgram program;
  std::unique_ptr<Seq2SeqOptions> options;
  bool stop_at_data = false;  // run_book_until_training is replaying the book's cells
  std::optional<TrainedSeq2Seq> trained;
};

Seq2SeqRun& the_run() {
  static Seq2SeqRun run;
  return run;
}

// Thrown by load_data_nmt to end run_book_until_training's replay where the training starts.
struct BookReachedTraining {};

// load_data_nmt's file in the run: --data or the default search, said in one line, after
// checking that --save would overwrite none of the program's inputs and outputs.
std::string data_path_in_run() {
  Seq2SeqRun& run = the_run();
  if (run.stop_at_data) throw BookReachedTraining{};
  const DataSource source = resolve_nmt_data(run.options->data());
  std::printf("using data: %s\n", source.description.c_str());
  std::fflush(stdout);
  NamedFiles files{{"--data", source.path}};
  if (run.program.files_written)
    for (auto& f : run.program.files_written()) files.push_back(std::move(f));
  refuse_save_over(run_args(), files);
  return source.path;
}

// train_seq2seq in the run: the epochs the options ask for, the program's loss figure, and
// the checkpoint family (Seq2SeqOptions::train_or_load: --load skips the training).
TrainSeq2SeqResult train_in_run(EncoderDecoder& net, const NmtData& data, float lr, int64_t book_epochs,
                                const std::string& device, const TrainSeq2SeqOptions& given) {
  Seq2SeqRun& run = the_run();
  const ModelSettings model =
      given.model_settings.empty() ? run.program.model_settings(net, data) : given.model_settings;
  // What a resumed run must match besides the model.
  ModelSettings run_settings{{"batch_size", setting_number(static_cast<double>(data.batch_size))},
                             {"lr", setting_number(lr)}};
  if (!given.loss_mask) run_settings.push_back({"loss_mask", "off"});
  if (!given.teacher_forcing) run_settings.push_back({"teacher_forcing", "off"});
  Checkpoint checkpoint = run.options->checkpoint(run.program.model, model, data, run_settings);
  TrainSeq2SeqOptions options = given;
  options.from_run = false;
  options.checkpoint = &checkpoint;
  if (options.figure_path.empty()) options.figure_path = figure_path(run.program.loss_figure);
  TrainSeq2SeqResult result;
  run.options->train_or_load(net, checkpoint, [&](int64_t) {
    const int64_t num_epochs = run_num_epochs(book_epochs);
    if (num_epochs != book_epochs) {
      const std::string option = run_args().get_flag("quick") ? "--quick" : "--epochs " + std::to_string(num_epochs);
      std::printf("%s: %lld of the book's %lld epochs\n", option.c_str(), static_cast<long long>(num_epochs),
                  static_cast<long long>(book_epochs));
    }
    result = train_seq2seq(net, data, lr, num_epochs, data.tgt_vocab, device, options);
  });
  ParamFileContents kept{model, {}, std::nullopt};
  for (const Tensor& p : net.parameters()) kept.values.push_back(p.to_vector());
  run.trained = TrainedSeq2Seq{data, std::move(kept)};
  return result;
}

}  // namespace

void add_seq2seq_options(CliArgs& args, Seq2SeqProgram program) {
  Seq2SeqRun& run = the_run();
  run.options = std::make_unique<Seq2SeqOptions>(args, program.book_epochs, program.quick_epochs);
  run.program = std::move(program);
  set_default_nmt_path(data_path_in_run);
  set_train_seq2seq_in_run(train_in_run);
}

const std::string& translate_option() {
  if (!the_run().options) throw std::logic_error("translate_option: the program declared no seq2seq options");
  return the_run().options->translate();
}

int64_t run_num_epochs(int64_t book_epochs) {
  const CliArgs& args = run_args();
  if (args.get_flag("quick")) return the_run().program.quick_epochs;
  return args.given("epochs") ? args.get_int("epochs") : book_epochs;
}

void run_book_until_training() {
  struct Replay {  // the flag is down again however the replay ends
    Replay() { the_run().stop_at_data = true; }
    ~Replay() { the_run().stop_at_data = false; }
  } replay;
  try {
    run_book()();
  } catch (const BookReachedTraining&) {
  }
}

double TrainedSeq2Seq::setting(const std::string& key) const {
  for (const auto& [k, v] : parameters.settings)
    if (k == key) return std::stod(v);
  throw std::logic_error("TrainedSeq2Seq: no setting '" + key + "'");
}

const TrainedSeq2Seq& trained_seq2seq() {
  if (!the_run().trained) throw std::logic_error("trained_seq2seq: no model has been trained in this run");
  return *the_run().trained;
}

void restore_trained(Module& net) { copy_parameters(trained_seq2seq().parameters, net); }

void after_training(EncoderDecoder& net, const NmtData& data) {
  if (the_run().program.after_training) the_run().program.after_training(net, data);
}

}  // namespace d2l
