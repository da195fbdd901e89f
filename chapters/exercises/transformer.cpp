// chapters/exercises/transformer.cpp — the exercises of 10.7 Transformer, and 10.5 ex. 2 and
// 10.6 ex. 2, which need its trained model (tools/d2l/cli/exercises.h). Each is an option of
// build/chapters/transformer or another program:
//
// The exercises:
//   --num-layers N          10.7 ex. 1: N encoder and N decoder blocks (the book: 2)
//   --scoring additive      10.7 ex. 2: additive attention in every head in place of scaled
//                           dot product
// With either, the program closes with one summary line (parameters, training seconds,
// loss, masked loss over all pairs, BLEU over the four sentences and the first 100 pairs,
// tokens/sec); run it once per setting to compare.
//   --head-importance       10.5 ex. 2: after training, each head of each attention (encoder
//                           self, decoder self, decoder-encoder) is masked in turn; a table
//                           and out/transformer/head_importance.png (layer x head) show how
//                           much the loss and BLEU change without it.
// --pe learned answers exercise 2 of 10.6 (sec_self-attention-and-positional-encoding), a
// learnable positional encoding: the encoder and decoder each add a LearnedPositionalEncoding
// (layers/self_attention_and_positional_encoding.h) instead of the sinusoids and train it
// with the model. It is drawn here, where it is trained, rather than in 10.6's program,
// which trains nothing. After the book's output the program prints the table's shape and
// how far training moved its rows (positions 0..num_steps-1 move, later ones never do), and
// writes out/transformer/positional_encoding.png: the sinusoidal P, the encoder's and the
// decoder's learned P over positions 0..num_steps-1, side by side (Blues, as 10.6 draws P).
#include "chapters/exercises/transformer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <chrono>

#include "core/ops.h"
#include "layers/exercises/multihead_attention.h"
#include "layers/exercises/self_attention_and_positional_encoding.h"
#include "tools/d2l/cli/exercises.h"
#include "tools/d2l/cli/run.h"
#include "tools/d2l/cli/seq2seq_run.h"
#include "tools/d2l/data/bleu.h"
#include "tools/d2l/data/nmt_data.h"
#include "tools/d2l/data/text.h"
#include "tools/d2l/figures/animator.h"
#include "tools/d2l/figures/figures.h"
#include "tools/d2l/figures/token_names.h"
#include "tools/d2l/train/checkpoint.h"

using namespace d2l;

