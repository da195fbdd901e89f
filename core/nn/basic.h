// core/nn/basic.h — the PyTorch building blocks the book's attention layers are made of:
// nn.Linear, nn.Dropout, nn.Embedding and nn.LayerNorm, with PyTorch's parameter names,
// shapes and default initialisation, so a layer here lines up with the book's PyTorch tab;
// and the parameter-free nn.ReLU, nn.Flatten and nn.Sequential, which the book's models
// register as children, so that printing a model (core/nn/module.h) shows PyTorch's tree.
//
// Each class is a Module (core/nn/module.h): its constructor registers the parameters under
// PyTorch's names (weight, bias), and train()/eval() switch Dropout on and off.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/nn/layer.h"
#include "core/nn/module.h"
#include "core/tensor.h"

namespace d2l {

// nn.Linear(in_features, out_features, bias): y = x Wᵀ + b.
// x (..., in_features) -> (..., out_features). weight (out_features, in_features) as PyTorch
// stores it; bias (out_features,), or undefined when bias = false (the book's attention
// layers use bias=False throughout). Both start U(-1/√in, 1/√in), nn.Linear's default.
class Linear : public Layer<Linear> {
 public:
  static constexpr const char* section = "Linear";
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  Tensor forward(const Tensor& x) const;
  std::string extra_repr() const override;  // "in_features=100, out_features=100, bias=False"

  int64_t in_features, out_features;
  Tensor weight, bias;
};

// nn.Dropout(p): in training, zeroes each element with probability p and scales the rest by
// 1/(1-p) (inverted dropout, so the expectation is unchanged); in eval mode the identity.
// Any shape -> the same shape.
class Dropout : public Layer<Dropout> {
 public:
  static constexpr const char* section = "Dropout";
  explicit Dropout(float p);
  Tensor forward(const Tensor& x) const;
  std::string extra_repr() const override;  // "p=0.5, inplace=False"

  float p;
};

// nn.Embedding(vocab_size, embed_size): row lookup in weight (vocab_size, embed_size),
// initialised N(0, 1) as PyTorch does. indices (...) holding token ids -> (..., embed_size).
class Embedding : public Layer<Embedding> {
 public:
  static constexpr const char* section = "Embedding";
  Embedding(int64_t vocab_size, int64_t embed_size);
  Tensor forward(const Tensor& indices) const;
  std::string extra_repr() const override;  // "vocab_size, embed_size"

  int64_t vocab_size, embed_size;
  Tensor weight;
};

// nn.LayerNorm(normalized_shape, eps): normalises over the trailing dims given by
// normalized_shape, then scales by weight and shifts by bias (both normalized_shape,
// starting at ones and zeros). x (..., *normalized_shape) -> the same shape.
class LayerNorm : public Layer<LayerNorm> {
 public:
  static constexpr const char* section = "LayerNorm";
  explicit LayerNorm(Shape normalized_shape, float eps = 1e-5f);
  explicit LayerNorm(int64_t normalized_shape, float eps = 1e-5f) : LayerNorm(Shape{normalized_shape}, eps) {}
  Tensor forward(const Tensor& x) const;
  std::string extra_repr() const override;  // "(32,), eps=1e-05, elementwise_affine=True"

  Shape normalized_shape;
  float eps;
  Tensor weight, bias;
};

// nn.ReLU(): max(x, 0) element-wise; prints as "ReLU()".
class ReLU : public Module {
 public:
  Tensor forward(const Tensor& x) const;
  Tensor operator()(const Tensor& x) const { return forward(x); }
};

// nn.Flatten(start_dim, end_dim): merges dims start_dim..end_dim into one (negative dims count
// from the end, as PyTorch's). (d0, d1, d2) with the defaults 1, -1 -> (d0, d1 * d2).
class Flatten : public Module {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1) : start_dim(start_dim), end_dim(end_dim) {}
  Tensor forward(const Tensor& x) const;
  Tensor operator()(const Tensor& x) const { return forward(x); }
  std::string extra_repr() const override;  // "start_dim=1, end_dim=-1"
  int64_t start_dim, end_dim;
};

// nn.Sequential as the book's 10.7 uses it: a named list of blocks (blks.add_module("block0",
// ...)), so parameter names read "blks.block0.attention.W_q.weight" and the model prints
// "(blks): Sequential(...)". It owns its blocks, all of type B, and has no forward: the
// layers that hold one call each block themselves (the blocks' forwards take different
// arguments). The callable nn.Sequential of steps is core/nn/container.h's.
//   for (int i = 0; i < num_layers; ++i) blks.add("block" + std::to_string(i), ...);
//   for (auto& blk : blks) H = (*blk)(H, valid_lens);
template <class B>
class Blocks : public Module {
 public:
  template <class... Args>
  B& add(const std::string& name, Args&&... args) {
    blocks_.push_back(&add_module<B>(name, std::forward<Args>(args)...));
    return *blocks_.back();
  }
  std::string type_name() const override { return "Sequential"; }
  size_t size() const { return blocks_.size(); }
  B* operator[](size_t i) const { return blocks_.at(i); }
  B* back() const { return blocks_.back(); }
  auto begin() const { return blocks_.begin(); }
  auto end() const { return blocks_.end(); }

 private:
  std::vector<B*> blocks_;
};

}  // namespace d2l
