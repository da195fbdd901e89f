// core/kernels/reference/kernels.h — the reference tier, d2l::reference: every kernel of the seam as
// plain loops (declared by core/kernels/seam.h from core/kernels/list.h, where each one's sizes
// and shapes are written out), and tensor memory straight from the system.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/kernels/list.h"

namespace d2l {
namespace reference {

using kernels::Binary;
using kernels::Broadcast;
using kernels::Compare;
using kernels::Unary;

// allocator.cpp: tensor memory (core/engine/allocator.h)
float* allocate_floats(size_t n);
void release_floats(float* p, size_t n);
void* allocate_object(size_t bytes);
void release_object(void* p, size_t bytes);

// tanh of a float, computed in double and rounded: the C libraries' float tanhf differ in
// the last bit (glibc's natively, musl's in the engine compiled for the pages), while their
// double tanh rounded to float agree, so the pages train as the native reference tier does,
// loss for loss.
inline float tanh_float(float x) { return static_cast<float>(std::tanh(static_cast<double>(x))); }

}  // namespace reference
}  // namespace d2l
