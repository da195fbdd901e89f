// core/creation.h — making tensors: the book's torch.zeros, torch.ones, torch.arange,
// torch.normal, torch.tensor, ... (empty, the uninitialised one the ops use, is in
// core/tensor.h). Defined in core/tensor.cpp; the random ones draw from the seeded generator
// of core/random.h, so runs reproduce.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "core/tensor.h"

namespace d2l {

Tensor zeros(const Shape& shape);
Tensor ones(const Shape& shape);
Tensor full(const Shape& shape, float value);
Tensor arange(int64_t end);                             // 0, 1, ..., end-1 as float
Tensor arange(float start, float end, float step = 1.0f);
Tensor eye(int64_t n);
Tensor normal(float mean, float std, const Shape& shape);  // d2l.normal: seeded generator
Tensor rand(const Shape& shape);                           // uniform [0, 1)
// torch.randint(low, high, size): integers uniform in [low, high), stored as floats (so
// |low| and |high| are at most 2^24, where float32 still holds every integer).
Tensor randint(int64_t low, int64_t high, const Shape& shape);
Tensor tensor(const std::vector<float>& values, const Shape& shape);
Tensor tensor(std::initializer_list<float> values);        // 1-D
Tensor tensor(std::initializer_list<std::initializer_list<float>> rows);  // 2-D
Tensor zeros_like(const Tensor& x);
Tensor ones_like(const Tensor& x);

}  // namespace d2l
