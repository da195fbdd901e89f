// core/engine/checks.cpp — what run_backward (core/autograd.cpp) refuses, and the messages
// that say why: a graph an earlier backward() freed, and a tensor written between the
// forward pass that read it and the backward pass that needs it (the version counter).
#include <sstream>
#include <string>

#include "core/autograd.h"
#include "core/engine/bookkeeping.h"
#include "core/shape.h"  // check
#include "core/nn/module.h"  // parameter_name

namespace d2l {
namespace {

// "parameter 'dense.weight' of shape (10, 32)", "a leaf tensor of shape (2, 4)", "the output
// of 'softmax' of shape (2, 4)".
std::string describe(const Node& t) {
  std::ostringstream os;
  // The registered path while its modules live ("encoder.embedding.weight", core/nn/module.h),
  // else the name the last named_parameters() call recorded.
  const std::string registered = parameter_name(&t);
  const std::string& name = registered.empty() ? t.name : registered;
  if (!name.empty()) os << "parameter '" << name << "'";
  else if (std::string(t.op) == "leaf") os << "a leaf tensor";
  else os << "the output of '" << t.op << "'";
  os << " of shape " << shape_str(t.shape);
  return os.str();
}

}  // namespace

// A freed node has no inputs left, like a leaf, so only its flag tells the two apart.
void check_not_freed(const Node& root) {
  check(!root.book->freed, "backward", "the graph behind this tensor (made by '", root.op, "', shape ", root.shape,
        ") was already freed by an earlier backward()");
}

// A freed input would silently stop the gradient there (its own inputs are unlinked).
void check_input_not_freed(const Node& node, const Node& in) {
  if (in.book->freed)
    fail("backward", "input ", in.shape, " of '", node.op, "' (made by '", in.op,
         "') was freed by an earlier backward() through it");
}

// PyTorch's check ("one of the variables needed for gradient computation has been modified
// by an inplace operation"): every tensor an op read, and the output it wrote, must still
// hold the data the op saw, since its backward computes from them. PyTorch checks only the
// tensors each backward saves; checking all of them is simpler to state and refuses a few
// programs PyTorch accepts (a tensor only an addition read, written before backward).
void check_versions(const Node& n) {
  for (size_t i = 0; i < n.book->saved_versions.size(); ++i) {
    const bool own = i == n.inputs.size();
    const Node* t = own ? &n : n.inputs[i].get();
    // Freed data (no backward reads it, no handle can write it) has nothing to check.
    if (!t || t->book->data_freed || t->data.version() == n.book->saved_versions[i]) continue;
    std::ostringstream which;
    if (own) which << "the output of '" << n.op << "' (shape " << shape_str(n.shape) << ")";
    else which << "input " << i << " of '" << n.op << "', " << describe(*t) << ",";
    fail("backward", which.str(), " was written after '", n.op, "' ", own ? "computed" : "read",
         " it (data version ", t->data.version(), ", '", n.op, "' saw ", n.book->saved_versions[i],
         "), so its gradient would be computed from the new values. Write to a tensor before the forward that ",
         "uses it or after backward() (e.g. optimizer.step() after loss.backward()), not in between");
  }
}

}  // namespace d2l
