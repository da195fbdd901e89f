// chapters/run/attention_scoring_functions.cpp — the run around 10.3's code (tools/d2l/cli/section.h): the
// program's title; the section has no options of its own beyond the shared ones.
#include "tools/d2l/cli/section.h"

namespace {
const d2l::RegisterSection room({
    "10.3 Attention Scoring Functions (sec_attention-scoring-functions): masked softmax, additive and "
    "scaled dot-product attention."});
}  // namespace
