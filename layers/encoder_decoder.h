// layers/encoder_decoder.h — 9.6 编码器-解码器架构 / Encoder-Decoder Architecture
// (sec_encoder-decoder). 10.4 adds AttentionDecoder (layers/bahdanau_attention.h).
//
// The book's interfaces: an Encoder turns a variable-length input into an encoded state, a
// Decoder's init_state turns that into its starting state, and Decoder::forward consumes
// tokens and state and returns outputs and the next state. Python passes `*args` and lists
// of whatever each model needs; here the encoder's outputs and every decoder state are a
// list of tensors, laid out as the book's lists are, e.g. Seq2SeqAttentionDecoder's state
// is {enc_outputs, hidden_state, enc_valid_lens}, so `len(state)` and `state[0].shape`
// read the same.
#pragma once
#include <utility>
#include <vector>

#include "core/nn/layer.h"
#include "core/tensor.h"

namespace d2l {

// What an encoder returns and what a decoder carries from step to step.
using EncoderOutputs = std::vector<Tensor>;
using DecoderState = std::vector<Tensor>;

// d2l.Encoder: X (batch_size, num_steps) token ids; valid_lens (batch_size,) or undefined.
// Called through this base (EncoderDecoder holds an Encoder&), so the call opens the layer's
// section here; a concrete encoder derives from Layer<itself, Encoder> (core/nn/layer.h).
class Encoder : public Module {
 public:
  virtual EncoderOutputs forward(const Tensor& X, const Tensor& valid_lens) = 0;
  EncoderOutputs operator()(const Tensor& X, const Tensor& valid_lens = Tensor()) {
    SectionScope scope(section_name());
    return forward(X, valid_lens);
  }
  virtual const char* section_name() const = 0;
};

// d2l.Decoder: init_state(enc_outputs, enc_valid_lens), then forward(X, state) ->
// (output, next state) with X (batch_size, num_steps) token ids.
class Decoder : public Module {
 public:
  virtual DecoderState init_state(const EncoderOutputs& enc_outputs, const Tensor& enc_valid_lens) = 0;
  virtual std::pair<Tensor, DecoderState> forward(const Tensor& X, const DecoderState& state) = 0;
  std::pair<Tensor, DecoderState> operator()(const Tensor& X, const DecoderState& state) {
    SectionScope scope(section_name());
    return forward(X, state);
  }
  virtual const char* section_name() const = 0;
};

// d2l.EncoderDecoder: runs encoder, init_state, decoder. It refers to the two modules (the
// chapter owns them, as the book's `net = d2l.EncoderDecoder(encoder, decoder)` keeps the
// objects it was given) and registers them as children "encoder" and "decoder", so
// named_parameters(), train()/eval(), save() and load() cover both.
class EncoderDecoder : public Layer<EncoderDecoder> {
 public:
  static constexpr const char* section = "9.6 EncoderDecoder";
  EncoderDecoder(Encoder& encoder, Decoder& decoder);
  // enc_X (batch_size, num_steps) source ids, dec_X (batch_size, num_steps) decoder input
  // ids, valid_lens (batch_size,) source lengths or undefined -> the decoder's (output,
  // state); output (batch_size, num_steps, vocab_size) for the book's decoders.
  std::pair<Tensor, DecoderState> forward(const Tensor& enc_X, const Tensor& dec_X,
                                          const Tensor& valid_lens = Tensor());

  Encoder& encoder;
  Decoder& decoder;
};

}  // namespace d2l
