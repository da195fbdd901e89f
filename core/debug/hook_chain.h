// core/debug/hook_chain.h — what a recorder on the engine's one hook (engine_hook,
// core/autograd.h) shares: BackwardRecorder (backward_steps.h) and OpInputRecorder
// (op_inputs.h) derive from HookChain<themselves>. While it lives, R's op_started, op_finished
// and run_node_backward are the hook; each passes the call on (pass_*) to the hook that was
// there before (the debug switches', or none), so the trace still prints, and the recorder's
// end puts that hook back. One recorder of a kind at a time.
#pragma once
#include "core/autograd.h"
#include "core/shape.h"  // check

namespace d2l {

template <class R>
class HookChain {
 public:
  HookChain(const HookChain&) = delete;
  HookChain& operator=(const HookChain&) = delete;

 protected:
  explicit HookChain(const char* name) : previous_(engine_hook) {
    check(active() == nullptr, name, "another recorder is already running");
    static const EngineHook hook{R::op_started, R::op_finished, R::run_node_backward};
    active() = static_cast<R*>(this);
    engine_hook = &hook;
  }
  ~HookChain() {
    engine_hook = previous_;
    active() = nullptr;
  }

  static R*& active() {  // the recorder installed now
    static R* recorder = nullptr;
    return recorder;
  }
  static void pass_op_started(OpCall& call) {
    if (const EngineHook* p = previous()) p->op_started(call);
  }
  static void pass_op_finished(OpCall& call, Node& y, BackwardFn& backward) {
    if (const EngineHook* p = previous()) p->op_finished(call, y, backward);
  }
  // Without an earlier hook, the step as the engine runs it (the hook's contract: the
  // closure, then the identity gradients).
  static void pass_run_node_backward(Node& y) {
    if (const EngineHook* p = previous()) {
      p->run_node_backward(y);
    } else {
      y.backward_fn(y);
      add_identity_grads(y);
    }
  }

 private:
  static const EngineHook* previous() {
    return active() ? static_cast<HookChain*>(active())->previous_ : nullptr;
  }
  const EngineHook* previous_;
};

}  // namespace d2l
