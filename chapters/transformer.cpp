// chapters/transformer.cpp — 10.7 Transformer (sec_transformer).
//
// Prints, in the book's order and format (shapes as torch.Size([...]), tensors as PyTorch
// prints them): the position-wise FFN demo, layer norm vs batch norm, the
// shapes of AddNorm, EncoderBlock, TransformerEncoder and DecoderBlock; then trains the
// book's 2-layer, 4-head Transformer on fra-eng (200 epochs), prints the loss line, the
// four translations with BLEU and the attention-weight shapes, and writes
//   out/transformer/loss.png                 the training curve
//   out/transformer/encoder_self_attention.png, decoder_self_attention.png,
//   out/transformer/decoder_encoder_attention.png   2×4 grids, one heatmap per layer and head
// Data: --data, else data/fra-eng/fra.txt (make data), else chapters/data/fra-eng-small.txt.
// --save FILE / --load FILE / --resume FILE as in 10.4 (tools/d2l/cli/seq2seq_options.h): the
// file records the model's settings and vocabularies, Adam's state and the generator; a
// FILE ending in .safetensors holds the parameters under the book's state_dict() names with
// the settings and vocabularies, for PyTorch (tools/scripts/crossover_torch.py).
// Run time: a few minutes on two cores (--quick: seconds). Everything after the shape
// demos depends on the random init, so numbers differ from the book's in the last digits.
//
// The exercises:
//   --num-layers N          10.7 ex. 1: N encoder and N decoder blocks (the book: 2)
//   --scoring additive      10.7 ex. 2: additive attention in every head in place of scaled
//                           dot product
// With either, the program closes with one summary line (parameters, training seconds,
// loss, masked loss over all pairs, BLEU over the four sentences and the first 100 pairs,
// tokens/sec); run it once per setting to compare.
//   --ex head-importance    10.5 ex. 2: after training, each head of each attention (encoder
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
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/autograd.h"
#include "core/ops.h"
#include "layers/exercises/multihead_attention.h"
#include "layers/transformer.h"
#include "tools/d2l/figures/token_names.h"
#include "tools/d2l/cli/cli_args.h"
#include "tools/d2l/cli/seq2seq_options.h"
#include "tools/d2l/data/bleu.h"
#include "tools/d2l/data/nmt_data.h"
#include "tools/d2l/figures/animator.h"
#include "tools/d2l/figures/figures.h"
#include "tools/d2l/data/vocab_tokens.h"
#include "tools/d2l/train/checkpoint.h"
#include "tools/d2l/train/train_seq2seq.h"

using namespace d2l;

namespace {

// The book's decoder heatmap prep: per step and block, the self-attention of head h has
// step+1 keys; missing keys are filled with 0 (pandas fillna(0.0)), giving
// (num_layers, num_heads, no. of steps, num_steps). `which` 0: self, 1: encoder–decoder.
Tensor decoder_weights(const std::vector<std::vector<Tensor>>& seq, int which, int64_t num_layers, int64_t num_heads,
                       int64_t num_steps) {
  const int64_t S = static_cast<int64_t>(seq.size());
  Tensor W = zeros({num_layers, num_heads, S, num_steps});
  for (int64_t s = 0; s < S; ++s)
    for (int64_t l = 0; l < num_layers; ++l) {
      const Tensor& w = seq[s].at(which * num_layers + l);  // (num_heads, 1, no. of keys)
      const int64_t keys = std::min(w.size(2), num_steps);
      for (int64_t h = 0; h < num_heads; ++h)
        for (int64_t k = 0; k < keys; ++k) W.at({l, h, s, k}) = w.at({h, 0, k});
    }
  return W;
}

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
        const HeadMask mask(mha, factors);  // head h removed while `mask` lives
        const Seq2SeqScores masked = evaluate_seq2seq(net, data, bleu_pairs);
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
}

}  // namespace

