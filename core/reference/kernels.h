// core/reference/kernels.h — the reference tier: every kernel of the seam
// (core/kernel_list.h, where each one's sizes and shapes are written out) as plain loops,
// in d2l::reference.
#pragma once
#include <cstdint>
#include <vector>

#include "core/kernels.h"

namespace d2l {
struct AllocatorStats;  // core/allocator.h

namespace reference {

using kernels::Binary;
using kernels::Broadcast;
using kernels::Compare;
using kernels::Unary;

// Every kernel of the seam (core/kernel_list.h, declared here in d2l::reference), defined in
// the file of core/reference/ named like its op's: elementwise.cpp (element-wise and
// comparisons), reduce.cpp, softmax.cpp, matmul.cpp, nn.cpp, gru.cpp.
#include "core/kernel_list.h"

// allocator.cpp: tensor memory (core/allocator.h)
float* allocate_floats(size_t n);
void release_floats(float* p, size_t n);
AllocatorStats allocator_stats();
void allocator_trim();
void* allocate_object(size_t bytes);
void release_object(void* p, size_t bytes);

}  // namespace reference
}  // namespace d2l
