// core/nn/optim.h — SGD and Adam with PyTorch's update rules, and gradient clipping.
#pragma once
#include <string>
#include <vector>

#include "core/tensor.h"

namespace d2l {

// Every optimiser checks its settings when it is made, naming itself: a negative learning
// rate would climb the loss, betas outside [0, 1) or eps <= 0 break Adam's averages, and a
// negative weight decay pushes weights away from 0. A parameter listed twice (by hand, e.g.
// a tied weight) is refused too: one step() would move it twice. Module::parameters() lists
// each tensor once.
class Optimizer {
 public:
  // `op` names the optimiser in errors ("SGD", "Adam").
  Optimizer(std::vector<Tensor> params, const char* op);
  // Each optimiser alive is known to the others: a model split between two of them (one per
  // part, each with its own learning rate) leaves no tensor unclaimed (check_stray_leaves).
  Optimizer(const Optimizer& other);
  Optimizer& operator=(const Optimizer&) = default;
  virtual ~Optimizer();
  virtual void step() = 0;
  void zero_grad(bool set_to_none = true);  // Tensor::zero_grad on every parameter
  const std::vector<Tensor>& params() const { return params_; }
  // The warning step() printed (once), or "": about tensors that received a gradient in the
  // backward passes since the last step but are not among params() (core/engine/gradient_leaves.h),
  // or else about parameters those passes did not reach while they reached others.
  const std::string& stray_warning() const { return stray_warning_; }

 protected:
  // Each step() calls it first: until it has warned once, compares the leaves the backward
  // passes since the last step reached with the parameters of every optimiser alive and
  // prints "warning: ..." to stderr (find_stray_leaves); then starts the next step's list.
  void check_stray_leaves();
  std::string find_stray_leaves() const;
  std::vector<Tensor> params_;

 private:
  const char* op_;
  std::string stray_warning_;
};

// torch.optim.SGD without momentum: p -= lr * grad.
class SGD : public Optimizer {
 public:
  SGD(std::vector<Tensor> params, float lr);
  void step() override;
  float lr;

 private:
  void validate() const;  // lr >= 0 and finite
};

// What Adam carries from one step to the next (PyTorch's optimizer.state_dict()): its
// hyper-parameters, the step count t and both moments of every parameter, in the order of
// params(). Saved with the model, it lets a stopped run continue exactly.
struct AdamState {
  float lr = 0, beta1 = 0, beta2 = 0, eps = 0, weight_decay = 0;
  int64_t step = 0;
  std::vector<std::vector<float>> m, v;
};

// torch.optim.Adam (no amsgrad): m = b1 m + (1-b1) g; v = b2 v + (1-b2) g²;
// p -= lr * (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + eps). Weight decay adds wd * p to g.
class Adam : public Optimizer {
 public:
  Adam(std::vector<Tensor> params, float lr = 1e-3f, float beta1 = 0.9f, float beta2 = 0.999f,
       float eps = 1e-8f, float weight_decay = 0.0f);
  void step() override;
  float lr, beta1, beta2, eps, weight_decay;

  AdamState state() const;
  // Continues from a saved state: the hyper-parameters must be this optimiser's and every
  // moment must have its parameter's size (std::invalid_argument "[Adam.load_state] ...").
  void load_state(const AdamState& state);

 private:
  void validate() const;  // lr >= 0, betas in [0, 1), eps > 0, weight_decay >= 0 (all finite)
  std::vector<std::vector<float>> m_, v_;
  int64_t t_ = 0;
};

// The book's grad_clipping (and torch.nn.utils.clip_grad_norm_): if the global L2 norm of
// all gradients exceeds max_norm, scale them all by max_norm / norm. Returns the norm.
float clip_grad_norm(const std::vector<Tensor>& params, float max_norm);

}  // namespace d2l
