// core/nn/layer.h — Layer<L>: what every layer of the book's chapters shares, written once.
//
// PyTorch runs a layer by calling it, net(X), and nn.Module.__call__ runs forward. Here a
// layer derives from Layer<itself> and writes only forward and the book section it
// implements:
//
//   class AddNorm : public Layer<AddNorm> {
//    public:
//     static constexpr const char* section = "10.7 AddNorm";
//     Tensor forward(const Tensor& X, const Tensor& Y) const;
//   };
//
// Layer's operator() opens a SectionScope with that label (core/debug/debug.h: the trace,
// the profile's layer table, the numerics check and to_dot name the layer whose ops ran,
// nested layers nesting) and calls forward with the same arguments, default arguments
// included. forward itself opens no scope, so call the layer, net(X), as the book does.
// (The arguments pass through a template, so a braced list needs its type written:
// lstm(X, LSTMState{H, C}).)
//
// A layer built on another module class derives from Layer<itself, Base>. When callers hold
// it through an abstract base (an Encoder, a Decoder, an attention pooling), that base's own
// operator() opens the scope, reading the label through the virtual section_name() that
// Layer supplies.
#pragma once
#include <type_traits>
#include <utility>

#include "core/debug/debug.h"
#include "core/nn/module.h"

namespace d2l {

// Base = Module (or a module such as Sequential): Layer's operator() opens the scope.
template <class L, class Base = Module, class = void>
class Layer : public Base {
 public:
  template <class... Args>
  decltype(auto) operator()(Args&&... args) {
    SectionScope scope(L::section);
    return static_cast<L&>(*this).forward(std::forward<Args>(args)...);
  }
  template <class... Args>
  decltype(auto) operator()(Args&&... args) const {
    SectionScope scope(L::section);
    return static_cast<const L&>(*this).forward(std::forward<Args>(args)...);
  }
  const char* section_name() const { return L::section; }
};

// Base with a virtual section_name() (Encoder, Decoder, AttentionPooling): Base's
// operator() opens the scope; Layer tells it the label.
template <class L, class Base>
class Layer<L, Base, std::void_t<decltype(&Base::section_name)>> : public Base {
 public:
  using Base::Base;
  const char* section_name() const override { return L::section; }
};

}  // namespace d2l
