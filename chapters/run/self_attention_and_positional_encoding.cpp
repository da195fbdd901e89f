// chapters/run/self_attention_and_positional_encoding.cpp — the run around 10.6's code
// (tools/d2l/cli/section.h): the program's title; no options beyond the shared ones.
#include "tools/d2l/cli/section.h"

namespace {
const d2l::RegisterSection room({
    "10.6 Self-Attention and Positional Encoding (sec_self-attention-and-positional-encoding). "
    "Exercise 2, a learnable positional encoding, is trained and drawn by 10.7's "
    "program: transformer --pe learned."});
}  // namespace
