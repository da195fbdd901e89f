// core/debug/op_inputs.h — what one op was given, copied each time it runs inside one layer,
// read from outside the layers (the companion pages' live panels show 10.4's and 10.7's
// attention scores a(q, k) just before masked_softmax turns them into weights):
//
//   OpInputRecorder scores("masked_softmax", "10.4 Seq2SeqAttentionDecoder");
//   ... the decoder runs, with or without NoGrad ...
//   for (const Tensor& s : scores.take()) ...   // each call's first input, in run order
//
// It hangs on the engine's one hook (engine_hook, core/autograd.h) while it lives, as
// BackwardRecorder does (core/debug/backward_steps.h), and passes every call on to the hook
// that was there before (the debug switches', another recorder's), so the trace still prints.
// The hook is called for every op whether or not a graph is recorded, so NoGrad (prediction)
// is seen too.
#pragma once
#include <string>
#include <vector>

#include "core/autograd.h"
#include "core/debug/hook_chain.h"

namespace d2l {

class OpInputRecorder : public HookChain<OpInputRecorder> {
 public:
  // Records the first input of every `op` (the engine's name, e.g. "masked_softmax") run
  // while the section path (current_section(), core/debug/debug.h) contains `section`.
  // Both must outlive the recorder (pass string literals).
  OpInputRecorder(const char* op, const char* section);

  // The inputs recorded since the last take(), oldest first, each a copy (its own data, no
  // graph); the recorder then starts an empty list.
  std::vector<Tensor> take();

 private:
  friend class HookChain<OpInputRecorder>;
  static void op_started(OpCall& call);
  static void op_finished(OpCall& call, Node& y, BackwardFn& backward);
  static void run_node_backward(Node& y);

  const char* op_;
  const char* section_;
  std::vector<Tensor> inputs_;
};

}  // namespace d2l
