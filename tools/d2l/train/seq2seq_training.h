// tools/d2l/train/seq2seq_training.h — 9.7 序列到序列学习（seq2seq） / Sequence to Sequence
// Learning (sec_seq2seq_training): one epoch of the book's train_seq2seq at a time.
//
// train_seq2seq (train_seq2seq.h) runs its epochs through this class, and so does the
// companion page that trains 10.4's model while the reader watches (tools/browser/training.cpp):
// one training loop, stepped by whoever holds it.
//
//   xavier_init_weights(net);                        // as train_seq2seq starts
//   Seq2SeqTraining training(net, data, lr, tgt_vocab);
//   for (int e = 0; e < num_epochs; ++e) training.train_epoch().loss;
//
// D2L_EPOCH_LOSS=1 (any value but "0") prints every epoch's loss as it ends,
//   [epoch] 3 loss 4.62851381301879883
// the double to 17 significant digits, so two runs (tiers, builds, the page) compare exactly.
#pragma once
#include <cstdint>

#include "core/nn/optim.h"
#include "layers/encoder_decoder.h"
#include "layers/seq2seq.h"
#include "tools/d2l/data/nmt_data.h"
#include "tools/d2l/data/vocab.h"

namespace d2l {

// What one epoch did: the book's Accumulator(2) and its d2l.Timer().
struct Seq2SeqEpoch {
  int64_t epoch = 0;      // 1-based: the epochs trained so far, this one included
  double loss = 0;        // Σ per-sequence loss / Σ valid target tokens
  double num_tokens = 0;  // Σ valid target tokens
  double seconds = 0;     // the epoch's wall time
};

class Seq2SeqTraining {
 public:
  // Adam(lr) over net's parameters; the book's MaskedSoftmaxCELoss. loss_mask = false and
  // teacher_forcing = false are 9.7's exercises 2 and 4 (TrainSeq2SeqOptions says what they
  // change). net, data and tgt_vocab must outlive this object.
  Seq2SeqTraining(EncoderDecoder& net, const NmtData& data, float lr, const Vocab& tgt_vocab, bool loss_mask = true,
                  bool teacher_forcing = true);

  // One pass over a fresh shuffle of the pairs, in batches: for each, the forward with teacher
  // forcing (the decoder reads <bos>, then the target without its last token), the loss summed
  // over the batch, backward, global-norm clipping at 1, Adam's step. Puts net in training
  // mode first (a prediction between epochs leaves it in eval mode; predicting draws no random
  // numbers, so the next epoch is the one an uninterrupted run trains).
  Seq2SeqEpoch train_epoch();

  Adam& optimizer() { return optimizer_; }
  int64_t epoch() const { return epoch_; }  // epochs trained so far
  void set_epoch(int64_t done) { epoch_ = done; }  // a resumed run: the checkpoint's epoch

 private:
  EncoderDecoder& net_;
  const NmtData& data_;
  std::vector<Tensor> params_;
  Adam optimizer_;
  MaskedSoftmaxCELoss loss_;
  int64_t bos_id_;
  bool loss_mask_, teacher_forcing_;
  int64_t epoch_ = 0;
};

}  // namespace d2l
