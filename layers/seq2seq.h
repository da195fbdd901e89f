// layers/seq2seq.h — 9.7 序列到序列学习（seq2seq） / Sequence to Sequence Learning
// (sec_seq2seq): the GRU encoder, the decoder without attention, and the masked loss.
//
// Token ids travel as float tensors holding whole numbers (the engine has one dtype); the
// embedding and the loss check that each is a valid id.
#pragma once
#include <cstdint>
#include <utility>

#include "core/nn/basic.h"
#include "layers/encoder_decoder.h"
#include "layers/gru.h"

namespace d2l {

// Seq2SeqEncoder(vocab_size, embed_size, num_hiddens, num_layers, dropout): an embedding
// and a multi-layer GRU started from zeros.
//   X (batch_size, num_steps) token ids  ->  {output (num_steps, batch_size, num_hiddens),
//                                             state  (num_layers, batch_size, num_hiddens)}
// valid_lens is not used (the book's encoder reads the padding too).
class Seq2SeqEncoder : public Layer<Seq2SeqEncoder, Encoder> {
 public:
  static constexpr const char* section = "9.7 Seq2SeqEncoder";
  Seq2SeqEncoder(int64_t vocab_size, int64_t embed_size, int64_t num_hiddens, int64_t num_layers,
                 float dropout = 0.0f);
  EncoderOutputs forward(const Tensor& X, const Tensor& valid_lens) override;

  Embedding& embedding;
  GRU& rnn;
};

// Seq2SeqDecoder (sec_seq2seq_decoder): the encoder's final state starts the decoder, and
// its last layer, the context c, is appended to every step's embedding:
// GRU input = concat(embedding, context) (in that order, as the book).
//   init_state(enc_outputs) -> {state (num_layers, batch_size, num_hiddens)}
//   forward(X (batch_size, num_steps), state) -> output (batch_size, num_steps, vocab_size)
// As in the book, the context is the last layer of the state passed in, so in greedy
// prediction (one step per call) it follows the decoder's own state, not the encoder's.
class Seq2SeqDecoder : public Layer<Seq2SeqDecoder, Decoder> {
 public:
  static constexpr const char* section = "9.7 Seq2SeqDecoder";
  Seq2SeqDecoder(int64_t vocab_size, int64_t embed_size, int64_t num_hiddens, int64_t num_layers,
                 float dropout = 0.0f);
  DecoderState init_state(const EncoderOutputs& enc_outputs, const Tensor& enc_valid_lens = Tensor()) override;
  std::pair<Tensor, DecoderState> forward(const Tensor& X, const DecoderState& state) override;

  Embedding& embedding;
  GRU& rnn;
  Linear& dense;
};

// MaskedSoftmaxCELoss: the book's per-sequence loss
//   pred (batch_size, num_steps, vocab_size) logits, label (batch_size, num_steps) ids,
//   valid_len (batch_size,)  ->  (batch_size,)
// cross-entropy of every token, times 1 for the first valid_len positions and 0 for the
// padding, then the MEAN over num_steps (not over the valid tokens): a sequence with
// valid_len 2 of 4 scores half of one with 4. train_seq2seq backpropagates the sum.
class MaskedSoftmaxCELoss {
 public:
  Tensor forward(const Tensor& pred, const Tensor& label, const Tensor& valid_len) const;
  Tensor operator()(const Tensor& pred, const Tensor& label, const Tensor& valid_len) const {
    return forward(pred, label, valid_len);
  }
};

}  // namespace d2l
