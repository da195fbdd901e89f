// core/nn/container.h — modules that hold other modules in a list: PyTorch's nn.ModuleList and
// nn.Sequential, which the book uses to stack layers (e.g. the MLP of 15.5,
// nn.Sequential(nn.Dropout(0.2), nn.Linear(...), nn.ReLU(), ...)).
//
// A Module registers its children by address (core/nn/module.h), so the containers own theirs:
// each append constructs the module in place and registers it under its index, "0", "1",
// ..., as PyTorch names them; named_parameters() then yields "0.weight", "1.bias", ....
//
//   Sequential net;
//   net.add<Dropout>(0.2f);
//   net.add<Linear>(100, 200);
//   net.add(relu);               // a parameter-free step (nn.ReLU) still takes an index
//   Tensor y = net(X);           // the steps in order
//
//   ModuleList blocks;           // any modules; the caller decides how to run them
//   for (int i = 0; i < 2; ++i) blocks.append<EncoderBlock>(...);
//   EncoderBlock& b0 = blocks.get<EncoderBlock>(0);
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/nn/module.h"

namespace d2l {

// nn.ModuleList: owns its modules, in order, registered as children "0", "1", ....
class ModuleList : public Module {
 public:
  // Constructs an M from `args`, registers it under the next index and returns it.
  template <class M, class... Args>
  M& append(Args&&... args) {
    static_assert(std::is_base_of<Module, M>::value, "ModuleList holds Modules");
    auto owned = std::make_unique<M>(std::forward<Args>(args)...);
    M& m = *owned;
    adopt(std::move(owned));
    return m;
  }
  size_t size() const { return modules_.size(); }
  Module& operator[](size_t i) const;  // bounds-checked
  // The module at i as the type it was appended as; a wrong type is an error naming both.
  template <class M>
  M& get(size_t i) const {
    M* m = dynamic_cast<M*>(&(*this)[i]);
    check(m != nullptr, "ModuleList", "module ", i, " is not of the requested type");
    return *m;
  }

 protected:
  void adopt(std::unique_ptr<Module> m);  // registers under str(size()) and keeps it

 private:
  std::vector<std::unique_ptr<Module>> modules_;
};

// nn.Sequential: a ModuleList whose modules each map one tensor to one tensor, called in
// order by forward(). A module needs `Tensor operator()(const Tensor&)` (Linear, Dropout,
// LayerNorm, Embedding, a Sequential ...).
class Sequential : public ModuleList {
 public:
  using Step = std::function<Tensor(const Tensor&)>;

  template <class M, class... Args>
  M& add(Args&&... args) {
    M& m = append<M>(std::forward<Args>(args)...);
    steps_.push_back([&m](const Tensor& x) { return m(x); });
    return m;
  }
  // A parameter-free step such as relu: wrapped in a module with no parameters, so it takes
  // an index as nn.ReLU() does and the later modules keep PyTorch's numbering.
  Sequential& add(Tensor (*fn)(const Tensor&));
  Sequential& add(Step fn);

  Tensor forward(const Tensor& x) const;  // the steps in order; an empty Sequential returns x
  Tensor operator()(const Tensor& x) const { return forward(x); }

 private:
  std::vector<Step> steps_;
};

// The module behind Sequential::add(fn): no parameters, calls fn.
class Lambda : public Module {
 public:
  explicit Lambda(Sequential::Step fn);
  Tensor operator()(const Tensor& x) const { return fn_(x); }

 private:
  Sequential::Step fn_;
};

}  // namespace d2l
