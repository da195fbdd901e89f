// core/allocator.h — 64-byte-aligned memory for tensor storage (owned by Buffer and Storage,
// core/tensor.h), and the engine's small objects.
//
// The build's tier provides the memory (core/kernels.cpp forwards): the reference tier
// takes every block from the system and frees it at once (core/reference/allocator.cpp);
// the fast tier keeps freed blocks for reuse, since a training step frees and re-creates
// the same few hundred buffers every iteration (core/fast/allocator.cpp). 64-byte
// alignment is a cache line and an AVX-512 register, so kernels may use aligned loads.
//
// The engine's own small objects (graph nodes with their reference counts, storage handles,
// closures too big to sit inside a node) come from the same tier through allocate_object:
// the reference tier calls operator new for each, the fast tier keeps per-thread free lists
// of small blocks, since every op creates and later frees a few of them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

namespace d2l {

float* allocate_floats(size_t n);         // n floats, 64-byte aligned, contents undefined
void release_floats(float* p, size_t n);  // give a block from allocate_floats back

struct AllocatorStats {  // of the build's tier
  uint64_t requests = 0;    // allocate_floats calls
  uint64_t os_allocs = 0;   // of those, how many went to the system allocator
  uint64_t cached_bytes = 0;  // bytes sitting on free lists now
};
AllocatorStats allocator_stats();

// Tests of running out of memory: while a hook is set, allocate_floats asks it first and
// throws std::bad_alloc, as a system with no memory left would, for every size it refuses.
// Asking the real system for more than it has is no test: whether it says no depends on the
// machine (its memory, its overcommit policy, a sanitizer's limits). Null: no hook.
using AllocationFailureHook = bool (*)(size_t n_floats);  // true: refuse
void set_allocation_failure_hook(AllocationFailureHook hook);
void allocator_trim();    // return every cached block to the system (fast tier)

void* allocate_object(size_t bytes);           // 16-byte aligned, contents undefined
void release_object(void* p, size_t bytes);     // bytes as given to allocate_object

// allocate_object as a standard allocator, for std::allocate_shared (one block holds an
// object and its reference count).
template <class T>
struct ObjectAllocator {
  using value_type = T;
  ObjectAllocator() = default;
  template <class U>
  ObjectAllocator(const ObjectAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(allocate_object(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { release_object(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const ObjectAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const ObjectAllocator<U>&) const { return false; }
};

}  // namespace d2l
