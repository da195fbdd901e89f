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

  std::vector<std::pair<std::string, Tensor>> named_parameters() const;
  std::vector<Tensor> parameters() const;
  int64_t num_parameters() const;  // total element count

  void train(bool on = true);  // sets training() on this module and every child
  void eval() { train(false); }
  bool training() const { return training_; }
  void zero_grad(bool set_to_none = true);  // Tensor::zero_grad on every parameter

  // Parameter files (core/param_file.h): a header, every parameter's name, shape and data,
  // and a checksum. save() writes a unique temporary next to the target and renames it over
  // the target (never over a link, FIFO or device); load() checks the file's type, header,
  // size, checksum, names, shapes and values before touching any parameter. These two record
  // no settings; programs that do (the chapters' --save) call save_param_file directly.
  void save(const std::string& path) const;
  void load(const std::string& path);

 protected:
  Tensor& register_parameter(const std::string& name, Tensor value);  // sets requires_grad
  void register_module(const std::string& name, Module& child);

 private:
  std::vector<std::pair<std::string, Tensor>> params_;
  std::vector<std::pair<std::string, Module*>> children_;
  bool training_ = true;
};

}  // namespace d2l
