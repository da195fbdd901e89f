// chapters/run/bahdanau_attention.cpp — the run around 10.4's code (tools/d2l/cli/section.h,
// tools/d2l/cli/seq2seq_run.h). The library does, around the section's own calls:
//   --data PATH       a fra.txt (default data/fra-eng/fra.txt from `make data`, else the
//                     bundled chapters/data/fra-eng-small.txt); the program says which it read
//   --epochs N, --quick (10 epochs)   in place of the book's 250, said in one line
//   --save FILE, --load FILE   the trained parameters with the model's settings and both
//                     vocabularies' fingerprints (a file trained on other data is refused);
//                     --load skips the training. --save also keeps Adam's state and the
//                     generator, so --resume FILE continues exactly (--save-every N too):
//     bahdanau_attention --epochs 100 --save half.params
//     bahdanau_attention --resume half.params --save model.params     # epochs 101..250
//                     A FILE ending in .safetensors holds the parameters under the book's
//                     state_dict() names, the settings and vocabularies in __metadata__, for
//                     PyTorch (tools/scripts/crossover_torch.py); no training state.
// and this room, after the book's code, with the model it trained:
//   --translate "sentence"   one more translation, its attention drawn in translate.png
//   --dump-attention FILE.npy   the last sentence's (or --translate's) attention weights
// Run time: about a minute for 250 epochs on 2 cores (--quick: a few seconds).
#include <cstdio>
#include <string>
#include <vector>

#include "chapters/exercises/bahdanau_attention.h"
#include "layers/bahdanau_attention.h"
#include "tools/d2l/cli/section.h"
#include "tools/d2l/cli/seq2seq_run.h"
#include "tools/d2l/data/text.h"
#include "tools/d2l/figures/figures.h"
#include "tools/d2l/train/checkpoint.h"
#include "tools/d2l/train/train_seq2seq.h"

using namespace d2l;

namespace {

// The settings a parameter file records, named as the section's constants, read off the
// book's model (an exercise's variant names its own).
ModelSettings model_settings(const EncoderDecoder& net, const NmtData& data) {
  const auto& encoder = dynamic_cast<const Seq2SeqEncoder&>(net.encoder);
  return {{"embed_size", setting_number(static_cast<double>(encoder.embedding.embed_size))},
          {"num_hiddens", setting_number(static_cast<double>(encoder.rnn.num_hiddens))},
          {"num_layers", setting_number(static_cast<double>(encoder.rnn.num_layers))},
          {"dropout", setting_number(encoder.rnn.dropout)},
          {"num_steps", setting_number(static_cast<double>(data.src.num_steps))}};
}

// After a model was trained (the book's, or an exercise's own): --cues for the last
// sentence, --translate's sentence, --dump-attention.
void translate_and_dump(EncoderDecoder& net, const NmtData& data) {
  const int64_t num_steps = data.src.num_steps;
  const Seq2SeqPrediction& last = last_prediction();
  const std::string& sentence = translate_option();
  const std::string& dump = run_args().get_string("dump-attention");
  if (run_args().get_flag("cues") && sentence.empty()) print_cues(last.sentence, last.translation, last.weights, num_steps);
  if (sentence.empty()) {
    if (!dump.empty()) write_attention_npy(last.weights, num_steps, dump);
    return;
  }
  auto [translation, weights] = predict_seq2seq(net, sentence, data.src_vocab, data.tgt_vocab, num_steps, "cpu", true);
  std::printf("%s => %s\n", sentence.c_str(), translation.c_str());
  draw_attention(weights, lower_utf8(sentence), translation, num_steps, figure_path("translate.png"));
  if (run_args().get_flag("cues")) print_cues(lower_utf8(sentence), translation, weights, num_steps);
  if (!dump.empty()) write_attention_npy(weights, num_steps, dump);
}

// The book's model again, with the parameters the section's code trained.
void after_the_book() {
  const TrainedSeq2Seq& trained = trained_seq2seq();
  const auto embed_size = static_cast<int64_t>(trained.setting("embed_size"));
  const auto num_hiddens = static_cast<int64_t>(trained.setting("num_hiddens"));
  const auto num_layers = static_cast<int64_t>(trained.setting("num_layers"));
  Seq2SeqEncoder encoder(trained.data.src_vocab.size(), embed_size, num_hiddens, num_layers);
  Seq2SeqAttentionDecoder decoder(trained.data.tgt_vocab.size(), embed_size, num_hiddens, num_layers);
  EncoderDecoder net(encoder, decoder);
  restore_trained(net);
  translate_and_dump(net, trained.data);
}

// The files besides --save the program writes, which --save may not name.
NamedFiles files_written() {
  return {{"the loss figure", figure_path("train_seq2seq.png")},
          {"the attention figure", figure_path("attention.png")},
          {"--translate's figure", figure_path("translate.png")},
          {"the --dump-attention array", run_args().get_string("dump-attention")}};
}

void options(CliArgs& args) {
  // The book's 250 epochs, --quick's 10.
  add_seq2seq_options(args, {"bahdanau_attention", 250, 10, "train_seq2seq.png", files_written, model_settings,
                             translate_and_dump});
  args.add_string("dump-attention", "", "write the attention weights of the last sentence (or --translate) as a "
                  ".npy array (decoding steps, num_steps): every step's weights over all key positions", "FILE.npy");
}

const RegisterSection room({"10.4 Bahdanau Attention (sec_seq2seq_attention): a GRU encoder-decoder with additive "
                            "attention, trained on English-French pairs.",
                            ChapterDefaults{/*threads=*/1},  // small matrices: see tools/d2l/cli/cli_args.h
                            options, train_exercise_setting, after_the_book});

}  // namespace
