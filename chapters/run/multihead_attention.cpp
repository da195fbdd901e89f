// chapters/run/multihead_attention.cpp — the run around 10.5's code (tools/d2l/cli/section.h): the
// program's title; the section has no options of its own beyond the shared ones.
#include "tools/d2l/cli/section.h"

namespace {
const d2l::RegisterSection room({"10.5 Multi-Head Attention (sec_multihead-attention)."});
}  // namespace
