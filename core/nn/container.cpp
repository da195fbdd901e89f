// core/nn/container.cpp — ModuleList and Sequential (see core/nn/container.h).
#include "core/nn/container.h"

namespace d2l {

Module& ModuleList::operator[](size_t i) const {
  check(i < modules_.size(), "ModuleList", "index ", i, " out of range for a list of ", modules_.size(), " modules");
  return *modules_[i];
}

void ModuleList::adopt(std::unique_ptr<Module> m) {
  // The module lives on the heap, so its address (which register_module keeps) stays valid
  // when modules_ grows.
  register_module(std::to_string(modules_.size()), *m);
  m->train(training());  // a module appended to a list in eval mode starts in eval mode too
  modules_.push_back(std::move(m));
}

Lambda::Lambda(Sequential::Step fn) : fn_(std::move(fn)) {
  check(static_cast<bool>(fn_), "Sequential", "the function to add is empty");
}

Sequential& Sequential::add(Tensor (*fn)(const Tensor&)) {
  check(fn != nullptr, "Sequential", "the function to add is null");
  return add(Step(fn));
}

Sequential& Sequential::add(Step fn) {
  add<Lambda>(std::move(fn));
  return *this;
}

Tensor Sequential::forward(const Tensor& x) const {
  Tensor y = x;
  for (const Step& step : steps_) y = step(y);
  return y;
}

}  // namespace d2l
