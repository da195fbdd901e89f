// layers/transformer_lm.h — 10.7 Transformer (sec_transformer), exercise 3: a decoder-only
// Transformer language model.
//
// "Which part of the Transformer would you use for a language model, the encoder or the
// decoder?" The decoder: its self-attention is causal (query t sees keys 0..t), so the
// output at t may predict token t + 1 without having seen it. TransformerLMBlock is the
// book's DecoderBlock without the encoder-decoder attention: masked self-attention + AddNorm,
// FFN + AddNorm. The causal mask is masked_softmax's per-query valid lengths, as the book's
// decoder builds them in training (1, 2, ..., num_steps per row).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "layers/transformer.h"

namespace d2l {

// X (batch_size, no. of steps, num_hiddens) -> the same shape. cache: the block's inputs so
// far (undefined before the first call, then (batch_size, no. of cached steps, num_hiddens)):
// X's steps attend to the cache and to themselves. causal false drops the mask (every step
// sees every step of X): the exercise's counter-example, an encoder used as a language model.
class TransformerLMBlock : public Layer<TransformerLMBlock> {
 public:
  static constexpr const char* section = "10.7 TransformerLMBlock";
  TransformerLMBlock(int64_t num_hiddens, int64_t ffn_num_hiddens, int64_t num_heads, float dropout);
  Tensor forward(const Tensor& X, Tensor& cache, bool causal);
  MultiHeadAttention& attention;
  AddNorm& addnorm1;
  PositionWiseFFN& ffn;
  AddNorm& addnorm2;
};

// Embedding × embedding_scale, the sinusoidal PositionalEncoding (4096 positions; at each
// token's true position, the no. of cached steps counted), num_layers TransformerLMBlocks, a
// Linear to the vocabulary.
// embedding_scale: the book's encoder and decoder scale by sqrt(num_hiddens) (8 at width 64).
// The embedding's entries are N(0, 1) and the encoding's lie in [-1, 1], so scaled by 8 the
// position is a small ripple on the token, which attention hardly reads. A causal model
// barely needs it (the mask already orders the keys), but a model without the mask must find
// "the step after mine" by position alone; at 0.5 it can.
//   X (batch_size, no. of steps) token ids -> logits (batch_size, no. of steps, vocab_size)
// With a cache (one Tensor per block, empty before the first call) the model decodes
// incrementally: each call feeds only the new tokens and attends to the cached past.
class TransformerLM : public Layer<TransformerLM> {
 public:
  static constexpr const char* section = "10.7 TransformerLM";
  TransformerLM(int64_t vocab_size, int64_t num_hiddens, int64_t ffn_num_hiddens, int64_t num_heads,
                int64_t num_layers, float dropout, bool causal = true);
  Tensor forward(const Tensor& X, std::vector<Tensor>* cache = nullptr);
  bool causal;
  int64_t num_hiddens;
  float embedding_scale = 0.5f;
  Embedding& embedding;
  PositionalEncoding& pos_encoding;
  Blocks<TransformerLMBlock>& blks;  // "block0", "block1", ...
  Linear& dense;
};

}  // namespace d2l
