// core/debug/debug.h — seeing the engine work: the trace (forward, and backward step by step), the
// profile (per op, per layer, per optimiser step), the numerics check, the section names
// their messages carry, and the graph as Graphviz DOT.
//
// None of this is needed to compute anything. Each switch is off unless its environment
// variable is set (any value but "0") or its set_ function turns it on:
//   D2L_TRACE=1           prints every op as it runs, with the layer it ran in:
//                         "[trace] linear (2, 4) (3, 4) -> (2, 3) in 10.5 MultiHeadAttention > Linear"
//   D2L_TRACE=2           also every backward step as it runs, in order: the op, its layer,
//                         the gradient arriving at its output and what it sends to each input
//                         (shapes and L2 norms):
//                         "[backward] mul: grad (2,) norm 1.41421 -> input 0 leaf (2,) norm 5, ..."
//   D2L_PROFILE=1         adds each op's forward and backward time to a per-op table and a
//                         per-layer table (by section path), and times the optimiser steps;
//                         printed at exit (or by print_profile()). The op table's "cores"
//                         columns: process CPU time / wall time, the cores busy on average
//                         (under OMP_WAIT_POLICY=PASSIVE, where the other threads waited)
//   D2L_CHECK_NUMERICS=1  stops at the first non-finite op output (and, for ops recorded
//                         while it is on, at the first non-finite gradient in backward),
//                         naming the op, its input shapes, the SectionScope it ran in and
//                         the parameter when the bad value sits in a weight
//                         (torch.autograd.set_detect_anomaly)
// While any switch is on, the engine (core/autograd.cpp) calls this file through its one
// hook, engine_hook; while all are off the hook is null and ops pay one branch.
#pragma once
#include <string>
#include <vector>

#include "core/autograd.h"

namespace d2l {

void set_trace(bool on);  // level 1 (or 0); also D2L_TRACE=1
void set_trace_level(int level);  // 0 off, 1 forward ops, 2 forward ops and backward steps; D2L_TRACE=2
int trace_level();
bool trace_enabled();  // trace_level() > 0
void set_profile(bool on);  // also D2L_PROFILE=1; the tables print at exit or on demand
bool profile_enabled();
void print_profile();  // the per-op, per-layer and optimiser tables; then clears them
void set_check_numerics(bool on);  // also D2L_CHECK_NUMERICS=1
bool check_numerics_enabled();
// Records each op's section path in the graph and nothing else, so to_dot can group the
// nodes by layer (any switch above records it too).
void set_record_sections(bool on);

// RAII: names the book section (or layer) whose ops run while it lives, for the trace, the
// profile's layer table, the numerics check and to_dot's clusters. Layers open one in
// forward, and nested layers nest:
//   SectionScope section("10.5 MultiHeadAttention");
// makes a NaN inside read "... in 10.7 EncoderBlock > 10.5 MultiHeadAttention". Recorded
// ops keep a pointer to the label, so it must outlive their graphs: pass a string literal.
// Per thread; costs a push and a pop.
class SectionScope {
 public:
  explicit SectionScope(const char* label);
  ~SectionScope();
  SectionScope(const SectionScope&) = delete;
  SectionScope& operator=(const SectionScope&) = delete;
};
std::string current_section();  // "10.7 EncoderBlock > 10.5 MultiHeadAttention", or ""
// The section path y's op ran in, when it was recorded while a switch was on; else "".
std::string recorded_section(const Node& y);

// RAII: while D2L_PROFILE is on, the time between construction and destruction is added to
// the profile's table of steps under `name` (a string literal): the optimisers time their
// step() with it ("Adam.step"), clip_grad_norm its pass. Off, it costs one branch.
class ProfileRegion {
 public:
  explicit ProfileRegion(const char* name);
  ~ProfileRegion();
  ProfileRegion(const ProfileRegion&) = delete;
  ProfileRegion& operator=(const ProfileRegion&) = delete;

 private:
  const char* name_;
  int64_t started_ns_ = -1;
};

// Every op's output shape for the trace line, e.g. "matmul (2, 3) (3, 4) -> (2, 4)".
std::string describe_call(const char* op, const NodeList& inputs, const Shape& out);

// Writes the graph that produced `root` as Graphviz DOT (render: dot -Tpng graph.dot).
// Each node shows its op and shape; a parameter leaf shows its registered name instead
// ("blks.0.attention.W_q.weight\n(32, 32)", see parameter_name in core/nn/module.h). Ops whose
// section path was recorded (a switch on during the forward) sit in one box per layer,
// nested as the sections nest (Graphviz clusters). A graph already freed by backward() is
// written as what is left of it with a note, and a warning goes to stderr: call to_dot
// before backward().
void to_dot(const Tensor& root, const std::string& path);

}  // namespace d2l