int main(int argc, char** argv) {
  CliArgs args("transformer", "10.7 Transformer (sec_transformer): the book's demos, then training on English-French "
                              "and translation.");
  const Seq2SeqOptions seq2seq(args, 200, 20);
  args.add_flag("pe-offset", "in prediction add the true position's encoding, not position 0 (the book's quirk)");
  args.add_int("num-layers", 2, "10.7 ex. 1: encoder and decoder blocks (the book: 2)", 1, 64);
  args.add_string("scoring", "dot", "10.7 ex. 2: the heads' scoring, dot (scaled dot-product, the book) or additive",
                  "FN");
  args.add_string("ex", "", "head-importance: 10.5 ex. 2, mask one head at a time after training", "NAME");
  args.add_string("pe", "sinusoidal",
                  "positional encoding: sinusoidal (the book's) or learned (10.6's exercise 2: a trained table, "
                  "drawn beside the sinusoidal one in positional_encoding.png)",
                  "KIND");
  add_chapter_options(args, "out/transformer", /*seed=*/0, /*threads=*/1);  // small matrices: see cli_args.h
  args.parse_or_exit(argc, argv);
  const std::string pe = args.get_string("pe");
  if (pe != "sinusoidal" && pe != "learned") {
    std::fprintf(stderr, "error: [--pe] expects sinusoidal or learned, got '%s' (see --help)\n", pe.c_str());
    return 2;
  }
  const std::string scoring = args.get_string("scoring");
  if (scoring != "dot" && scoring != "additive") {
    std::fprintf(stderr, "error: [--scoring] expects dot or additive, got '%s' (see --help)\n", scoring.c_str());
    return 2;
  }
  const std::string ex = args.get_string("ex");
  if (!ex.empty() && ex != "head-importance") {
    std::fprintf(stderr, "error: [--ex] expects head-importance, got '%s' (see --help)\n", ex.c_str());
    return 2;
  }
  return run_reporting_errors([&] {
    const std::string out = apply_chapter_options(args);

    // ------------------------------------------------------------------------------------
    print_banner("基于位置的前馈网络 / positionwise feed-forward network");
    PositionWiseFFN ffn(4, 4, 8);
    ffn.eval();
    std::cout << select(ffn(ones({2, 3, 4})), 0, 0) << "\n";

    // ------------------------------------------------------------------------------------
    print_banner("残差连接和层规范化 / residual connection and layer normalization");
    LayerNorm ln(2);
    const Tensor X2 = tensor({{1, 2}, {2, 3}});
    // nn.BatchNorm1d(2) in training mode normalises each column with the batch's own
    // mean and (biased) variance: the same formula as layer_norm, over dim 0 instead.
    const Tensor centred = X2 - mean(X2, 0, true);
    const Tensor bn = centred / sqrt(mean(centred * centred, 0, true) + 1e-5f);
    // print('layer norm:', ln(X), '\nbatch norm:', bn(X)): print's separator leaves a space at
    // the end of the first line, before the '\n' that starts the second argument.
    std::cout << "layer norm: " << ln(X2) << " \nbatch norm: " << bn << "\n";
    AddNorm add_norm({3, 4}, 0.5f);
    add_norm.eval();
    std::cout << torch_size(add_norm(ones({2, 3, 4}), ones({2, 3, 4})).shape()) << "\n";

    // ------------------------------------------------------------------------------------
    print_banner("编码器 / encoder");
    const Tensor X = ones({2, 100, 24}), valid_lens = tensor({3, 2});
    EncoderBlock encoder_blk(24, 24, 24, 24, {100, 24}, 24, 48, 8, 0.5f);
    encoder_blk.eval();
    std::cout << torch_size(encoder_blk(X, valid_lens).shape()) << "\n";
    TransformerEncoder demo_encoder(200, 24, 24, 24, 24, {100, 24}, 24, 48, 8, 2, 0.5f);
    demo_encoder.eval();
    std::cout << torch_size(demo_encoder(ones({2, 100}), valid_lens)[0].shape()) << "\n";

    // ------------------------------------------------------------------------------------
    print_banner("解码器 / decoder");
    DecoderBlock decoder_blk(24, 24, 24, 24, {100, 24}, 24, 48, 8, 0.5f, 0);
    decoder_blk.eval();
    DecoderState demo_state{encoder_blk(X, valid_lens), valid_lens, Tensor()};
    std::cout << torch_size(decoder_blk.forward(X, demo_state).shape()) << "\n";

    // ------------------------------------------------------------------------------------
    print_banner("训练 / training");
    const int64_t num_hiddens = 32, num_layers = args.get_int("num-layers"), batch_size = 64, num_steps = 10;
    const float dropout = 0.1f, lr = 0.005f;
    const int64_t ffn_num_input = 32, ffn_num_hiddens = 64, num_heads = 4;
    const int64_t key_size = 32, query_size = 32, value_size = 32;
    const Shape norm_shape{32};
    const DataSource source = resolve_nmt_data(seq2seq.data());
    std::cout << "using data: " << source.description << "\n";
    // --save is none of the files this program reads or writes (refused before the training).
    std::vector<std::pair<std::string, std::string>> files{{"--data", source.path}};
    for (const char* figure : {"loss.png", "encoder_self_attention.png", "decoder_self_attention.png",
                               "decoder_encoder_attention.png", "positional_encoding.png", "head_importance.png"})
      files.emplace_back(std::string("the figure ") + figure, out + "/" + figure);
    refuse_save_over(args, files);
    const NmtData data = load_data_nmt(batch_size, num_steps, 600, source.path);
    TransformerEncoder encoder(data.src_vocab.size(), key_size, query_size, value_size, num_hiddens, norm_shape,
                               ffn_num_input, ffn_num_hiddens, num_heads, num_layers, dropout, false, pe);
    TransformerDecoder decoder(data.tgt_vocab.size(), key_size, query_size, value_size, num_hiddens, norm_shape,
                               ffn_num_input, ffn_num_hiddens, num_heads, num_layers, dropout, pe);
    // The learned tables as they start, to measure how far training moves each row.
    const Tensor enc_P0 = encoder.pos_encoding->P.detach(), dec_P0 = decoder.pos_encoding->P.detach();
    decoder.pe_offset = args.get_flag("pe-offset");
    if (scoring == "additive")
      for (const auto& group : attention_groups(encoder, decoder))
        for (MultiHeadAttention* mha : group) use_additive_scoring(*mha);
    EncoderDecoder net(encoder, decoder);
    // What a parameter file must match to be loaded here (--pe-offset changes prediction
    // only, so it is not among them), and what a resumed run must match.
    ModelSettings model_settings = {
        {"model", "transformer"}, {"num_hiddens", setting_number(num_hiddens)},
        {"num_layers", setting_number(num_layers)}, {"num_heads", setting_number(num_heads)},
        {"ffn_num_hiddens", setting_number(ffn_num_hiddens)}, {"key_size", setting_number(key_size)},
        {"query_size", setting_number(query_size)}, {"value_size", setting_number(value_size)},
        {"dropout", setting_number(dropout)}, {"num_steps", setting_number(num_steps)},
        {"src_vocab", vocab_fingerprint(data.src_vocab)}, {"tgt_vocab", vocab_fingerprint(data.tgt_vocab)}};
    if (scoring != "dot") model_settings.push_back({"scoring", scoring});
    // Recorded only when not the book's, so the default run's files stay as they were.
    if (pe != "sinusoidal") model_settings.push_back({"pe", pe});
    Checkpoint checkpoint =
        seq2seq.checkpoint(model_settings, {{"batch_size", setting_number(batch_size)}, {"lr", setting_number(lr)}});
    checkpoint.set_safetensors_metadata({{"src_vocab.tokens", vocab_tokens_json(data.src_vocab)},
                                         {"tgt_vocab.tokens", vocab_tokens_json(data.tgt_vocab)}});
    TrainSeq2SeqResult trained;
    const auto train_start = std::chrono::steady_clock::now();
    seq2seq.train_or_load(net, checkpoint, [&](int64_t num_epochs) {
      trained = train_seq2seq(net, data, lr, num_epochs, data.tgt_vocab, "cpu", {out + "/loss.png", true, &checkpoint});
    });
    const double train_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - train_start).count();

    std::vector<std::string> engs = {"go .", "i lost .", "he's calm .", "i'm home ."};
    std::vector<std::string> fras = {"va !", "j'ai perdu .", "il est calme .", "je suis chez moi ."};
    if (!seq2seq.translate().empty()) {
      engs.push_back(seq2seq.translate());
      fras.push_back("");
    }
    std::string translation;
    std::vector<std::vector<Tensor>> dec_attention_weight_seq;
    double bleu4 = 0;  // mean over the book's four, for the exercises' summary
    for (size_t i = 0; i < engs.size(); ++i) {
      auto result = predict_seq2seq_steps(net, engs[i], data.src_vocab, data.tgt_vocab, num_steps, "cpu", true);
      translation = result.first;
      dec_attention_weight_seq = result.second;
      if (fras[i].empty()) {
        std::printf("%s => %s\n", engs[i].c_str(), translation.c_str());
        continue;
      }
      // print(f'{eng} => {translation}, ', f'bleu ...'): print's separator adds a second space.
      const double b = bleu(translation, fras[i], 2);
      std::printf("%s => %s,  bleu %.3f\n", engs[i].c_str(), translation.c_str(), b);
      bleu4 += b / 4;
    }

    // ------------------------------------------------------------------------------------
    print_banner("注意力权重 / attention weights of the last sentence");
    const Tensor enc_attention_weights = reshape(concat(encoder.attention_weights, 0), {num_layers, num_heads, -1, num_steps});
    std::cout << torch_size(enc_attention_weights.shape()) << "\n";
    HeatmapOptions opt;
    opt.xlabel = "Key positions";
    opt.ylabel = "Query positions";
    opt.titles = {"Head 1", "Head 2", "Head 3", "Head 4"};
    opt.figsize = {7.0f, 3.5f};
    // The SVG's cell tooltips name the tokens: the source's, then the ones the decoder read
    // (<bos> first) and predicted.
    const auto source_tokens = position_names(engs.back(), num_steps);
    const auto predicted = position_names(translation, num_steps);
    opt.xnames = opt.ynames = source_tokens;
    write_figure(out + "/encoder_self_attention.png",
                 [&] { show_heatmaps(enc_attention_weights, opt, out + "/encoder_self_attention.png"); });
    const Tensor dec_self = decoder_weights(dec_attention_weight_seq, 0, num_layers, num_heads, num_steps);
    const Tensor dec_inter = decoder_weights(dec_attention_weight_seq, 1, num_layers, num_heads, num_steps);
    std::cout << "(" << torch_size(dec_self.shape()) << ", " << torch_size(dec_inter.shape()) << ")\n";
    // The book cuts the keys to the translation's length + 1 (<bos> plus its tokens).
    int64_t words = 1;
    for (char c : translation) words += c == ' ';
    const int64_t shown = std::min<int64_t>(translation.empty() ? 1 : words + 1, num_steps);
    opt.xnames = position_names("<bos> " + translation, num_steps);
    opt.ynames = predicted;
    write_figure(out + "/decoder_self_attention.png",
                 [&] { show_heatmaps(slice(dec_self, 3, 0, shown), opt, out + "/decoder_self_attention.png"); });
    opt.xnames = source_tokens;
    write_figure(out + "/decoder_encoder_attention.png",
                 [&] { show_heatmaps(dec_inter, opt, out + "/decoder_encoder_attention.png"); });
    if (pe == "learned") show_learned_encoding(encoder, decoder, enc_P0, dec_P0, num_steps, out);

    if (args.given("num-layers") || args.given("scoring")) {
      // ----------------------------------------------------------------------------------
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
    if (ex == "head-importance") {
      // ----------------------------------------------------------------------------------
      print_banner("练习 / Exercise 10.5.2: head importance, one head masked at a time");
      head_importance(net, encoder, decoder, data, num_heads, args.get_flag("quick") ? 20 : 100,
                      out + "/head_importance.png");
    }
    return 0;
  });
}
