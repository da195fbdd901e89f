// chapters/exercises/bahdanau_attention.cpp — the exercises of 10.4 Bahdanau 注意力 / Bahdanau
// Attention, and those of 9.7 and 10.1 that need its model (tools/d2l/cli/exercises.h).
//
// The exercises (this section's and 9.7's, whose training this section uses), each a
// setting; with any of them the program trains that model in place of the book's, then
// trains the book's model too (both from --seed) and prints one table row for each: loss
// of the first and last epoch, the masked loss of the trained model over all pairs, mean
// BLEU over the book's four sentences and over the first 100 pairs, and tokens/sec.
//   --rnn lstm             10.4 ex. 1: an LSTM (layers/lstm.h) in place of the GRU
//   --scoring dot          10.4 ex. 2: scaled dot-product scoring in place of additive
//   --scoring bilinear     10.3 ex. 2: the bilinear score qᵀ W k (BilinearAttention)
//   --no-loss-mask         9.7 ex. 2: the loss counts the padding too
//   --no-teacher-forcing   9.7 ex. 4: the decoder reads its own predictions in training
// and, without changing the training:
//   --cues                 10.1 ex. 1: for the last sentence (or --translate), each target
//                          step's input and output token and the source token it attends to
//                          most: the decoder state is the query (the volitional cue), the
//                          encoder's outputs the keys and values (the nonvolitional cues)
#include "chapters/exercises/bahdanau_attention.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <functional>
#include <memory>

#include "core/ops.h"
#include "core/random.h"
#include "layers/bahdanau_attention.h"
#include "layers/exercises/bahdanau_attention.h"
#include "tools/d2l/cli/exercises.h"
#include "tools/d2l/cli/run.h"
#include "tools/d2l/cli/seq2seq_run.h"
#include "tools/d2l/data/bleu.h"
#include "tools/d2l/data/nmt_data.h"
#include "tools/d2l/data/text.h"
#include "tools/d2l/figures/figures.h"
#include "tools/d2l/figures/token_names.h"
#include "tools/d2l/train/checkpoint.h"
#include "tools/d2l/train/train_seq2seq.h"

using namespace d2l;

namespace {

const ExerciseList exercises(
    {{1, "an LSTM in place of the GRU, trained beside the book's model", "build/chapters/bahdanau_attention --rnn lstm"},
     {2, "scaled dot-product scoring in place of additive, trained beside the book's model",
      "build/chapters/bahdanau_attention --scoring dot"}},
    [](CliArgs& args) {
      args.add_choice("rnn", {"gru", "lstm"}, "10.4 ex. 1: the recurrent cell, gru (the book) or lstm", "CELL");
      args.add_choice("scoring", {"additive", "dot", "bilinear"},
                      "10.4 ex. 2: the attention scoring, additive (the book) or dot (scaled dot-product); 10.3 ex. "
                      "2: bilinear (q W k)",
                      "FN");
      args.add_flag("cues", "10.1 ex. 1: after translating, print for the last sentence (or --translate) which "
                            "source token each target step attends to most: the queries (decoder states) against "
                            "the keys (encoder outputs)");
      args.add_flag("no-loss-mask", "9.7 ex. 2: train with a loss that counts the padding too");
      args.add_flag("no-teacher-forcing", "9.7 ex. 4: train feeding the decoder its own predictions");
    });

// The model an exercise trains: the book's (GRU, additive, mask, teacher forcing) unless
// the command line (--rnn, --scoring, --no-loss-mask, --no-teacher-forcing) changes a part.
struct Setting {
  RecurrentCell cell = RecurrentCell::gru;
  AttentionScoring scoring = AttentionScoring::additive;
  bool loss_mask = true, teacher_forcing = true;

