// core/nn/init.h — initialisers: fill a parameter in place from the seeded generator
// (core/random.h), with torch.nn.init's names and formulas. Layers call them in their
// constructors (core/nn/basic.cpp); train_seq2seq re-initialises with xavier_uniform_.
#pragma once
#include "core/tensor.h"

namespace d2l {

void uniform_(Tensor& t, float a, float b);      // every element ~ U(a, b)
void normal_(Tensor& t, float mean, float std);  // every element ~ N(mean, std²)
void xavier_uniform_(Tensor& t);  // U(-a, a), a = sqrt(6 / (fan_in + fan_out)); t is (out, in)
// nn.Linear's default: weight and bias ~ U(-1/sqrt(in_features), 1/sqrt(in_features)).
void linear_default_init_(Tensor& weight, Tensor& bias);

}  // namespace d2l
