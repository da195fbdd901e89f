// core/debug.h — seeing the engine work: the trace, the per-op profile, the numerics check,
// the section names their messages carry, and the graph as Graphviz DOT.
//
// None of this is needed to compute anything. Each switch is off unless its environment
// variable is set (any value but "0") or its set_ function turns it on:
//   D2L_TRACE=1           prints every op as it runs: "[trace] softmax (2, 4) -> (2, 4)"
//   D2L_PROFILE=1         adds each op's forward and backward time to a per-op table,
//                         printed at exit (or by print_profile())
//   D2L_CHECK_NUMERICS=1  stops at the first non-finite op output (and, for ops recorded
//                         while it is on, at the first non-finite gradient in backward),
//                         naming the op, its input shapes and the SectionScope it ran in,
//                         like PyTorch's torch.autograd.set_detect_anomaly
// While any switch is on, the engine (core/autograd.cpp) calls this file through its one
// hook, engine_hook; while all are off the hook is null and ops pay one branch.
#pragma once
#include <string>
#include <vector>

#include "core/autograd.h"

namespace d2l {

void set_trace(bool on);  // also D2L_TRACE=1
bool trace_enabled();
void set_profile(bool on);  // also D2L_PROFILE=1; the table prints at exit or on demand
bool profile_enabled();
void print_profile();  // op, calls, forward ms, backward ms; then clears the table
void set_check_numerics(bool on);  // also D2L_CHECK_NUMERICS=1
bool check_numerics_enabled();

// RAII: names the book section (or layer) whose ops run while it lives, for the numerics
// check's message. Layers open one in forward, and nested layers nest:
//   SectionScope section("10.5 MultiHeadAttention");
// makes a NaN inside read "... in 10.7 EncoderBlock > 10.5 MultiHeadAttention". The label
// must outlive the scope (a string literal). Per thread; costs a push and a pop.
class SectionScope {
 public:
  explicit SectionScope(const char* label);
  ~SectionScope();
  SectionScope(const SectionScope&) = delete;
  SectionScope& operator=(const SectionScope&) = delete;
};
std::string current_section();  // "10.7 EncoderBlock > 10.5 MultiHeadAttention", or ""

// Every op's output shape for the trace line, e.g. "matmul (2, 3) (3, 4) -> (2, 4)".
std::string describe_call(const char* op, const std::vector<NodePtr>& inputs, const Shape& out);

// Writes the graph that produced `root` as Graphviz DOT (render: dot -Tpng graph.dot).
void to_dot(const Tensor& root, const std::string& path);

}  // namespace d2l