  static Setting from(const CliArgs& args);
  bool is_book() const;
  std::string name() const;          // "lstm, additive, no loss mask"
  std::string scoring_name() const;  // "additive", "dot" or "bilinear"
};

// The book's classes for the book's cell and scoring (so its run is unchanged), else the
// exercises' variants (layers/exercises/bahdanau_attention.h), which first reseed from
// --seed: an exercise's run and the book's run it is compared with both start from it.
struct Model {
  std::unique_ptr<Encoder> encoder;
  std::unique_ptr<AttentionDecoder> decoder;
};

Setting Setting::from(const CliArgs& args) {
  Setting s;
  const std::string& scoring = args.get_string("scoring");
  s.cell = args.get_string("rnn") == "lstm" ? RecurrentCell::lstm : RecurrentCell::gru;
  s.scoring = scoring == "dot"        ? AttentionScoring::scaled_dot_product
              : scoring == "bilinear" ? AttentionScoring::bilinear
                                      : AttentionScoring::additive;
  s.loss_mask = !args.get_flag("no-loss-mask");
  s.teacher_forcing = !args.get_flag("no-teacher-forcing");
  return s;
}

std::string Setting::scoring_name() const {
  return scoring == AttentionScoring::additive ? "additive" : scoring == AttentionScoring::bilinear ? "bilinear" : "dot";
}

bool Setting::is_book() const {
  return cell == RecurrentCell::gru && scoring == AttentionScoring::additive && loss_mask && teacher_forcing;
}

std::string Setting::name() const {
  std::string s = std::string(cell == RecurrentCell::gru ? "gru" : "lstm") + ", " + scoring_name();
  if (!loss_mask) s += ", no loss mask";
  if (!teacher_forcing) s += ", no teacher forcing";
  return s;
}

Model make_model(const Setting& s, int64_t src_vocab, int64_t tgt_vocab, int64_t embed_size = 32,
                 int64_t num_hiddens = 32, int64_t num_layers = 2, float dropout = 0.1f) {
  if (!s.is_book()) manual_seed(static_cast<uint64_t>(run_args().get_int("seed")));
  Model m;
  if (s.cell == RecurrentCell::gru && s.scoring == AttentionScoring::additive) {
    m.encoder = std::make_unique<Seq2SeqEncoder>(src_vocab, embed_size, num_hiddens, num_layers, dropout);
    m.decoder = std::make_unique<Seq2SeqAttentionDecoder>(tgt_vocab, embed_size, num_hiddens, num_layers, dropout);
  } else {
    m.encoder = std::make_unique<VariantSeq2SeqEncoder>(s.cell, src_vocab, embed_size, num_hiddens, num_layers, dropout);
    m.decoder = std::make_unique<VariantAttentionDecoder>(s.cell, s.scoring, tgt_vocab, embed_size, num_hiddens,
                                                          num_layers, dropout);
  }
  return m;
}

}  // namespace

// 10.1 ex. 1: the volitional and nonvolitional cues of translation, in the trained model.
// The keys and values (nonvolitional cues: what is there to be looked at) are the encoder's
// outputs, one per source token; the query (the volitional cue: what the decoder wants next)
// is the decoder's hidden state after reading the previous target token. For each target
// step: the token read, the token produced, and the source token given the most weight.
void print_cues(const std::string& sentence, const std::string& translation, const std::vector<Tensor>& steps,
                int64_t num_steps) {
  print_banner("练习 10.1.1 / Exercise 10.1 ex. 1: volitional and nonvolitional cues in translation");
  std::vector<std::string> source;
  for (const std::string& w : split(sentence, ' '))
    if (!w.empty()) source.push_back(w);
  source.push_back("<eos>");
  std::vector<std::string> target;
  for (const std::string& w : split(translation, ' '))
    if (!w.empty()) target.push_back(w);
  target.push_back("<eos>");
  std::printf("keys and values (nonvolitional cues): the encoder's outputs at");
  for (const std::string& w : source) std::printf(" '%s'", w.c_str());
  std::printf("\nqueries (volitional cues): the decoder's state after reading each target-side input\n");
  std::printf("%-5s %-12s %-12s %s\n", "step", "reads", "writes", "attends most to (weight)");
  const int64_t keys = std::min<int64_t>(static_cast<int64_t>(source.size()), num_steps);
  for (size_t t = 0; t < steps.size() && t < target.size(); ++t) {
    const std::vector<float> w = reshape(steps[t], {-1}).to_vector();  // (num_steps,)
    const int64_t best = std::max_element(w.begin(), w.begin() + keys) - w.begin();
    std::printf("%-5zu %-12s %-12s '%s' (%.3f)\n", t + 1, t == 0 ? "<bos>" : target[t - 1].c_str(),
                target[t].c_str(), source[static_cast<size_t>(best)].c_str(), w[static_cast<size_t>(best)]);
  }
}

