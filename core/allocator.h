// core/allocator.h — 64-byte-aligned memory for tensor storage, and the handles that own it.
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

// Move-only owner of one block (Node::data and Node::grad).
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(size_t n) : ptr_(n ? allocate_floats(n) : nullptr), n_(n) {}
  ~Buffer() { reset(); }
  Buffer(Buffer&& o) noexcept : ptr_(o.ptr_), n_(o.n_) { o.ptr_ = nullptr; o.n_ = 0; }
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) { reset(); ptr_ = o.ptr_; n_ = o.n_; o.ptr_ = nullptr; o.n_ = 0; }
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void reset() { if (ptr_) release_floats(ptr_, n_); ptr_ = nullptr; n_ = 0; }
  float* get() const { return ptr_; }
  size_t size() const { return n_; }
  explicit operator bool() const { return ptr_ != nullptr; }

 private:
  float* ptr_ = nullptr;
  size_t n_ = 0;
};

// The data of a tensor, shared between a tensor and its reshaped copies (reshape,
// unsqueeze and squeeze change only the shape, so they reuse the storage instead of
// copying it, as PyTorch's views do). Writing through one handle shows in the others.
//
// With the data lives its version, PyTorch's version counter: a count of the writes to it
// that the Tensor API handed out (Tensor::data() and at() for writing, which optimisers,
// initialisers and Module::load use too). Backward compares it with the version each op
// saw, so a tensor changed between forward and backward is an error, not a wrong gradient
// (core/autograd.cpp). Views share it, since they share the data.
class Storage {
 public:
  Storage() = default;
  explicit Storage(size_t n) : block_(std::allocate_shared<Block>(ObjectAllocator<Block>(), n)) {}
  float* get() const { return block_ ? block_->buf.get() : nullptr; }
  explicit operator bool() const { return block_ && block_->buf.get(); }
  uint64_t version() const { return block_ ? block_->version : 0; }
  void bump_version() {
    if (block_) ++block_->version;
  }

 private:
  struct Block {
    explicit Block(size_t n) : buf(n) {}
    Buffer buf;
    uint64_t version = 0;
  };
  std::shared_ptr<Block> block_;
};

}  // namespace d2l
