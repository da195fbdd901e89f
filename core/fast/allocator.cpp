// core/fast/allocator.cpp — the caching allocator: freed blocks go on a free list per size
// class (powers of two from 64 bytes) and the next request of that class reuses one.
//
// A training step creates and frees the same few hundred buffers every iteration. Going to
// malloc for each would cost a lock and, for large buffers, fresh zeroed pages from the OS
// (mmap), every time; after the first iteration this allocator never calls the system.

#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

#include "core/fast/kernels.h"

namespace d2l {
namespace fast {
namespace {

constexpr size_t kAlign = 64;
constexpr int kClasses = 48;  // 64 B << 47 is far beyond any machine's memory

struct Pool {
  std::mutex mu;  // tensors may be freed on any thread (e.g. inside a parallel region)
  std::vector<void*> free_list[kClasses];
  AllocatorStats stats;
  ~Pool() {
    for (auto& l : free_list)
      for (void* p : l) std::free(p);
  }
};

Pool& pool() {
  static Pool* p = new Pool();  // never destroyed: tensors in static storage may outlive it
  return *p;
}

// The smallest class whose block (64 << c bytes) holds `bytes`.
int size_class(size_t bytes) {
  int c = 0;
  while ((kAlign << c) < bytes) ++c;
  return c;
}

}  // namespace

float* allocate_floats(size_t n) {
  // Beyond the largest class there is no free list to index (nor that much memory): the
  // caller (core/tensor.cpp) turns the bad_alloc into an error naming the tensor.
  if (n > (kAlign << (kClasses - 1)) / sizeof(float)) throw std::bad_alloc();
  const int c = size_class(n * sizeof(float));
  Pool& P = pool();
  {
    std::lock_guard<std::mutex> lock(P.mu);
    ++P.stats.requests;
    auto& l = P.free_list[c];
    if (!l.empty()) {
      void* p = l.back();
      l.pop_back();
      P.stats.cached_bytes -= kAlign << c;
      return static_cast<float*>(p);
    }
    ++P.stats.os_allocs;
  }
  void* p = std::aligned_alloc(kAlign, kAlign << c);
  if (!p) throw std::bad_alloc();
  return static_cast<float*>(p);
}

void release_floats(float* p, size_t n) {
  if (!p) return;
  const int c = size_class(n * sizeof(float));
  Pool& P = pool();
  std::lock_guard<std::mutex> lock(P.mu);
  P.free_list[c].push_back(p);
  P.stats.cached_bytes += kAlign << c;
}

AllocatorStats allocator_stats() {
  Pool& P = pool();
  std::lock_guard<std::mutex> lock(P.mu);
  return P.stats;
}

void allocator_trim() {
  Pool& P = pool();
  std::lock_guard<std::mutex> lock(P.mu);
  for (auto& l : P.free_list) {
    for (void* p : l) std::free(p);
    l.clear();
  }
  P.stats.cached_bytes = 0;
}

}  // namespace fast
}  // namespace d2l
