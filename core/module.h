// core/module.h — Module: named parameters, child modules, train()/eval(), save/load.
//
// C++ cannot find a layer's parameters by looking at its attributes (PyTorch walks
// __dict__), so each constructor registers them under the book's attribute names:
//
//   struct AdditiveAttention : Module {
//     Linear W_k, W_q, w_v;  Dropout dropout;
//     AdditiveAttention(...) : W_k(...), ... { register_module("W_k", W_k); ... }
//   };
//
// named_parameters() then yields "W_k.weight", "W_q.weight", ... as PyTorch's state_dict.
// Modules register their children by address, so they are neither copyable nor movable.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace d2l {

class Module {
 public:
  Module() = default;
  virtual ~Module() = default;
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

  // Parameter files: a header ("D2LPARAM", version, count), then per parameter its name,
  // shape and data, then an FNV-1a checksum of everything before it. save() writes to a
  // temporary file and renames it, so an interrupted save leaves the old file intact;
  // load() checks names, shapes and checksum before touching any parameter.
  void save(const std::string& path) const;
  void load(const std::string& path);

 protected:
  // Registers a parameter (setting requires_grad) and returns a handle to it. The handle
  // shares the registered tensor's node, so `weight = register_parameter("weight", ...)`
  // and the registry see one tensor; it is a value, not a reference into the registry,
  // which the next registration may move.
  Tensor register_parameter(const std::string& name, Tensor value);
  // Children are registered by address: `child` must live as long as this module (a
  // member, or owned as in core/container.h). A name may be used once per module, by a
  // parameter or a child (PyTorch's "attribute already exists").
  void register_module(const std::string& name, Module& child);

 private:
  void check_new_name(const std::string& name, const char* op) const;
  std::vector<std::pair<std::string, Tensor>> params_;
  std::vector<std::pair<std::string, Module*>> children_;
  bool training_ = true;
};

}  // namespace d2l
