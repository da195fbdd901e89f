// chapters/run/attention_cues.cpp — the run around 10.1's code (tools/d2l/cli/section.h):
// the program's title; the section has no options of its own beyond the shared ones.
#include "tools/d2l/cli/section.h"

namespace {
const d2l::RegisterSection room({"10.1 Attention Cues (sec_attention-cues): the identity-matrix attention heatmap."});
}  // namespace
