// tools/d2l/train/predict_snli.h — 15.5 自然语言推断：使用注意力 / Natural Language Inference: Using
// Attention (sec_natural-language-inference-attention): the book's predict_snli, which maps
// words to ids with the vocabulary (tools/d2l/data/vocab.h) before the layer sees them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "layers/natural_language_inference_attention.h"
#include "tools/d2l/data/vocab.h"

namespace d2l {

// The book's predict_snli: eval mode (as the book, the net stays in it), no graph; premise
// and hypothesis are tokens, unpadded. Returns "entailment", "contradiction" or "neutral".
std::string predict_snli(DecomposableAttention& net, const Vocab& vocab, const std::vector<std::string>& premise,
                         const std::vector<std::string>& hypothesis);

// Label ids in the book's order: 0 entailment, 1 contradiction, 2 neutral.
const std::string& snli_label_name(int64_t label);

}  // namespace d2l
