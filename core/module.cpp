// core/module.cpp — parameter registry, train/eval, and parameter files.
#include "core/module.h"

#include "core/param_file.h"

namespace d2l {

std::vector<std::pair<std::string, Tensor>> Module::named_parameters() const {
  std::vector<std::pair<std::string, Tensor>> out = params_;
  for (const auto& [name, child] : children_)
    for (auto& [sub, t] : child->named_parameters()) out.emplace_back(name + "." + sub, t);
  return out;
}

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> out;
  for (auto& [name, t] : named_parameters()) out.push_back(t);
  return out;
}

int64_t Module::num_parameters() const {
  int64_t n = 0;
  for (const Tensor& t : parameters()) n += t.numel();
  return n;
}

void Module::train(bool on) {
  training_ = on;
  for (auto& [name, child] : children_) child->train(on);
}

void Module::zero_grad(bool set_to_none) {
  for (Tensor& t : parameters()) t.zero_grad(set_to_none);
}

Tensor& Module::register_parameter(const std::string& name, Tensor value) {
  check(value.defined(), "Module.register_parameter", "parameter '", name, "' is undefined");
  value.requires_grad_(true);
  params_.emplace_back(name, std::move(value));
  return params_.back().second;
}

void Module::register_module(const std::string& name, Module& child) { children_.emplace_back(name, &child); }

// --- parameter files (the format is core/param_file.cpp's) ---------------------------------
void Module::save(const std::string& path) const { save_param_file(path, *this, {}); }

void Module::load(const std::string& path) { copy_parameters(read_param_file(path, *this, {}), *this); }

}  // namespace d2l
