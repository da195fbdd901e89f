// layers/encoder_decoder.cpp — 9.6 编码器-解码器架构 / Encoder-Decoder Architecture
// (sec_encoder-decoder): EncoderDecoder wires the two halves together.
#include "layers/encoder_decoder.h"


namespace d2l {

EncoderDecoder::EncoderDecoder(Encoder& encoder_, Decoder& decoder_) : encoder(encoder_), decoder(decoder_) {
  register_module("encoder", encoder);
  register_module("decoder", decoder);
}

// The book's forward: enc_outputs = encoder(enc_X, *args); dec_state =
// decoder.init_state(enc_outputs, *args); return decoder(dec_X, dec_state).
std::pair<Tensor, DecoderState> EncoderDecoder::forward(const Tensor& enc_X, const Tensor& dec_X,
                                                        const Tensor& valid_lens) {
  const EncoderOutputs enc_outputs = encoder(enc_X, valid_lens);
  const DecoderState dec_state = decoder.init_state(enc_outputs, valid_lens);
  return decoder(dec_X, dec_state);
}

}  // namespace d2l
