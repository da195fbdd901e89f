// core/kernels/reference/kernels.h — the reference tier, d2l::reference: every kernel of the seam as
// plain loops (declared by core/kernels/seam.h from core/kernels/list.h, where each one's sizes
// and shapes are written out), and tensor memory straight from the system.
#pragma once
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

}  // namespace reference
}  // namespace d2l