namespace {

const ExerciseList exercises(
    {{1, "more encoder and decoder blocks", "build/chapters/transformer --num-layers 4"},
     {2, "additive attention in every head in place of scaled dot product",
      "build/chapters/transformer --scoring additive"},
     {3, "a decoder-only Transformer language model", "build/chapters/transformer_lm"},
     {4, "what self-attention costs as the sequence grows", "build/chapters/attention_cost"},
     {5, "attention that never stores the n x n weights", "build/chapters/attention_cost"},
     {6, "a vision Transformer on rendered shapes", "build/chapters/vision_transformer"}},
    [](CliArgs& args) {
      args.add_int("num-layers", 2, "10.7 ex. 1: encoder and decoder blocks (the book: 2)", 1, 64);
      args.add_choice("scoring", {"dot", "additive"},
                      "10.7 ex. 2: the heads' scoring, dot (scaled dot-product, the book) or additive", "FN");
      args.add_flag("head-importance", "10.5 ex. 2: mask one head at a time after training");
      args.add_choice("pe", {"sinusoidal", "learned"},
                      "positional encoding: sinusoidal (the book's) or learned (10.6's exercise 2: a trained table, "
                      "drawn beside the sinusoidal one in positional_encoding.png)",
                      "KIND");
    });

// Every MultiHeadAttention of the model, grouped as the book draws them: encoder
// self-attention, decoder self-attention, decoder-encoder attention; each group by layer.
std::vector<std::vector<MultiHeadAttention*>> attention_groups(TransformerEncoder& encoder,
                                                              TransformerDecoder& decoder) {
  std::vector<std::vector<MultiHeadAttention*>> groups(3);
  for (auto& blk : encoder.blks) groups[0].push_back(&blk->attention);
  for (auto& blk : decoder.blks) {
    groups[1].push_back(&blk->attention1);
    groups[2].push_back(&blk->attention2);
  }
  return groups;
}

// 10.7 ex. 2 (--scoring additive): every head scores with additive attention.
void use_scoring(const std::string& scoring, TransformerEncoder& encoder, TransformerDecoder& decoder) {
  if (scoring == "additive")
    for (const auto& group : attention_groups(encoder, decoder))
      for (MultiHeadAttention* mha : group) use_additive_scoring(*mha);
}

// 10.5 ex. 2: masks each head alone and scores the model without it. Prints one row per
// head (the change in loss and BLEU from the unmasked model) and draws the loss changes as
// three layer x head heatmaps.
void head_importance(EncoderDecoder& net, TransformerEncoder& encoder, TransformerDecoder& decoder,
                     const NmtData& data, int64_t num_heads, int64_t bleu_pairs, const std::string& path) {
  const Seq2SeqScores base = evaluate_seq2seq(net, data, bleu_pairs);
  std::printf("all heads: loss %.6f, bleu %.3f (mean over the first %lld pairs)\n", base.loss, base.bleu,
              static_cast<long long>(base.pairs));
  const std::vector<std::string> names{"encoder self-attention", "decoder self-attention",
                                       "decoder-encoder attention"};
  const auto groups = attention_groups(encoder, decoder);
  const int64_t num_layers = static_cast<int64_t>(groups[0].size());
  Tensor delta = zeros({1, 3, num_layers, num_heads});  // Δloss per group, layer, head
  // Layers and heads counted from 0, as the heatmap's axes.
  std::printf("%-26s %5s %4s %11s %8s\n", "attention", "layer", "head", "Δloss", "Δbleu");
  for (int64_t g = 0; g < 3; ++g)
    for (int64_t l = 0; l < num_layers; ++l)
      for (int64_t h = 0; h < num_heads; ++h) {
        MultiHeadAttention& mha = *groups[g][l];
        std::vector<float> factors(num_heads, 1.0f);
        factors[h] = 0.0f;
        const Seq2SeqScores masked = [&] {
          const HeadMask mask(mha, factors);  // head h removed while `mask` lives
          return evaluate_seq2seq(net, data, bleu_pairs);
        }();
        delta.at({0, g, l, h}) = static_cast<float>(masked.loss - base.loss);
        std::printf("%-26s %5lld %4lld %+11.6f %+8.3f\n", names[g].c_str(), static_cast<long long>(l),
                    static_cast<long long>(h), masked.loss - base.loss, masked.bleu - base.bleu);
      }
  std::printf("(Δ: masked minus all heads; the heatmap shows Δloss)\n");
  write_figure(path, [&] {
    show_heatmaps(delta, "Head", "Layer", {"Encoder self", "Decoder self", "Decoder-encoder"}, {7.0f, 2.5f}, "Reds",
                  path);
  });
}

// The largest and the mean |P - P0| over rows [begin, end) of a (1, max_len, d) table.
std::pair<float, float> row_change(const Tensor& P, const Tensor& P0, int64_t begin, int64_t end) {
  const int64_t d = P.size(2);
  float largest = 0.0f;
  double total = 0.0;
  for (int64_t k = begin * d; k < end * d; ++k) {
    const float c = std::fabs(P.data()[k] - P0.data()[k]);
    largest = std::max(largest, c);
    total += c;
  }
  return {largest, static_cast<float>(total / static_cast<double>((end - begin) * d))};
}

// 10.6's exercise 2: the learned tables after training, against the sinusoids. Training
// sequences have num_steps tokens, so only rows 0..num_steps-1 ever get a gradient.
void show_learned_encoding(const TransformerEncoder& encoder, const TransformerDecoder& decoder, const Tensor& enc_P0,
                           const Tensor& dec_P0, int64_t num_steps, const std::string& out) {
  print_banner("可学习的位置编码 / learned positional encoding (10.6, exercise 2)");
  const int64_t max_len = encoder.pos_encoding->max_len;
  std::cout << "learned P: encoder " << torch_size(encoder.pos_encoding->P.shape()) << ", decoder "
            << torch_size(decoder.pos_encoding->P.shape()) << " (1, max_len, num_hiddens)\n";
  for (const auto& [name, P, P0] : {std::make_tuple("encoder", encoder.pos_encoding->P, enc_P0),
                                    std::make_tuple("decoder", decoder.pos_encoding->P, dec_P0)}) {
    const auto [trained_max, trained_mean] = row_change(P, P0, 0, num_steps);
    const auto [rest_max, rest_mean] = row_change(P, P0, num_steps, max_len);
    std::printf("%s: rows 0..%lld moved by %.4f on average (largest %.4f); rows %lld..%lld by %.4f (largest %.4f)\n",
                name, static_cast<long long>(num_steps - 1), trained_mean, trained_max,
                static_cast<long long>(num_steps), static_cast<long long>(max_len - 1), rest_mean, rest_max);
  }
  const PositionalEncoding sinusoidal(encoder.num_hiddens, 0.0f, max_len);
  auto rows = [&](const Tensor& P) { return select(slice(P, 1, 0, num_steps), 0, 0); };
  const Tensor maps = reshape(stack({rows(sinusoidal.P), rows(encoder.pos_encoding->P), rows(decoder.pos_encoding->P)}, 0),
                              {1, 3, num_steps, encoder.num_hiddens});
  const std::string path = out + "/positional_encoding.png";
  write_figure(path, [&] {
    show_heatmaps(maps, "Column (encoding dimension)", "Row (position)",
                  {"sinusoidal", "learned (encoder)", "learned (decoder)"}, {9.0f, 2.5f}, "Blues", path);
  });
  // What training changed: |P - P0| (the tables start as N(0, 1) noise, which the figure above
  // mostly shows), over twice the trained rows: rows num_steps.. never change.
  const int64_t shown = std::min<int64_t>(2 * num_steps, max_len);
  auto moved = [&](const Tensor& P, const Tensor& P0) { return select(slice(abs(sub(P.detach(), P0)), 1, 0, shown), 0, 0); };
  const Tensor change = reshape(stack({moved(encoder.pos_encoding->P, enc_P0), moved(decoder.pos_encoding->P, dec_P0)}, 0),
                                {1, 2, shown, encoder.num_hiddens});
  const std::string changed = out + "/positional_encoding_change.png";
  write_figure(changed, [&] {
    show_heatmaps(change, "Column (encoding dimension)", "Row (position)",
                  {"encoder: |trained - initial|", "decoder: |trained - initial|"}, {7.0f, 3.0f}, "Reds", changed);
  });
}


// 10.7 ex. 1 and 2 (--num-layers, --scoring): one summary line of the trained model.
void print_exercise_summary(const CliArgs& args, EncoderDecoder& net, const NmtData& data,
                            const TrainSeq2SeqResult& trained, double train_seconds, double bleu4) {
  const int64_t num_layers = args.get_int("num-layers");
  const std::string& scoring = args.get_string("scoring");
  print_banner("练习 / Exercises: num_layers " + std::to_string(num_layers) + ", scoring " + scoring);
  int64_t parameters = 0;
  for (const Tensor& p : net.parameters()) parameters += p.numel();
  const Seq2SeqScores scores = evaluate_seq2seq(net, data, 100);
  if (trained.epoch_loss.empty())  // --load: nothing was trained in this run
    std::printf("parameters %lld, loaded, eval loss %.3f, bleu-4 %.3f, bleu-100 %.3f\n",
                static_cast<long long>(parameters), scores.loss, bleu4, scores.bleu);
  else
    std::printf("parameters %lld, training %.1f s, loss %s, eval loss %.3f, bleu-4 %.3f, bleu-100 %.3f, "
                "%.1f tokens/sec\n",
                static_cast<long long>(parameters), train_seconds, format_metric(trained.loss).c_str(),
                scores.loss, bleu4, scores.bleu, trained.tokens_per_sec);
  std::printf("(eval loss: the masked loss per target token in eval mode over all %lld pairs; bleu-4: mean over "
              "the four sentences above; bleu-100: mean over the first %lld pairs)\n",
              static_cast<long long>(data.src.rows()), static_cast<long long>(scores.pairs));
}

}  // namespace

