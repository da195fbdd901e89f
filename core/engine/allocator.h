// core/engine/allocator.h — 64-byte-aligned memory for tensor storage (Storage, core/tensor.h; Buffer,
// core/engine/storage.h), and the engine's small objects.
//
// The build's tier provides the memory (core/kernels/seam.cpp forwards): the reference tier
// takes every block from the system and frees it at once (core/kernels/reference/allocator.cpp);
// the fast tier keeps freed blocks for reuse, since a training step frees and re-creates
// the same few hundred buffers every iteration (core/kernels/fast/allocator.cpp). 64-byte
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
#include <new>
#include <string>
#include <utility>

namespace d2l {

// An allocation that failed, with what it was for and its size: "[matmul] cannot allocate
// a tensor of shape (100000, 100000): 40000000000 bytes (37.3 GiB)". A std::bad_alloc, so
// code that catches those still does; what() says which allocation, where a plain
// std::bad_alloc says only "std::bad_alloc".
class OutOfMemory : public std::bad_alloc {
 public:
  explicit OutOfMemory(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

float* allocate_floats(size_t n);         // n floats, 64-byte aligned, contents undefined
void release_floats(float* p, size_t n);  // give a block from allocate_floats back

// The largest tensor block this process may take, in bytes (0, the default: no limit but
// the machine's). A larger one fails as on a machine without the memory: std::bad_alloc, which
// Tensor reports as OutOfMemory naming the op and the shape. Linux overcommits, so without a
// limit a block larger than the machine's memory is often granted and the process is killed
// later, when the block is filled. The chapter programs' --max-tensor-mb; the tests use it
// to run out of memory on purpose.
void set_max_tensor_bytes(size_t bytes);
size_t max_tensor_bytes();  // as set (0: no limit)
// How many blocks that limit has refused in this process: an error message can then name
// the limit (the option that set it) rather than the machine's memory.
size_t tensor_limit_refusals();

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
