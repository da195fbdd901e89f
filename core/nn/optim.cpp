// core/nn/optim.cpp — SGD, Adam and gradient clipping (PyTorch's semantics).
#include "core/nn/optim.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

#include "core/shape.h"  // check
#include "core/debug/debug.h"
#include "core/engine/gradient_leaves.h"
#include "core/kernels/optim.h"
#include "core/nn/module.h"  // parameter_name

namespace d2l {

namespace {
// Every optimiser alive, for check_stray_leaves.
std::mutex g_optimizers_mutex;
std::vector<const Optimizer*> g_optimizers;
void register_optimizer(const Optimizer* o) {
  std::lock_guard<std::mutex> lock(g_optimizers_mutex);
  g_optimizers.push_back(o);
}
}  // namespace

Optimizer::Optimizer(std::vector<Tensor> params, const char* op) : params_(std::move(params)), op_(op) {
  std::unordered_map<const Node*, size_t> first;
  for (size_t i = 0; i < params_.size(); ++i) {
    check(params_[i].defined(), op, "parameter ", i, " is undefined");
    const auto [at, fresh] = first.emplace(params_[i].node(), i);
    check(fresh, op, "parameter ", i, " is the same tensor as parameter ", at->second, " (shape ",
          params_[i].shape(), "): one step would move it twice; list it once (Module::parameters() does)");
  }
  register_optimizer(this);
  gradient_leaves_consumed();  // backward passes before this optimiser were not for its steps
}

namespace {
// "lr must be >= 0, got -0.1": NaN fails every comparison, so it is refused too.
void check_hyper(bool ok, const char* op, const char* name, const char* rule, float value) {
  check(ok, op, name, " must be ", rule, ", got ", value);
}
}  // namespace


Optimizer::Optimizer(const Optimizer& other) : params_(other.params_), op_(other.op_) { register_optimizer(this); }

Optimizer::~Optimizer() {
  std::lock_guard<std::mutex> lock(g_optimizers_mutex);
  g_optimizers.erase(std::remove(g_optimizers.begin(), g_optimizers.end(), this), g_optimizers.end());
}

void Optimizer::check_stray_leaves() {
  if (stray_warning_.empty() && !last_backward_leaves().empty()) {  // said once is enough
    stray_warning_ = find_stray_leaves();
    if (!stray_warning_.empty()) std::fprintf(stderr, "warning: %s\n", stray_warning_.c_str());
  }
  gradient_leaves_consumed();  // the next backward pass starts the next step's list
}

std::string Optimizer::find_stray_leaves() const {
  std::vector<Tensor> claimed;  // this optimiser's parameters first, then the others'
  {
    std::lock_guard<std::mutex> lock(g_optimizers_mutex);
    claimed = params_;
    for (const Optimizer* o : g_optimizers)
      if (o != this) claimed.insert(claimed.end(), o->params_.begin(), o->params_.end());
  }
  // A backward that reached none of this optimiser's parameters was another model's.
  std::unordered_set<const Node*> reached;
  for (const ReachedLeaf& leaf : last_backward_leaves()) reached.insert(leaf.node);
  size_t hit = 0;
  for (const Tensor& p : params_) hit += reached.count(p.node());
  if (hit == 0) return "";
  if (std::string stray = stray_gradient_leaves(claimed, op_); !stray.empty()) return stray;
  // The other way round: a parameter the passes did not reach while others were. The usual
  // cause is a weight handle replaced by a tensor that needs no gradient (`layer.weight =
  // normal(...)`): the forward reads that one, frozen, while this optimiser and save() keep
  // the registered one, so the saved model computes something else.
  std::string list;
  size_t missed = 0;
  for (const Tensor& p : params_)
    if (!reached.count(p.node())) {
      const std::string name = parameter_name(p);
      if (missed < 8) list += std::string(missed ? "; " : "") + (name.empty() ? "a parameter" : "'" + name + "'") + " " +
                              shape_str(p.shape());
      ++missed;
    }
  if (missed == 0) return "";
  if (missed > 8) list += "; and " + std::to_string(missed - 8) + " more";
  return "[" + std::string(op_) + ".step] " + std::to_string(missed) + (missed == 1 ? " parameter" : " parameters") +
         " received no gradient in the backward passes since the last step, while " + std::to_string(hit) +
         " others did: " + list +
         ". A weight replaced after construction by a tensor that needs no gradient (layer.weight = t)? The "
         "forward then reads t, which never trains, while this optimiser and Module::save keep the registered "
         "tensor: write t's values into the registered one (its data()) instead of replacing it.";
}

void Optimizer::zero_grad(bool set_to_none) {
  for (Tensor& p : params_) p.zero_grad(set_to_none);
}

SGD::SGD(std::vector<Tensor> params, float lr_) : Optimizer(std::move(params), "SGD"), lr(lr_) { validate(); }

// The settings are public (a schedule may change lr between steps), so step() checks them again.
void SGD::validate() const { check_hyper(lr >= 0.0f && std::isfinite(lr), "SGD", "lr", ">= 0 and finite", lr); }

void SGD::step() {
  validate();
  check_stray_leaves();
  ProfileRegion timed("SGD.step");  // the profile's step table (D2L_PROFILE)
  for (Tensor& p : params_)
    if (const float* g = p.grad_data()) {
      float* w = p.data();  // one write of the tensor (one version bump), not one per element
      const int64_t n = p.numel();
      for (int64_t i = 0; i < n; ++i) w[i] -= lr * g[i];
    }
}

Adam::Adam(std::vector<Tensor> params, float lr_, float b1, float b2, float eps_, float wd)
    : Optimizer(std::move(params), "Adam"), lr(lr_), beta1(b1), beta2(b2), eps(eps_), weight_decay(wd) {
  validate();
  for (const Tensor& p : params_) {
    m_.emplace_back(static_cast<size_t>(p.numel()), 0.0f);
    v_.emplace_back(static_cast<size_t>(p.numel()), 0.0f);
  }
}

// torch.optim.Adam's checks: 0 <= lr, 0 <= betas < 1, 0 <= weight_decay, and eps > 0 (PyTorch
// allows 0, which divides 0 by 0 for a parameter whose gradient is 0).
void Adam::validate() const {
  check_hyper(lr >= 0.0f && std::isfinite(lr), "Adam", "lr", ">= 0 and finite", lr);
  check_hyper(beta1 >= 0.0f && beta1 < 1.0f, "Adam", "beta1", "in [0, 1)", beta1);
  check_hyper(beta2 >= 0.0f && beta2 < 1.0f, "Adam", "beta2", "in [0, 1)", beta2);
  check_hyper(eps > 0.0f && std::isfinite(eps), "Adam", "eps", "> 0 and finite", eps);
  check_hyper(weight_decay >= 0.0f && std::isfinite(weight_decay), "Adam", "weight_decay", ">= 0 and finite",
              weight_decay);
}

// Exactly torch.optim.Adam's order of operations (single-tensor path), so the same
// gradients give the same parameters to float rounding. The per-element update is the
// seam's adam_step (core/kernels/reference/optim.cpp reads as the formulas; core/kernels/fast/optim.cpp
// is the same loop, vectorised).
void Adam::step() {
  validate();
  check_stray_leaves();
  ProfileRegion timed("Adam.step");  // the profile's step table (D2L_PROFILE)
  ++t_;
  const float bc1 = 1.0f - std::pow(beta1, static_cast<float>(t_));
  const float bc2 = 1.0f - std::pow(beta2, static_cast<float>(t_));
  const float step_size = lr / bc1, bc2_sqrt = std::sqrt(bc2);
  for (size_t k = 0; k < params_.size(); ++k) {
    Tensor& p = params_[k];
    const float* g = p.grad_data();
    if (!g) continue;  // PyTorch skips parameters that got no gradient
    kernels::adam_step(p.data(), m_[k].data(), v_[k].data(), g, p.numel(), beta1, beta2, eps, weight_decay, step_size,
                       bc2_sqrt);
  }
}

AdamState Adam::state() const { return AdamState{lr, beta1, beta2, eps, weight_decay, t_, m_, v_}; }

void Adam::load_state(const AdamState& s) {
  const char* op = "Adam.load_state";
  // Bit-exact comparison: a resumed run continues exactly only with the same numbers.
  auto same = [op](const char* name, float saved, float mine) {
    check(saved == mine, op, "the saved ", name, " is ", saved, ", this optimiser's is ", mine);
  };
  same("lr", s.lr, lr), same("beta1", s.beta1, beta1), same("beta2", s.beta2, beta2);
  same("eps", s.eps, eps), same("weight_decay", s.weight_decay, weight_decay);
  check(s.step >= 0, op, "step count ", s.step, " is negative");
  check(s.m.size() == params_.size() && s.v.size() == params_.size(), op, "the state has moments for ", s.m.size(),
        " and ", s.v.size(), " parameters, the optimiser has ", params_.size());
  for (size_t k = 0; k < params_.size(); ++k)
    check(static_cast<int64_t>(s.m[k].size()) == params_[k].numel() &&
              static_cast<int64_t>(s.v[k].size()) == params_[k].numel(),
          op, "moments of parameter ", k, " have ", s.m[k].size(), " and ", s.v[k].size(),
          " values, the parameter has shape ", params_[k].shape());
  t_ = s.step;
  m_ = s.m;
  v_ = s.v;
}

// The book's grad_clipping (9.5): one global norm over all parameters' gradients.
float clip_grad_norm(const std::vector<Tensor>& params, float max_norm) {
  ProfileRegion timed("clip_grad_norm");
  // Σ g² in double (no float overflow), in a fixed order: deterministic. Four partial sums
  // (part l takes each gradient's elements i with i mod 4 = l, part 0 also a tensor's last
  // numel mod 4; then added in that order) rather than one: a single
  // running sum is a chain of dependent adds, 4 cycles per element, which the compiler may
  // not reorder; four chains run side by side and vectorise.
  double part[4] = {0.0, 0.0, 0.0, 0.0};
  for (const Tensor& p : params)
    if (const float* g = p.grad_data()) {
      const int64_t n = p.numel();
      int64_t i = 0;
      for (; i + 4 <= n; i += 4)
        for (int l = 0; l < 4; ++l) part[l] += static_cast<double>(g[i + l]) * g[i + l];
      for (; i < n; ++i) part[0] += static_cast<double>(g[i]) * g[i];
    }
  const double sq = (part[0] + part[1]) + (part[2] + part[3]);
  const float norm = static_cast<float>(std::sqrt(sq));
  if (norm > max_norm) {
    const float scale = max_norm / norm;
    for (Tensor p : params)
      if (float* g = p.grad_data()) {
        const int64_t n = p.numel();
        for (int64_t i = 0; i < n; ++i) g[i] *= scale;
      }
  }
  return norm;
}

}  // namespace d2l
