// layers/transformer_lm.cpp — 10.7 exercise 3: a decoder-only Transformer language model.
#include "layers/transformer_lm.h"

#include <string>

#include "core/debug/debug.h"
#include "core/ops.h"

namespace d2l {

TransformerLMBlock::TransformerLMBlock(int64_t num_hiddens, int64_t ffn_num_hiddens, int64_t num_heads,
                                       float dropout)
    : attention(num_hiddens, num_hiddens, num_hiddens, num_hiddens, num_heads, dropout),
      addnorm1(Shape{num_hiddens}, dropout),
      ffn(num_hiddens, ffn_num_hiddens, num_hiddens),
      addnorm2(Shape{num_hiddens}, dropout) {
  register_module("attention", attention);
  register_module("addnorm1", addnorm1);
  register_module("ffn", ffn);
  register_module("addnorm2", addnorm2);
}

Tensor TransformerLMBlock::forward(const Tensor& X, Tensor& cache, bool causal) {
  SectionScope section("10.7 TransformerLMBlock");
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
      embedding(vocab_size, num_hiddens_),
      pos_encoding(num_hiddens_, dropout, /*max_len=*/4096),
      dense(num_hiddens_, vocab_size) {
  register_module("embedding", embedding);
  register_module("pos_encoding", pos_encoding);
  register_module("blks", blks_seq);
  for (int64_t i = 0; i < num_layers; ++i) {
    blks.push_back(std::make_unique<TransformerLMBlock>(num_hiddens, ffn_num_hiddens, num_heads, dropout));
    blks_seq.add_module("block" + std::to_string(i), *blks.back());
  }
  register_module("dense", dense);
}

Tensor TransformerLM::forward(const Tensor& X, std::vector<Tensor>* cache) {
  SectionScope section("10.7 TransformerLM");
  check(X.defined() && X.ndim() == 2, "TransformerLM", "X must be (batch_size, no. of steps) token ids, got ",
        X.defined() ? X.shape() : Shape{});
  std::vector<Tensor> scratch(blks.size());  // no cache asked for: a fresh one, dropped after
  std::vector<Tensor>& caches = cache ? *cache : scratch;
  if (caches.empty()) caches.resize(blks.size());
  check(caches.size() == blks.size(), "TransformerLM", "cache has ", caches.size(), " entries for ", blks.size(),
        " blocks");
  const int64_t past = caches[0].defined() ? caches[0].size(1) : 0;
  Tensor H = pos_encoding(embedding(X) * embedding_scale, past);
  for (size_t i = 0; i < blks.size(); ++i) H = blks[i]->forward(H, caches[i], causal);
  return dense(H);  // (batch_size, no. of steps, vocab_size)
}

}  // namespace d2l
