// core/nn/module.h — Module: named parameters, child modules, train()/eval(), save/load.
//
// C++ cannot find a layer's parameters by looking at its attributes (PyTorch walks
// __dict__), so each constructor registers them under the book's attribute names, a
// sub-layer in the same statement that builds it (add_module):
//
//   struct AdditiveAttention : Module {
//     Linear &W_k, &W_q, &w_v;
//     AdditiveAttention(...) : W_k(add_module<Linear>("W_k", key_size, num_hiddens, false)), ... {}
//   };
//
// named_parameters() then yields "W_k.weight", "W_q.weight", ... as PyTorch's state_dict.
// Modules register their children by address, so they are neither copyable nor movable.
//
// Printing: `std::cout << net` writes what PyTorch's print(net) writes, the class name and,
// indented, each registered child as "(name): ..." in registration order; a layer adds its
// settings with extra_repr(), as nn.Module.extra_repr does (Linear: "in_features=100,
// out_features=100, bias=False"). summary(net) lists every parameter with its shape.
//
// The registrations also let the debug views name a parameter from its tensor alone:
// parameter_name(t) walks from the module that registered t up through the modules that
// registered it, giving "blks.0.attention.W_q.weight" for a weight of a TransformerEncoder.
#pragma once
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace d2l {

class Module {
 public:
  Module() = default;
  virtual ~Module();  // forgets this module's names (parameter_name)
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // Every parameter once, as PyTorch's named_parameters() and parameters(): a tensor
  // registered twice (a tied weight: one Tensor handle given to two layers, sharing its
  // node) is listed at its first name only, so an optimiser steps it once per step().
  // Order: this module's own parameters, then each child's, in registration order.
  // named_parameters() also records each parameter's dotted name in its node, so an error
  // about the tensor can name it ("encoder.embedding.weight").
  std::vector<std::pair<std::string, Tensor>> named_parameters() const;
  std::vector<Tensor> parameters() const;
  int64_t num_parameters() const;  // total element count (a shared tensor counts once)

  void train(bool on = true);  // sets training() on this module and every child
  void eval() { train(false); }
  bool training() const { return training_; }
  void zero_grad(bool set_to_none = true);  // Tensor::zero_grad on every parameter

  // Parameter files (core/io/param_file.h): a header, every parameter's name, shape and data,
  // and a checksum. save() writes a unique temporary next to the target and renames it over
  // the target (never over a link, FIFO or device); load() checks the file's type, header,
  // size, checksum, the hyper-parameters (module_hyper_parameters), names, shapes and values
  // before touching any parameter. Programs that record more settings (the chapters' --save)
  // call save_param_file directly.
  void save(const std::string& path) const;
  void load(const std::string& path);

  // PyTorch's __repr__: type_name() + "(" + extra_repr() and the children, one per line,
  // indented two spaces per level + ")". A module with neither prints "Name()".
  std::string repr() const;
  // The class name PyTorch would print: the C++ class name without its namespace.
  virtual std::string type_name() const;
  // The layer's own settings, as nn.Module.extra_repr (Linear, Dropout, ...); "" by default.
  virtual std::string extra_repr() const { return ""; }
  // The settings that change what the parameters mean without changing their shapes (a
  // MultiHeadAttention's num_heads splits the same W_q into 4 or 8 heads), as key=value
  // pairs; none by default. save() records them for every module, under its dotted name
  // ("encoder.blks.0.attention.num_heads"), and load() refuses a file whose differ.
  virtual std::vector<std::pair<std::string, std::string>> hyper_parameters() const { return {}; }
  const std::vector<std::pair<std::string, Module*>>& named_children() const { return children_; }

  // PyTorch's self.name = M(args...): builds an M, registers it as the child `name` and keeps
  // it as long as this module lives. Children are built, so their parameters drawn, in the
  // order of these calls, which is also the order they print and are saved in.
  template <class M, class... Args>
  M& add_module(const std::string& name, Args&&... args) {
    owned_.push_back(std::make_unique<M>(std::forward<Args>(args)...));
    M& child = static_cast<M&>(*owned_.back());
    register_module(name, child);
    return child;
  }
  // The same for a module built elsewhere (a factory's choice of class).
  template <class M>
  M& add_module(const std::string& name, std::unique_ptr<M> built) {
    M& child = *built;
    owned_.push_back(std::move(built));
    register_module(name, child);
    return child;
  }

 protected:
  // Registers a parameter (setting requires_grad) and returns a handle to it. The handle
  // shares the registered tensor's node, so `weight = register_parameter("weight", ...)`
  // and the registry see one tensor; it is a value, not a reference into the registry,
  // which the next registration may move.
  Tensor register_parameter(const std::string& name, Tensor value);
  // Children are registered by address: `child` must live as long as this module (a
  // member, or owned as in core/nn/container.h). A name may be used once per module, by a
  // parameter or a child (PyTorch's "attribute already exists").
  void register_module(const std::string& name, Module& child);

 private:
  void check_new_name(const std::string& name, const char* op) const;
  std::vector<std::pair<std::string, Tensor>> params_;
  std::vector<std::pair<std::string, Module*>> children_;
  bool training_ = true;
  std::vector<std::unique_ptr<Module>> owned_;  // the children add_module built
};

std::ostream& operator<<(std::ostream& os, const Module& m);  // os << m.repr()

// Every module's hyper_parameters(), keys prefixed by the module's dotted name, in the order
// named_children() walks: what Module::save records and Module::load checks.
std::vector<std::pair<std::string, std::string>> module_hyper_parameters(const Module& m);

// Every parameter by its registered dotted name, with its shape and element count, then the
// total, as a table:
//   parameter    shape       count
//   W_q.weight   (100, 100)  10000
//   ...
//   total (4 tensors)        40000
std::string summary(const Module& m);

// Python's repr of a float setting, as PyTorch's printouts show it: the shortest decimal
// that reads back as the same float, "1.0" for whole numbers, exponent form below 1e-4
// ("0.5", "0.1", "1e-05").
std::string python_float(float v);

// The registered name of a parameter, from the outermost module that (transitively)
// registered it, as that module's named_parameters() spells it: "blks.0.ffn.dense1.weight".
// "" for a tensor no living module registered. The numerics check, the backward trace and
// to_dot use it to name weights; it costs nothing per op (the names are kept at registration).
std::string parameter_name(const Node* node);
inline std::string parameter_name(const Tensor& t) { return t.defined() ? parameter_name(t.node()) : std::string(); }

}  // namespace d2l
