// layers/transformer.cpp — 10.7 Transformer (sec_transformer).
#include "layers/transformer.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/ops.h"

namespace d2l {

namespace {
std::unique_ptr<PositionalEncodingBase> positional_encoding(const PositionalEncodingMaker& make_pe, int64_t num_hiddens,
                                                            float dropout) {
  if (make_pe) return make_pe(num_hiddens, dropout);
  return std::make_unique<PositionalEncoding>(num_hiddens, dropout);
}
}  // namespace

PositionWiseFFN::PositionWiseFFN(int64_t ffn_num_input, int64_t ffn_num_hiddens, int64_t ffn_num_outputs)
    : dense1(add_module<Linear>("dense1", ffn_num_input, ffn_num_hiddens)),
      relu(add_module<ReLU>("relu")),
      dense2(add_module<Linear>("dense2", ffn_num_hiddens, ffn_num_outputs)) {}

Tensor PositionWiseFFN::forward(const Tensor& X) const {
  return dense2(relu(dense1(X)));  // relu: the ReLU child, as the book's self.relu
}

AddNorm::AddNorm(const Shape& normalized_shape, float dropout)
    : dropout(add_module<Dropout>("dropout", dropout)), ln(add_module<LayerNorm>("ln", normalized_shape)) {}

Tensor AddNorm::forward(const Tensor& X, const Tensor& Y) const {
  check(X.shape() == Y.shape(), "AddNorm", "X ", X.shape(), " and Y ", Y.shape(), " must have the same shape");
  return ln(dropout(Y) + X);
}

EncoderBlock::EncoderBlock(int64_t key_size, int64_t query_size, int64_t value_size, int64_t num_hiddens,
                           Shape norm_shape, int64_t ffn_num_input, int64_t ffn_num_hiddens, int64_t num_heads,
                           float dropout, bool use_bias)
    : attention(add_module<MultiHeadAttention>("attention", key_size, query_size, value_size, num_hiddens, num_heads,
                                               dropout, use_bias)),
      addnorm1(add_module<AddNorm>("addnorm1", norm_shape, dropout)),
      ffn(add_module<PositionWiseFFN>("ffn", ffn_num_input, ffn_num_hiddens, num_hiddens)),
      addnorm2(add_module<AddNorm>("addnorm2", norm_shape, dropout)) {}

Tensor EncoderBlock::forward(const Tensor& X, const Tensor& valid_lens) {
  const Tensor Y = addnorm1(X, attention(X, X, X, valid_lens));
  return addnorm2(Y, ffn(Y));
}

TransformerEncoder::TransformerEncoder(int64_t vocab_size, int64_t key_size, int64_t query_size, int64_t value_size,
                                       int64_t num_hiddens_, Shape norm_shape, int64_t ffn_num_input,
                                       int64_t ffn_num_hiddens, int64_t num_heads, int64_t num_layers, float dropout,
                                       bool use_bias, const PositionalEncodingMaker& make_pe)
    : num_hiddens(num_hiddens_),
      embedding(add_module<Embedding>("embedding", vocab_size, num_hiddens_)),
      pos_encoding(&add_module("pos_encoding", positional_encoding(make_pe, num_hiddens_, dropout))),
      blks(add_module<Blocks<EncoderBlock>>("blks")) {
  for (int64_t i = 0; i < num_layers; ++i)
    blks.add("block" + std::to_string(i), key_size, query_size, value_size, num_hiddens, norm_shape, ffn_num_input,
             ffn_num_hiddens, num_heads, dropout, use_bias);
}

EncoderOutputs TransformerEncoder::forward(const Tensor& X, const Tensor& valid_lens) {
  // X: (batch_size, num_steps) -> (batch_size, num_steps, num_hiddens)
  Tensor H = (*pos_encoding)(embedding(X) * std::sqrt(static_cast<float>(num_hiddens)));
  attention_weights.clear();
  for (EncoderBlock* blk : blks) {
    H = (*blk)(H, valid_lens);
    attention_weights.push_back(blk->attention.attention->attention_weights);
  }
  return {H};
}

DecoderBlock::DecoderBlock(int64_t key_size, int64_t query_size, int64_t value_size, int64_t num_hiddens,
                           Shape norm_shape, int64_t ffn_num_input, int64_t ffn_num_hiddens, int64_t num_heads,
                           float dropout, int64_t i_)
    : i(i_),
      attention1(add_module<MultiHeadAttention>("attention1", key_size, query_size, value_size, num_hiddens, num_heads,
                                                dropout)),
      addnorm1(add_module<AddNorm>("addnorm1", norm_shape, dropout)),
      attention2(add_module<MultiHeadAttention>("attention2", key_size, query_size, value_size, num_hiddens, num_heads,
                                                dropout)),
      addnorm2(add_module<AddNorm>("addnorm2", norm_shape, dropout)),
      ffn(add_module<PositionWiseFFN>("ffn", ffn_num_input, ffn_num_hiddens, num_hiddens)),
      addnorm3(add_module<AddNorm>("addnorm3", norm_shape, dropout)) {}

Tensor DecoderBlock::forward(const Tensor& X, DecoderState& state) {
  const Tensor& enc_outputs = state[0];
  const Tensor& enc_valid_lens = state[1];
  Tensor& cache = state[2 + i];
  // key_values: everything this block has been fed so far, X included.
  const Tensor key_values = cache.defined() ? concat({cache, X}, 1) : X;
  cache = key_values;
  Tensor dec_valid_lens;  // undefined in prediction: the cache holds only the past
  if (training()) {
    // The causal mask: dec_valid_lens (batch_size, num_steps), every row 1, 2, ..., num_steps,
    // so query t (0-based) sees keys 0..t.
    const int64_t batch_size = X.size(0), num_steps = X.size(1);
    dec_valid_lens = repeat(arange(1.0f, static_cast<float>(num_steps + 1)), {batch_size, 1});
  }
  // Self-attention, then encoder–decoder attention (queries from the decoder, keys and
  // values the encoder outputs), then the FFN; each followed by AddNorm.
  const Tensor Y = addnorm1(X, attention1(X, key_values, key_values, dec_valid_lens));
  const Tensor Z = addnorm2(Y, attention2(Y, enc_outputs, enc_outputs, enc_valid_lens));
  return addnorm3(Z, ffn(Z));
}

TransformerDecoder::TransformerDecoder(int64_t vocab_size, int64_t key_size, int64_t query_size, int64_t value_size,
                                       int64_t num_hiddens_, Shape norm_shape, int64_t ffn_num_input,
                                       int64_t ffn_num_hiddens, int64_t num_heads, int64_t num_layers_, float dropout,
                                       const PositionalEncodingMaker& make_pe)
    : num_hiddens(num_hiddens_),
      num_layers(num_layers_),
      embedding(add_module<Embedding>("embedding", vocab_size, num_hiddens_)),
      pos_encoding(&add_module("pos_encoding", positional_encoding(make_pe, num_hiddens_, dropout))),
      blks(add_module<Blocks<DecoderBlock>>("blks")),
      dense(add_module<Linear>("dense", num_hiddens_, vocab_size)) {
  for (int64_t i = 0; i < num_layers; ++i)
    blks.add("block" + std::to_string(i), key_size, query_size, value_size, num_hiddens, norm_shape, ffn_num_input,
             ffn_num_hiddens, num_heads, dropout, i);
}

DecoderState TransformerDecoder::init_state(const EncoderOutputs& enc_outputs, const Tensor& enc_valid_lens) {
  check(!enc_outputs.empty(), "TransformerDecoder.init_state", "enc_outputs is empty");
  DecoderState state{enc_outputs[0], enc_valid_lens};
  state.resize(2 + num_layers);  // one empty key/value cache per block
  return state;
}

std::pair<Tensor, DecoderState> TransformerDecoder::forward(const Tensor& X, const DecoderState& state_in) {
  check(static_cast<int64_t>(state_in.size()) == 2 + num_layers, "TransformerDecoder", "state has ", state_in.size(),
        " entries, expected 2 + num_layers = ", 2 + num_layers, " (use init_state)");
  DecoderState state = state_in;
  // Position of the first token of X: 0 as the book, unless pe_offset asks for the true
  // position in step-by-step prediction (the no. of steps block 0 has cached).
  const int64_t offset = pe_offset && state[2].defined() ? state[2].size(1) : 0;
  Tensor H = (*pos_encoding)(embedding(X) * std::sqrt(static_cast<float>(num_hiddens)), offset);
  std::vector<Tensor> self_w, cross_w;
  for (DecoderBlock* blk : blks) {
    H = (*blk)(H, state);
    self_w.push_back(blk->attention1.attention->attention_weights);
    cross_w.push_back(blk->attention2.attention->attention_weights);
  }
  attention_weights_ = self_w;
  attention_weights_.insert(attention_weights_.end(), cross_w.begin(), cross_w.end());
  return {dense(H), state};
}

Tensor decoder_attention_weights(const std::vector<std::vector<Tensor>>& steps, int which, int64_t num_layers,
                                 int64_t num_heads, int64_t num_steps) {
  const int64_t S = static_cast<int64_t>(steps.size());
  Tensor W = zeros({num_layers, num_heads, S, num_steps});
  for (int64_t s = 0; s < S; ++s)
    for (int64_t l = 0; l < num_layers; ++l) {
      const Tensor& w = steps[s].at(which * num_layers + l);  // (num_heads, 1, no. of keys)
      const int64_t keys = std::min(w.size(2), num_steps);
      for (int64_t h = 0; h < num_heads; ++h)
        for (int64_t k = 0; k < keys; ++k) W.at({l, h, s, k}) = w.at({h, 0, k});
    }
  return W;
}

}  // namespace d2l
