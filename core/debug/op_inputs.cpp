// core/debug/op_inputs.cpp — OpInputRecorder (core/debug/op_inputs.h): the engine's hook,
// copying one op's first input where it runs inside a given layer.
#include "core/debug/op_inputs.h"

#include <cstring>

#include "core/creation.h"
#include "core/debug/debug.h"
#include "core/shape.h"  // check

namespace d2l {
namespace {

OpInputRecorder* g_active = nullptr;  // one recorder at a time
const EngineHook* g_previous = nullptr;

}  // namespace

OpInputRecorder::OpInputRecorder(const char* op, const char* section)
    : op_(op), section_(section), previous_(engine_hook) {
  check(g_active == nullptr, "OpInputRecorder", "another recorder is already running");
  static const EngineHook hook{op_started, op_finished, run_node_backward};
  g_active = this;
  g_previous = previous_;
  engine_hook = &hook;
}

OpInputRecorder::~OpInputRecorder() {
  engine_hook = previous_;
  g_active = nullptr;
  g_previous = nullptr;
}

std::vector<Tensor> OpInputRecorder::take() {
  std::vector<Tensor> out;
  out.swap(inputs_);
  return out;
}

// Before the op computes: the input is as the op will read it. The engine keeps an op's
// inputs in call.inputs() whenever a hook is on, grad mode or not.
void OpInputRecorder::op_started(OpCall& call) {
  if (g_previous) g_previous->op_started(call);
  OpInputRecorder& r = *g_active;
  if (std::strcmp(call.name(), r.op_) != 0 || call.inputs().empty()) return;
  if (current_section().find(r.section_) == std::string::npos) return;
  const Node& x = *call.inputs()[0];
  const float* p = x.data.get();
  r.inputs_.push_back(tensor(std::vector<float>(p, p + x.numel()), x.shape));
}

void OpInputRecorder::op_finished(OpCall& call, Node& y, BackwardFn& backward) {
  if (g_previous) g_previous->op_finished(call, y, backward);
}

// The hook's contract when no earlier hook runs the step: the closure, then the identity
// gradients (core/autograd.h).
void OpInputRecorder::run_node_backward(Node& y) {
  if (g_previous) {
    g_previous->run_node_backward(y);
  } else {
    y.backward_fn(y);
    add_identity_grads(y);
  }
}

}  // namespace d2l
