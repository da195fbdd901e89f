// core/kernels/fast/kernels.h — the fast tier, d2l::fast: every kernel of the seam (declared by
// core/kernels/seam.h from core/kernels/list.h, where each one's sizes and shapes are written out),
// and the caching allocators. Where speed needs nothing
// beyond the plain loop (comparisons, max, sequence_mask) the fast kernel calls the
// reference one.
#pragma once
#include <cstdint>
#include <vector>

#include "core/engine/allocator.h"
#include "core/kernels/list.h"
#include "core/kernels/reference/kernels.h"

namespace d2l {
namespace fast {

using kernels::Binary;
using kernels::Broadcast;
using kernels::Compare;
using kernels::Unary;

// allocator.cpp: tensor memory (core/engine/allocator.h), and what the cache holds, for tests and
// benchmarks of it
float* allocate_floats(size_t n);
void release_floats(float* p, size_t n);
struct AllocatorStats {
  uint64_t requests = 0;      // allocate_floats calls
  uint64_t os_allocs = 0;     // of those, how many went to the system allocator
  uint64_t cached_bytes = 0;  // bytes sitting on free lists now
};
AllocatorStats allocator_stats();
void allocator_trim();  // return every cached block to the system
// object_pool.cpp: the engine's small objects (core/engine/allocator.h)
void* allocate_object(size_t bytes);
void release_object(void* p, size_t bytes);

}  // namespace fast
}  // namespace d2l
