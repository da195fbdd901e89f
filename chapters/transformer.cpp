// chapters/transformer.cpp — 10.7 Transformer (sec_transformer).
//
// Prints, in the book's order and format (shapes as torch.Size([...]), tensors as PyTorch
// prints them): the position-wise FFN demo, layer norm vs batch norm, the
// shapes of AddNorm, EncoderBlock, TransformerEncoder and DecoderBlock; then trains the
// book's 2-layer, 4-head Transformer on fra-eng (200 epochs), prints the loss line, the
// four translations with BLEU and the attention-weight shapes, and writes
//   out/transformer/loss.png                 the training curve
//   out/transformer/encoder_self_attention.png, decoder_self_attention.png,
//   out/transformer/decoder_encoder_attention.png   2×4 grids, one heatmap per layer and head,
//                                                   each row labelled with its layer
// Data: --data, else data/fra-eng/fra.txt (make data), else chapters/data/fra-eng-small.txt.
// --save FILE / --load FILE / --resume FILE as in 10.4 (tools/d2l/cli/training_options.h): the
// file records the model's settings and vocabularies, Adam's state and the generator; a
// FILE ending in .safetensors holds the parameters under the book's state_dict() names with
// the settings and vocabularies, for PyTorch (tools/scripts/crossover_torch.py).
// Run time: a few minutes on two cores (--quick: seconds). Everything after the shape
// demos depends on the random init, so numbers differ from the book's in the last digits.
//
// The exercises (10.7's, and 10.5 ex. 2 and 10.6 ex. 2, which need this model) are options
// of this program declared in chapters/exercises/transformer.cpp; --list-exercises lists them.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "chapters/exercises/transformer.h"
#include "core/autograd.h"
#include "core/ops.h"
#include "layers/exercises/multihead_attention.h"
#include "layers/transformer.h"
#include "tools/d2l/cli/chapter.h"
#include "tools/d2l/cli/training_options.h"
#include "tools/d2l/data/bleu.h"
#include "tools/d2l/data/nmt_data.h"
#include "tools/d2l/figures/figures.h"
#include "tools/d2l/figures/token_names.h"
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

}  // namespace

int main(int argc, char** argv) {
  CliArgs args("transformer", "10.7 Transformer (sec_transformer): the book's demos, then training on English-French "
                              "and translation.");
  const Seq2SeqOptions seq2seq(args, 200, 20);
  args.add_flag("pe-offset", "in prediction add the true position's encoding, not position 0 (the book's quirk)");
  return run_chapter(args, argc, argv, [&](const std::string& out) {
    const std::string& pe = args.get_string("pe");  // 10.6 ex. 2: learned
    const std::string& scoring = args.get_string("scoring");  // 10.7 ex. 2: additive
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
    use_scoring(scoring, encoder, decoder);  // 10.7 ex. 2
    EncoderDecoder net(encoder, decoder);
    // What a parameter file must match to be loaded here (--pe-offset changes prediction
    // only, so it is not among them), and what a resumed run must match.
    ModelSettings hyper = {
        {"num_hiddens", setting_number(num_hiddens)}, {"num_layers", setting_number(num_layers)},
        {"num_heads", setting_number(num_heads)}, {"ffn_num_hiddens", setting_number(ffn_num_hiddens)},
        {"key_size", setting_number(key_size)}, {"query_size", setting_number(query_size)},
        {"value_size", setting_number(value_size)}, {"dropout", setting_number(dropout)},
        {"num_steps", setting_number(num_steps)}};
    // Recorded only when not the book's, so the default run's files stay as they were.
    if (scoring != "dot") hyper.push_back({"scoring", scoring});
    if (pe != "sinusoidal") hyper.push_back({"pe", pe});
    Checkpoint checkpoint = seq2seq.checkpoint(
        "transformer", hyper, data, {{"batch_size", setting_number(batch_size)}, {"lr", setting_number(lr)}});
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
    // Each row is one layer, as the book's text says; labelled so that the rows of a deeper
    // model (--num-layers 4) can be told apart.
    for (int64_t l = 1; l <= num_layers; ++l) opt.row_labels.push_back("Layer " + std::to_string(l));
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

    if (args.given("num-layers") || args.given("scoring"))  // 10.7 ex. 1 and 2
      print_exercise_summary(args, net, data, trained, train_seconds, bleu4);
    if (args.get_flag("head-importance")) {
      // ----------------------------------------------------------------------------------
      print_banner("练习 / Exercise 10.5.2: head importance, one head masked at a time");
      head_importance(net, encoder, decoder, data, num_heads, args.get_flag("quick") ? 20 : 100,
                      out + "/head_importance.png");
    }
  }, ChapterDefaults{/*threads=*/1});  // small matrices: see tools/d2l/cli/cli_args.h
}
