// tools/d2l/train/seq2seq_training.cpp — 9.7 (sec_seq2seq_training): one epoch of train_seq2seq
// (seq2seq_training.h).
#include "tools/d2l/train/seq2seq_training.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/autograd.h"
#include "core/ops.h"
#include "tools/d2l/train/ids_tensor.h"

namespace d2l {
namespace {

// D2L_EPOCH_LOSS: read once; any value but "0" switches the per-epoch line on.
bool print_epoch_loss() {
  static const bool on = [] {
    const char* v = std::getenv("D2L_EPOCH_LOSS");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  return on;
}

// Training without teacher forcing (9.7 ex. 4): from <bos>, each step's input is the
// previous step's most likely token, so the decoder runs one step per call, as in
// prediction. bos (batch_size, 1) -> Y_hat (batch_size, num_steps, vocab_size).
Tensor decode_own_predictions(EncoderDecoder& net, const Tensor& X, const Tensor& X_valid_len, const Tensor& bos,
                              int64_t num_steps) {
  DecoderState state = net.decoder.init_state(net.encoder(X, X_valid_len), X_valid_len);
  Tensor dec_X = bos;
  std::vector<Tensor> steps;
  for (int64_t t = 0; t < num_steps; ++t) {
    auto [Y, next] = net.decoder(dec_X, state);  // (batch_size, 1, vocab_size)
    state = std::move(next);
    steps.push_back(Y);
    dec_X = argmax(Y, 2);  // (batch_size, 1); argmax passes no gradient
  }
  return concat(steps, 1);
}

}  // namespace

Seq2SeqTraining::Seq2SeqTraining(EncoderDecoder& net, const NmtData& data, float lr, const Vocab& tgt_vocab,
                                 bool loss_mask, bool teacher_forcing)
    : net_(net),
      data_(data),
      params_(net.parameters()),
      optimizer_(params_, lr),
      bos_id_(tgt_vocab["<bos>"]),
      loss_mask_(loss_mask),
      teacher_forcing_(teacher_forcing) {}

Seq2SeqEpoch Seq2SeqTraining::train_epoch() {
  net_.train();
  const auto start = std::chrono::steady_clock::now();  // the book's per-epoch d2l.Timer()
  double loss_sum = 0, num_tokens = 0;                   // the book's Accumulator(2)
  for (const NmtBatch& batch : data_.epoch_batches()) {
    optimizer_.zero_grad();
    const int64_t B = batch.batch_size, T = batch.num_steps;
    const Tensor X = ids_tensor(batch.X, {B, T}), Y = ids_tensor(batch.Y, {B, T});
    const Tensor X_valid_len = ids_tensor(batch.X_valid_len, {B});
    const Tensor Y_valid_len = ids_tensor(batch.Y_valid_len, {B});
    const Tensor bos = reshape(full({B}, static_cast<float>(bos_id_)), {-1, 1});
    Tensor Y_hat;
    if (teacher_forcing_) {
      // Teacher forcing: the decoder reads <bos>, then the target without its last token.
      const Tensor dec_input = concat({bos, slice(Y, 1, 0, T - 1)}, 1);
      Y_hat = net_(X, dec_input, X_valid_len).first;
    } else {
      Y_hat = decode_own_predictions(net_, X, X_valid_len, bos, T);
    }
    // Without the mask every position counts: valid_len = num_steps for each sequence.
    const Tensor l = loss_(Y_hat, Y, loss_mask_ ? Y_valid_len : full({B}, static_cast<float>(T)));
    sum(l).backward();  // the book: l.sum().backward()
    clip_grad_norm(params_, 1.0f);  // d2l.grad_clipping(net, 1)
    optimizer_.step();
    for (int64_t b = 0; b < B; ++b) {
      loss_sum += l.data()[b];
      num_tokens += static_cast<double>(batch.Y_valid_len[b]);
    }
  }
  // The book stops its timer at the final print, so its last epoch also times the
  // Animator's redraw; we time the training alone, as our PyTorch script does.
  Seq2SeqEpoch e;
  e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  e.epoch = ++epoch_;
  e.loss = loss_sum / num_tokens;
  e.num_tokens = num_tokens;
  if (print_epoch_loss()) {
    std::printf("[epoch] %lld loss %.17g\n", static_cast<long long>(e.epoch), e.loss);
    std::fflush(stdout);
  }
  return e;
}

}  // namespace d2l