bool train_exercise_setting() {
  const CliArgs& args = run_args();
  const std::string& pe = args.get_string("pe");  // 10.6 ex. 2: learned
  const std::string& scoring = args.get_string("scoring");  // 10.7 ex. 2: additive
  const bool summary = args.given("num-layers") || args.given("scoring");  // 10.7 ex. 1 and 2
  if (!summary && pe == "sinusoidal" && !args.get_flag("head-importance") && !args.get_flag("pe-offset")) return false;
  run_book_until_training();  // the section's demos and its training banner
  // The section's settings, but for the number of blocks (--num-layers).
  const int64_t num_hiddens = 32, num_layers = args.get_int("num-layers"), num_heads = 4, ffn_num_hiddens = 64;
  const int64_t ffn_num_input = num_hiddens, key_size = num_hiddens, query_size = num_hiddens, value_size = num_hiddens;
  const int64_t batch_size = 64, num_steps = 10, num_epochs = 200;
  const float dropout = 0.1f, lr = 0.005f;
  const Shape norm_shape{num_hiddens};
  auto [train_iter, src_vocab, tgt_vocab] = load_data_nmt(batch_size, num_steps);
  PositionalEncodingMaker make_pe;  // the book's sinusoids unless --pe learned
  if (pe != "sinusoidal")
    make_pe = [&pe](int64_t h, float p) { return make_positional_encoding(pe, h, p); };
  TransformerEncoder encoder(src_vocab.size(), key_size, query_size, value_size, num_hiddens, norm_shape,
                             ffn_num_input, ffn_num_hiddens, num_heads, num_layers, dropout, false, make_pe);
  TransformerDecoder decoder(tgt_vocab.size(), key_size, query_size, value_size, num_hiddens, norm_shape,
                             ffn_num_input, ffn_num_hiddens, num_heads, num_layers, dropout, make_pe);
  // The learned tables as they start, to measure how far training moves each row.
  const Tensor enc_P0 = encoder.pos_encoding->P.detach(), dec_P0 = decoder.pos_encoding->P.detach();
  decoder.pe_offset = args.get_flag("pe-offset");
  use_scoring(scoring, encoder, decoder);
  EncoderDecoder net(encoder, decoder);
  TrainSeq2SeqOptions options;
  // What a parameter file records (--pe-offset changes prediction only, so not it); the
  // exercises' choices only when not the book's, so the book's files keep their settings.
  options.model_settings = {
      {"num_hiddens", setting_number(num_hiddens)}, {"num_layers", setting_number(num_layers)},
      {"num_heads", setting_number(num_heads)}, {"ffn_num_hiddens", setting_number(ffn_num_hiddens)},
      {"key_size", setting_number(key_size)}, {"query_size", setting_number(query_size)},
      {"value_size", setting_number(value_size)}, {"dropout", setting_number(dropout)},
      {"num_steps", setting_number(num_steps)}};
  if (scoring != "dot") options.model_settings.push_back({"scoring", scoring});
  if (pe != "sinusoidal") options.model_settings.push_back({"pe", pe});
  const auto train_start = std::chrono::steady_clock::now();
  const TrainSeq2SeqResult trained = train_seq2seq(net, train_iter, lr, num_epochs, tgt_vocab, "cpu", options);
  const double train_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - train_start).count();

  const std::vector<std::string> engs{"go .", "i lost .", "he's calm .", "i'm home ."};
  const std::vector<std::string> fras{"va !", "j'ai perdu .", "il est calme .", "je suis chez moi ."};
  std::string translation;
  AttentionWeightSeq dec_attention_weight_seq;
  double bleu4 = 0;  // mean over the four, for the summary
  for (size_t i = 0; i < engs.size(); ++i) {
    std::tie(translation, dec_attention_weight_seq) =
        predict_seq2seq(net, engs[i], src_vocab, tgt_vocab, num_steps, "cpu", true);
    const double b = bleu(translation, fras[i], 2);
    std::printf("%s => %s,  bleu %.3f\n", engs[i].c_str(), translation.c_str(), b);
    bleu4 += b / 4;
  }
  show_last_attention(encoder, engs.back(), translation, dec_attention_weight_seq, num_layers, num_heads, num_steps);
  after_training(net, train_iter);  // --translate, as after the book's model
  if (pe == "learned") show_learned_encoding(encoder, decoder, enc_P0, dec_P0, num_steps, run_out());
  if (summary) print_exercise_summary(args, net, train_iter, trained, train_seconds, bleu4);
  if (args.get_flag("head-importance")) {
    // ----------------------------------------------------------------------------------
    print_banner("练习 / Exercise 10.5.2: head importance, one head masked at a time");
    head_importance(net, encoder, decoder, train_iter, num_heads, args.get_flag("quick") ? 20 : 100,
                    figure_path("head_importance.png"));
  }
  return true;
}

