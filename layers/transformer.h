// layers/transformer.h — 10.7 Transformer (sec_transformer).
//
// The encoder–decoder of Vaswani et al. (2017) as the book builds it: position-wise FFN,
// residual + layer norm (AddNorm, post-norm), encoder blocks of self-attention + FFN,
// decoder blocks of masked self-attention + encoder–decoder attention + FFN.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/nn/basic.h"
#include "layers/bahdanau_attention.h"  // AttentionDecoder, as the book's 10.7 reuses 10.4's
#include "layers/multihead_attention.h"
#include "layers/self_attention_and_positional_encoding.h"

namespace d2l {

// Linear, ReLU, Linear applied to every position alike:
// X (batch_size, no. of steps, ffn_num_input) -> (batch_size, no. of steps, ffn_num_outputs).
class PositionWiseFFN : public Layer<PositionWiseFFN> {
 public:
  static constexpr const char* section = "10.7 PositionWiseFFN";
  PositionWiseFFN(int64_t ffn_num_input, int64_t ffn_num_hiddens, int64_t ffn_num_outputs);
  Tensor forward(const Tensor& X) const;
  Linear& dense1;
  ReLU& relu;
  Linear& dense2;
};

// LayerNorm(dropout(Y) + X): the residual connection, then layer normalisation over
// normalized_shape (the trailing dims). X and Y share one shape.
class AddNorm : public Layer<AddNorm> {
 public:
  static constexpr const char* section = "10.7 AddNorm";
  AddNorm(const Shape& normalized_shape, float dropout);
  Tensor forward(const Tensor& X, const Tensor& Y) const;
  Dropout& dropout;
  LayerNorm& ln;
};

// X (batch_size, no. of steps, num_hiddens), valid_lens (batch_size,) -> same shape as X.
class EncoderBlock : public Layer<EncoderBlock> {
 public:
  static constexpr const char* section = "10.7 EncoderBlock";
  EncoderBlock(int64_t key_size, int64_t query_size, int64_t value_size, int64_t num_hiddens, Shape norm_shape,
               int64_t ffn_num_input, int64_t ffn_num_hiddens, int64_t num_heads, float dropout, bool use_bias = false);
  Tensor forward(const Tensor& X, const Tensor& valid_lens);
  MultiHeadAttention& attention;
  AddNorm& addnorm1;
  PositionWiseFFN& ffn;
  AddNorm& addnorm2;
};

// Embedding × sqrt(num_hiddens), positional encoding, then num_layers EncoderBlocks.
// X (batch_size, num_steps) ids -> {(batch_size, num_steps, num_hiddens)}.
// The book scales the embedding because the encoding's values lie in [-1, 1]. The embedding
// starts N(0, 1) (nn.Embedding's default; train_seq2seq's Xavier init leaves embeddings
// alone), so after the scaling its entries have standard deviation sqrt(num_hiddens), about
// 5.7 for the book's 32: at the start of training they outweigh the encoding.
// make_pe: the book's PositionalEncoding(num_hiddens, dropout) when empty; 10.6's exercise 2
// passes its learned table. Called where the book builds its encoding, so the layers' random
// initialisation keeps the book's order.
using PositionalEncodingMaker = std::function<std::unique_ptr<PositionalEncodingBase>(int64_t num_hiddens, float dropout)>;

class TransformerEncoder : public Layer<TransformerEncoder, Encoder> {
 public:
  static constexpr const char* section = "10.7 TransformerEncoder";
  TransformerEncoder(int64_t vocab_size, int64_t key_size, int64_t query_size, int64_t value_size, int64_t num_hiddens,
                     Shape norm_shape, int64_t ffn_num_input, int64_t ffn_num_hiddens, int64_t num_heads,
                     int64_t num_layers, float dropout, bool use_bias = false, const PositionalEncodingMaker& make_pe = {});
  EncoderOutputs forward(const Tensor& X, const Tensor& valid_lens) override;
  int64_t num_hiddens;
  Embedding& embedding;
  PositionalEncodingBase* pos_encoding;
  Blocks<EncoderBlock>& blks;  // the book's nn.Sequential: "block0", "block1", ...
  std::vector<Tensor> attention_weights;  // per block: (batch_size * num_heads, num_steps, num_steps)
};

// The i-th decoder block. state = {enc_outputs, enc_valid_lens, key_values of block 0, 1, ...}:
// in training key_values is the block's whole input and a causal mask (valid lengths
// 1..num_steps per query) hides the future; in prediction tokens arrive one at a time and
// key_values caches every input the block has seen so far, so each step attends to the past.
class DecoderBlock : public Layer<DecoderBlock> {
 public:
  static constexpr const char* section = "10.7 DecoderBlock";
  DecoderBlock(int64_t key_size, int64_t query_size, int64_t value_size, int64_t num_hiddens, Shape norm_shape,
               int64_t ffn_num_input, int64_t ffn_num_hiddens, int64_t num_heads, float dropout, int64_t i);
  Tensor forward(const Tensor& X, DecoderState& state);
  int64_t i;
  MultiHeadAttention& attention1;
  AddNorm& addnorm1;
  MultiHeadAttention& attention2;
  AddNorm& addnorm2;
  PositionWiseFFN& ffn;
  AddNorm& addnorm3;
};

// make_pe as TransformerEncoder's.
class TransformerDecoder : public Layer<TransformerDecoder, AttentionDecoder> {
 public:
  static constexpr const char* section = "10.7 TransformerDecoder";
  TransformerDecoder(int64_t vocab_size, int64_t key_size, int64_t query_size, int64_t value_size, int64_t num_hiddens,
                     Shape norm_shape, int64_t ffn_num_input, int64_t ffn_num_hiddens, int64_t num_heads,
                     int64_t num_layers, float dropout, const PositionalEncodingMaker& make_pe = {});
  DecoderState init_state(const EncoderOutputs& enc_outputs, const Tensor& enc_valid_lens) override;
  std::pair<Tensor, DecoderState> forward(const Tensor& X, const DecoderState& state) override;
  // {self-attention of block 0..L-1, then encoder–decoder attention of block 0..L-1} of the
  // last forward, each (batch_size * num_heads, no. of queries, no. of keys).
  const std::vector<Tensor>& attention_weights() const override { return attention_weights_; }

  // The book's prediction feeds one token at a time, so its PositionalEncoding adds P[0] at
  // every step: each decoding step looks like position 0. We reproduce that by default
  // (the book's BLEU); pe_offset = true adds the true position (the no. of cached steps).
  bool pe_offset = false;
  int64_t num_hiddens, num_layers;
  Embedding& embedding;
  PositionalEncodingBase* pos_encoding;
  Blocks<DecoderBlock>& blks;  // the book's nn.Sequential: "block0", "block1", ...
  Linear& dense;

 private:
  std::vector<Tensor> attention_weights_;
};

// The book's decoder heatmap prep (its pandas DataFrame(...).fillna(0.0)): from
// predict_seq2seq_steps' attention tensors, one list per decoding step holding the
// self-attention of each block, then the encoder–decoder attention of each block (each
// (num_heads, 1, no. of keys)), the `which` kind (0: self, 1: encoder–decoder) as
// (num_layers, num_heads, no. of steps, num_steps), keys a step did not have filled with 0.
Tensor decoder_attention_weights(const std::vector<std::vector<Tensor>>& steps, int which, int64_t num_layers,
                                 int64_t num_heads, int64_t num_steps);

}  // namespace d2l
