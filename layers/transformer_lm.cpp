// layers/transformer_lm.cpp — 10.7 exercise 3: a decoder-only Transformer language model.
#include "layers/transformer_lm.h"

#include <string>

#include "core/ops.h"

namespace d2l {

TransformerLMBlock::TransformerLMBlock(int64_t num_hiddens, int64_t ffn_num_hiddens, int64_t num_heads,
                                       float dropout)
    : attention(add_module<MultiHeadAttention>("attention", num_hiddens, num_hiddens, num_hiddens, num_hiddens,
                                               num_heads, dropout)),
      addnorm1(add_module<AddNorm>("addnorm1", Shape{num_hiddens}, dropout)),
      ffn(add_module<PositionWiseFFN>("ffn", num_hiddens, ffn_num_hiddens, num_hiddens)),
      addnorm2(add_module<AddNorm>("addnorm2", Shape{num_hiddens}, dropout)) {}

Tensor TransformerLMBlock::forward(const Tensor& X, Tensor& cache, bool causal) {
  const int64_t batch_size = X.size(0), num_steps = X.size(1);
  const int64_t past = cache.defined() ? cache.size(1) : 0;
  // key_values: every step this block has been fed, X's included (the book's DecoderBlock)
  const Tensor key_values = past ? concat({cache, X}, 1) : X;
  cache = key_values;
  Tensor valid_lens;  // undefined: no mask
  if (causal) {
    // The causal mask: step t of X (at position past + t) sees keys 0 .. past + t, so its
    // valid length is past + t + 1. valid_lens: (batch_size, num_steps), each row
    // past + 1, ..., past + num_steps, as the book's dec_valid_lens when past = 0.
    valid_lens = repeat(arange(static_cast<float>(past + 1), static_cast<float>(past + num_steps + 1)),
                        {batch_size, 1});
  }
  const Tensor Y = addnorm1(X, attention(X, key_values, key_values, valid_lens));
  return addnorm2(Y, ffn(Y));
}

TransformerLM::TransformerLM(int64_t vocab_size, int64_t num_hiddens_, int64_t ffn_num_hiddens, int64_t num_heads,
                             int64_t num_layers, float dropout, bool causal_)
    : causal(causal_),
      num_hiddens(num_hiddens_),
      embedding(add_module<Embedding>("embedding", vocab_size, num_hiddens_)),
      pos_encoding(add_module<PositionalEncoding>("pos_encoding", num_hiddens_, dropout, /*max_len=*/4096)),
      blks(add_module<Blocks<TransformerLMBlock>>("blks")),
      dense(add_module<Linear>("dense", num_hiddens_, vocab_size)) {
  for (int64_t i = 0; i < num_layers; ++i)
    blks.add("block" + std::to_string(i), num_hiddens, ffn_num_hiddens, num_heads, dropout);
}

Tensor TransformerLM::forward(const Tensor& X, std::vector<Tensor>* cache) {
  check(X.defined() && X.ndim() == 2, "TransformerLM", "X must be (batch_size, no. of steps) token ids, got ",
        X.defined() ? X.shape() : Shape{});
  std::vector<Tensor> scratch(blks.size());  // no cache asked for: a fresh one, dropped after
  std::vector<Tensor>& caches = cache ? *cache : scratch;
  if (caches.empty()) caches.resize(blks.size());
  check(caches.size() == blks.size(), "TransformerLM", "cache has ", caches.size(), " entries for ", blks.size(),
        " blocks");
  const int64_t past = caches[0].defined() ? caches[0].size(1) : 0;
  Tensor H = pos_encoding(embedding(X) * embedding_scale, past);
  for (size_t i = 0; i < blks.size(); ++i) H = (*blks[i])(H, caches[i], causal);
  return dense(H);  // (batch_size, no. of steps, vocab_size)
}

}  // namespace d2l