void show_last_attention(const TransformerEncoder& encoder, const std::string& sentence, const std::string& translation,
                         const AttentionWeightSeq& dec_attention_weight_seq, int64_t num_layers, int64_t num_heads,
                         int64_t num_steps) {
  print_banner("注意力权重 / attention weights of the last sentence");
  const Tensor enc_attention_weights =
      reshape(concat(encoder.attention_weights, 0), {num_layers, num_heads, -1, num_steps});
  std::cout << torch_size(enc_attention_weights.shape()) << "\n";
  HeatmapOptions opt;
  opt.xlabel = "Key positions";
  opt.ylabel = "Query positions";
  for (int64_t h = 1; h <= num_heads; ++h) opt.titles.push_back("Head " + std::to_string(h));
  for (int64_t l = 1; l <= num_layers; ++l) opt.row_labels.push_back("Layer " + std::to_string(l));
  opt.figsize = {7.0f, 3.5f};
  opt.xnames = opt.ynames = position_names(sentence, num_steps);
  const std::string encoder_path = figure_path("encoder_self_attention.png");
  write_figure(encoder_path, [&] { show_heatmaps(enc_attention_weights, opt, encoder_path); });
  const Tensor dec_self = decoder_attention_weights(dec_attention_weight_seq.all, 0, num_layers, num_heads, num_steps);
  const Tensor dec_inter = decoder_attention_weights(dec_attention_weight_seq.all, 1, num_layers, num_heads, num_steps);
  std::cout << "(" << torch_size(dec_self.shape()) << ", " << torch_size(dec_inter.shape()) << ")\n";
  const int64_t shown = std::min(static_cast<int64_t>(split(translation).size()) + 1, num_steps);
  opt.xnames = position_names("<bos> " + translation, num_steps);
  opt.ynames = position_names(translation, num_steps);
  const std::string self_path = figure_path("decoder_self_attention.png");
  write_figure(self_path, [&] { show_heatmaps(slice(dec_self, 3, 0, shown), opt, self_path); });
  opt.xnames = position_names(sentence, num_steps);
  const std::string inter_path = figure_path("decoder_encoder_attention.png");
  write_figure(inter_path, [&] { show_heatmaps(dec_inter, opt, inter_path); });
}
