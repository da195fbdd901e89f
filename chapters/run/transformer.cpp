// chapters/run/transformer.cpp — the run around 10.7's code (tools/d2l/cli/section.h,
// tools/d2l/cli/seq2seq_run.h). The library does, around the section's own calls, as for
// 10.4 (chapters/run/bahdanau_attention.cpp): --data, --epochs, --quick (20 epochs),
// --save/--load/--resume/--save-every (the model's settings and vocabularies recorded; a
// FILE ending in .safetensors holds the parameters under the book's state_dict() names, for
// PyTorch: tools/scripts/crossover_torch.py). This room adds:
//   --translate "sentence"   after the book's code: its translation and attention figures
//   --pe-offset              prediction adds each step's true position's encoding (the
//                            book adds position 0's): the model is trained by the exercise
//                            file's run, which honours it
// Run time: a few minutes on two cores (--quick: seconds).
#include <cstdio>
#include <string>

#include "chapters/exercises/transformer.h"
#include "layers/transformer.h"
#include "tools/d2l/cli/run.h"
#include "tools/d2l/cli/section.h"
#include "tools/d2l/cli/seq2seq_run.h"
#include "tools/d2l/train/checkpoint.h"
#include "tools/d2l/train/train_seq2seq.h"

using namespace d2l;

namespace {

std::string number(int64_t n) { return setting_number(static_cast<double>(n)); }

// The settings a parameter file records, named as the section's constants, read off the
// book's model (an exercise's variant names its own).
ModelSettings model_settings(const EncoderDecoder& net, const NmtData& data) {
  const auto& encoder = dynamic_cast<const TransformerEncoder&>(net.encoder);
  const EncoderBlock& blk = *encoder.blks[0];
  return {{"num_hiddens", number(encoder.num_hiddens)},
          {"num_layers", number(static_cast<int64_t>(encoder.blks.size()))},
          {"num_heads", number(blk.attention.num_heads)},
          {"ffn_num_hiddens", number(blk.ffn.dense1.out_features)},
          {"key_size", number(blk.attention.W_k.in_features)},
          {"query_size", number(blk.attention.W_q.in_features)},
          {"value_size", number(blk.attention.W_v.in_features)},
          {"dropout", setting_number(blk.addnorm1.dropout.p)},
          {"num_steps", number(data.src.num_steps)}};
}

// After a model was trained (the book's, or an exercise's own): --translate's sentence,
// translated and its attention drawn as the section draws the last sentence's.
void translate_after_training(EncoderDecoder& net, const NmtData& data) {
  const std::string& sentence = translate_option();
  if (sentence.empty()) return;
  const int64_t num_steps = data.src.num_steps;
  auto [translation, weights] = predict_seq2seq(net, sentence, data.src_vocab, data.tgt_vocab, num_steps, "cpu", true);
  std::printf("%s => %s\n", sentence.c_str(), translation.c_str());
  const auto& encoder = dynamic_cast<const TransformerEncoder&>(net.encoder);
  const auto num_heads = static_cast<int64_t>(encoder.blks[0]->attention.num_heads);
  show_last_attention(encoder, sentence, translation, weights, static_cast<int64_t>(encoder.blks.size()), num_heads,
                      num_steps);
}

// The book's model again, with the parameters the section's code trained.
void after_the_book() {
  if (translate_option().empty()) return;
  const TrainedSeq2Seq& trained = trained_seq2seq();
  auto get = [&](const char* key) { return static_cast<int64_t>(trained.setting(key)); };
  const int64_t num_hiddens = get("num_hiddens");
  TransformerEncoder encoder(trained.data.src_vocab.size(), get("key_size"), get("query_size"), get("value_size"),
                             num_hiddens, {num_hiddens}, num_hiddens, get("ffn_num_hiddens"), get("num_heads"),
                             get("num_layers"), 0.0f);
  TransformerDecoder decoder(trained.data.tgt_vocab.size(), get("key_size"), get("query_size"), get("value_size"),
                             num_hiddens, {num_hiddens}, num_hiddens, get("ffn_num_hiddens"), get("num_heads"),
                             get("num_layers"), 0.0f);
  EncoderDecoder net(encoder, decoder);
  restore_trained(net);
  translate_after_training(net, trained.data);
}

// The files besides --save the program writes, which --save may not name.
NamedFiles files_written() {
  NamedFiles files;
  for (const char* figure : {"loss.png", "encoder_self_attention.png", "decoder_self_attention.png",
                             "decoder_encoder_attention.png", "positional_encoding.png", "head_importance.png"})
    files.emplace_back(std::string("the figure ") + figure, figure_path(figure));
  return files;
}

void options(CliArgs& args) {
  // The book's 200 epochs, --quick's 20.
  add_seq2seq_options(args, {"transformer", 200, 20, "loss.png", files_written, model_settings, translate_after_training});
  args.add_flag("pe-offset", "in prediction add the true position's encoding, not position 0 (the book's quirk)");
}

const RegisterSection room({"10.7 Transformer (sec_transformer): the book's demos, then training on English-French "
                            "and translation.",
                            ChapterDefaults{/*threads=*/1},  // small matrices: see tools/d2l/cli/cli_args.h
                            options, train_exercise_setting, after_the_book});

}  // namespace
