// core/fast/kernels.h — the fast tier: every kernel of the seam (core/kernel_list.h, where
// each one's sizes and shapes are written out), in d2l::fast. Where speed needs nothing
// beyond the plain loop (comparisons, max, sequence_mask) the fast kernel calls the
// reference one.
#pragma once
#include <cstdint>
#include <vector>

#include "core/allocator.h"
#include "core/kernels.h"
#include "core/reference/kernels.h"

namespace d2l {
namespace fast {

using kernels::Binary;
using kernels::Broadcast;
using kernels::Compare;
using kernels::Unary;

// Every kernel of the seam (core/kernel_list.h, declared here in d2l::fast), defined in
// the file of core/fast/ named like its op's: elementwise.cpp (element-wise and
// comparisons), reduce.cpp, softmax.cpp, matmul.cpp, nn.cpp, gru.cpp.
#include "core/kernel_list.h"

// allocator.cpp: tensor memory (core/allocator.h)
float* allocate_floats(size_t n);
void release_floats(float* p, size_t n);
AllocatorStats allocator_stats();
void allocator_trim();
// object_pool.cpp: the engine's small objects (core/allocator.h)
void* allocate_object(size_t bytes);
void release_object(void* p, size_t bytes);

}  // namespace fast
}  // namespace d2l