namespace {

std::string format_fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

// One row of the exercise table. Its epoch-1 column is the first epoch this run trained:
// after --resume that is a later epoch, and the cell says which ("epoch 6: 0.218").
void print_row(const std::string& name, const TrainSeq2SeqResult& r, const Seq2SeqScores& scores, double bleu4) {
  if (r.epoch_loss.empty())  // --load: nothing was trained in this run
    std::printf("%-40s %12s %11s %9.3f %7.3f %8.3f %11s\n", name.c_str(), "(loaded)", "-", scores.loss, bleu4,
                scores.bleu, "-");
  else if (r.first_epoch > 1)  // --resume: epoch 1 was trained by an earlier run; say which epoch this is
    std::printf("%-40s %12s %11.3f %9.3f %7.3f %8.3f %11.1f\n", name.c_str(),
                ("epoch " + std::to_string(r.first_epoch) + ": " + format_fixed(r.epoch_loss.front())).c_str(), r.loss,
                scores.loss, bleu4, scores.bleu, r.tokens_per_sec);
  else
    std::printf("%-40s %12.3f %11.3f %9.3f %7.3f %8.3f %11.1f\n", name.c_str(), r.epoch_loss.front(), r.loss,
                scores.loss, bleu4, scores.bleu, r.tokens_per_sec);
}

// After an exercise's setting was trained: trains the book's model as long from --seed
// (quietly: no figure, no checkpoint) and prints one table row for each (epoch losses, eval
// loss, BLEU, tokens/sec).
void compare_with_book(const Setting& setting, EncoderDecoder& net, const NmtData& data,
                       const TrainSeq2SeqResult& trained, double bleu4, int64_t num_epochs, float lr,
                       const std::vector<std::string>& engs, const std::vector<std::string>& fras) {
  print_banner("练习 / Exercises: " + setting.name() + " against the book's gru, additive");
  const Seq2SeqScores scores = evaluate_seq2seq(net, data, 100);
  // The book's model, trained the same number of epochs from the same seed.
  manual_seed(static_cast<uint64_t>(run_args().get_int("seed")));
  const Model book = make_model(Setting{}, data.src_vocab.size(), data.tgt_vocab.size());
  EncoderDecoder book_net(*book.encoder, *book.decoder);
  TrainSeq2SeqOptions quiet;  // no figure, no closing line, none of the run's options
  quiet.print_result = false;
  quiet.from_run = false;
  const TrainSeq2SeqResult book_trained = train_seq2seq(book_net, data, lr, num_epochs, data.tgt_vocab, "cpu", quiet);
  double book_bleu4 = 0;
  for (size_t i = 0; i < engs.size(); ++i)
    book_bleu4 += bleu(predict_seq2seq(book_net, engs[i], data.src_vocab, data.tgt_vocab, data.src.num_steps).first,
                       fras[i], 2) /
                  static_cast<double>(engs.size());
  const Seq2SeqScores book_scores = evaluate_seq2seq(book_net, data, 100);
  std::printf("%-40s %12s %11s %9s %7s %8s %11s\n", "setting", "epoch-1 loss", "final loss", "eval loss", "bleu-4",
              "bleu-100", "tokens/sec");
  print_row(setting.name(), trained, scores, bleu4);
  print_row(Setting{}.name() + " (the book)", book_trained, book_scores, book_bleu4);
  std::printf("(final loss: the training objective of the last epoch; eval loss: the masked loss per target "
              "token of the trained model, in eval mode with teacher forcing, over all %lld pairs; bleu-4: "
              "mean over the four sentences above; bleu-100: mean over the first %lld pairs)\n",
              static_cast<long long>(data.src.rows()), static_cast<long long>(scores.pairs));
}

}  // namespace

