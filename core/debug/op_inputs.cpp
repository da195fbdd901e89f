// core/debug/op_inputs.cpp — OpInputRecorder (core/debug/op_inputs.h): the engine's hook,
// copying one op's first input where it runs inside a given layer.
#include "core/debug/op_inputs.h"

#include <cstring>

#include "core/creation.h"
#include "core/debug/debug.h"
#include "core/shape.h"  // check

namespace d2l {
OpInputRecorder::OpInputRecorder(const char* op, const char* section)
    : HookChain("OpInputRecorder"), op_(op), section_(section) {}

std::vector<Tensor> OpInputRecorder::take() {
  std::vector<Tensor> out;
  out.swap(inputs_);
  return out;
}

// Before the op computes: the input is as the op will read it. The engine keeps an op's
// inputs in call.inputs() whenever a hook is on, grad mode or not.
void OpInputRecorder::op_started(OpCall& call) {
  pass_op_started(call);
  OpInputRecorder& r = *active();
  if (std::strcmp(call.name(), r.op_) != 0 || call.inputs().empty()) return;
  if (current_section().find(r.section_) == std::string::npos) return;
  const Node& x = *call.inputs()[0];
  const float* p = x.data.get();
  r.inputs_.push_back(tensor(std::vector<float>(p, p + x.numel()), x.shape));
}

void OpInputRecorder::op_finished(OpCall& call, Node& y, BackwardFn& backward) { pass_op_finished(call, y, backward); }

void OpInputRecorder::run_node_backward(Node& y) { pass_run_node_backward(y); }

}  // namespace d2l
