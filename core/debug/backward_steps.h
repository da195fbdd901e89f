// core/debug/backward_steps.h — the backward pass kept step by step, for a reader to step
// through (the companion pages' backward view, build/tools/backward_steps): the graph a
// forward recorded, with every op's output value, then each backward step in the order the
// engine runs it, with the gradient arriving at the op's output and what the op sent to each
// of its inputs. The numbers D2L_TRACE=2 prints as norms (core/debug/debug.h), kept whole.
//
//   BackwardRecorder rec;               // from before the forward ...
//   Tensor y = layer(queries, keys, values, valid_lens);
//   rec.take_graph(y);                  // ... to just before the backward
//   y.backward(seed);
//   for (const BackwardStep& s : rec.steps()) ... rec.graph()[s.node] ...
//
// It hangs on the engine's one hook (engine_hook, core/autograd.h) while it lives, passing
// every call on to the debug switches' hook when one is on, so the trace still prints.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/autograd.h"
#include "core/debug/hook_chain.h"

namespace d2l {

// One node of the recorded graph: an op's output, or a leaf (data, a parameter).
struct RecordedNode {
  std::string op;               // the engine's name for the op ("bmm", "masked_softmax"), "leaf" for a leaf
  std::string name;             // a leaf's name (a parameter's registered name, or one given to take_graph)
  std::string section;          // the layers the op ran in ("10.5 MultiHeadAttention > Linear"), or ""
  Shape shape;
  std::vector<float> value;     // the output as the forward computed it
  std::vector<int> inputs;      // indices into the graph, in the op's input order (-1: none)
  bool requires_grad = false;   // the backward reaches it
  int forward_index = -1;       // the op's place in the forward (0 first), -1 for a leaf
};

// One step of the backward: node `node`'s op ran its backward.
struct BackwardStep {
  int node = -1;
  std::vector<float> grad;                // d(loss)/d(output) as it arrived
  std::vector<std::vector<float>> sent;   // per input position: what this step added into that
                                          // input's gradient; empty when it sent none (no grad,
                                          // or the same input listed at an earlier position)
};

class BackwardRecorder : public HookChain<BackwardRecorder> {
 public:
  BackwardRecorder();   // installs the hook: ops run from now on keep their values

  // The graph behind root, leaves included, ops in forward order; call it after the forward,
  // before backward() frees the graph. `names` names leaves that are not parameters.
  void take_graph(const Tensor& root, const std::map<const Node*, std::string>& names = {});
  const std::vector<RecordedNode>& graph() const { return graph_; }
  const std::vector<BackwardStep>& steps() const { return steps_; }
  int index_of(const Node* n) const;  // -1 when n is not in the graph

 private:
  friend class HookChain<BackwardRecorder>;
  struct Forward {
    std::vector<float> value;
    std::string section;
    int index;
  };
  static void op_started(OpCall& call);
  static void op_finished(OpCall& call, Node& y, BackwardFn& backward);
  static void run_node_backward(Node& y);

  std::map<const Node*, Forward> forward_;  // a node's latest op (a freed node's address may come back)
  int ops_run_ = 0;
  std::map<const Node*, int> index_;
  std::vector<RecordedNode> graph_;
  std::vector<BackwardStep> steps_;
};

}  // namespace d2l
