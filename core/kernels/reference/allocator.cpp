// core/kernels/reference/allocator.cpp — tensor memory straight from the system: every buffer is a
// fresh 64-byte-aligned block, handed back when its tensor dies. (The fast tier keeps freed
// blocks for reuse instead: core/kernels/fast/allocator.cpp and core/kernels/fast/object_pool.cpp.)
#include <cstdint>
#include <cstdlib>
#include <new>

#include "core/engine/allocator.h"
#include "core/kernels/reference/kernels.h"

namespace d2l {
namespace reference {
float* allocate_floats(size_t n) {
  // So large that the byte count below would wrap around to a small block: refuse it (the
  // caller, core/tensor.cpp, turns the bad_alloc into an error naming the tensor).
  if (n > (SIZE_MAX - 64) / sizeof(float)) throw std::bad_alloc();
  const size_t bytes = (n * sizeof(float) + 63) / 64 * 64;  // aligned_alloc needs a multiple of 64
  void* p = std::aligned_alloc(64, bytes ? bytes : 64);
  if (!p) throw std::bad_alloc();
  return static_cast<float*>(p);
}

void release_floats(float* p, size_t) { std::free(p); }

// The engine's small objects: one operator new each.
void* allocate_object(size_t bytes) { return ::operator new(bytes); }
void release_object(void* p, size_t) { ::operator delete(p); }

}  // namespace reference
}  // namespace d2l