bool train_exercise_setting() {
  const Setting setting = Setting::from(run_args());
  if (setting.is_book()) return false;
  run_book_until_training();  // the section's shape check and its training banner
  // The section's settings, for the setting's model.
  const int64_t embed_size = 32, num_hiddens = 32, num_layers = 2, batch_size = 64, num_steps = 10, num_epochs = 250;
  const float dropout = 0.1f, lr = 0.005f;
  auto [train_iter, src_vocab, tgt_vocab] = load_data_nmt(batch_size, num_steps);
  const Model model =
      make_model(setting, src_vocab.size(), tgt_vocab.size(), embed_size, num_hiddens, num_layers, dropout);
  EncoderDecoder net(*model.encoder, *model.decoder);
  TrainSeq2SeqOptions options;
  options.loss_mask = setting.loss_mask;
  options.teacher_forcing = setting.teacher_forcing;
  // A parameter file records the book's settings, then the parts this setting changes.
  options.model_settings = {{"embed_size", setting_number(embed_size)}, {"num_hiddens", setting_number(num_hiddens)},
                            {"num_layers", setting_number(num_layers)}, {"dropout", setting_number(dropout)},
                            {"num_steps", setting_number(num_steps)}};
  if (setting.cell != RecurrentCell::gru) options.model_settings.push_back({"rnn", "lstm"});
  if (setting.scoring != AttentionScoring::additive) options.model_settings.push_back({"scoring", setting.scoring_name()});
  const TrainSeq2SeqResult trained = train_seq2seq(net, train_iter, lr, num_epochs, tgt_vocab, "cpu", options);

  const std::vector<std::string> engs{"go .", "i lost .", "he's calm .", "i'm home ."};
  const std::vector<std::string> fras{"va !", "j'ai perdu .", "il est calme .", "je suis chez moi ."};
  double bleu4 = 0;  // mean over the four, for the table
  for (size_t i = 0; i < engs.size(); ++i) {
    auto [translation, weights] = predict_seq2seq(net, engs[i], src_vocab, tgt_vocab, num_steps, "cpu", true);
    const double b = bleu(translation, fras[i], 2);
    std::printf("%s => %s,  bleu %.3f\n", engs[i].c_str(), translation.c_str(), b);
    bleu4 += b / static_cast<double>(engs.size());
  }
  const Seq2SeqPrediction& last = last_prediction();
  draw_attention(last.weights, last.sentence, last.translation, num_steps, figure_path("attention.png"));
  after_training(net, train_iter);  // --cues, --translate, --dump-attention, as after the book's model
  compare_with_book(setting, net, train_iter, trained, bleu4, run_num_epochs(num_epochs), lr, engs, fras);
  return true;
}

void draw_attention(const std::vector<Tensor>& steps, const std::string& sentence, const std::string& translation,
                    int64_t num_steps, const std::string& path) {
  check(!steps.empty(), "bahdanau_attention", "no attention weights were saved for '", sentence, "'");
  std::vector<Tensor> rows;
  for (const Tensor& s : steps) rows.push_back(reshape(s, {1, num_steps}));  // step[0][0]
  const Tensor attention_weights = reshape(concat(rows, 0), {1, 1, -1, num_steps});
  const int64_t keys = std::min(static_cast<int64_t>(split(sentence).size()) + 1, num_steps);
  HeatmapOptions opt;
  opt.xlabel = "Key positions";
  opt.ylabel = "Query positions";
  opt.xnames = position_names(sentence, keys);
  opt.ynames = position_names(translation, static_cast<int64_t>(steps.size()));
  write_figure(path, [&] { show_heatmaps(slice(attention_weights, 3, 0, keys), opt, path); });
}

