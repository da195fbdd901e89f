// tools/d2l/data/vocab_tokens.h — a vocabulary as the list of its tokens in index order, written
// as a JSON array of strings: what a safetensors file's __metadata__ carries ("src_vocab.tokens",
// ...) so that another program, PyTorch's included, maps words to the same indices.
#pragma once
#include <string>

#include "tools/d2l/data/vocab.h"

namespace d2l {

// ["<unk>","<pad>",...]: idx_to_token as JSON.
std::string vocab_tokens_json(const Vocab& vocab);

// The vocabulary whose idx_to_token is that list. Throws std::runtime_error naming `what` when
// the text is not a JSON array of distinct strings starting with "<unk>".
Vocab vocab_from_tokens_json(const std::string& json, const std::string& what);

}  // namespace d2l
