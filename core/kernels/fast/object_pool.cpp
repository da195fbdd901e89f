// core/kernels/fast/object_pool.cpp — memory for the engine's small objects (core/engine/allocator.h,
// allocate_object): graph nodes with their reference counts, storage handles, large closures.
//
// Every op creates a node, a storage handle and often a closure, and the backward pass (or
// the end of a step) frees them all again: tens of thousands of blocks per training step,
// of a handful of sizes. The system allocator handles that poorly once more than a few
// blocks of a size are free at once (glibc keeps only 7 per size in its per-thread cache;
// past that every call goes through its bins and, now and then, a consolidation pass).
// Here each thread keeps a free list per size class (multiples of 16 bytes up to 512), so
// an allocation is a pop and a release a push, with no lock. New blocks are cut from
// 64 KiB slabs that are never returned (the pool is as large as the most objects ever
// alive at once). A block may be released on another thread than the one that allocated
// it; it then joins that thread's list. A thread that ends hands its lists to a global one,
// from which other threads refill.
#include <cstdlib>
#include <mutex>
#include <new>

#include "core/kernels/fast/kernels.h"

namespace d2l {
namespace fast {
namespace {

constexpr size_t kGrain = 16, kMaxBytes = 512, kClasses = kMaxBytes / kGrain;
constexpr size_t kSlabBytes = size_t(64) << 10;

struct FreeBlock {
  FreeBlock* next;
};

// Lists shared by all threads: what ended threads left, refilled into a thread in one go.
struct GlobalLists {
  std::mutex mu;
  FreeBlock* head[kClasses] = {};
};
GlobalLists& global_lists() {
  static GlobalLists* g = new GlobalLists();  // never destroyed: objects may outlive statics
  return *g;
}

// This thread's lists. Plain zero-initialised data, so reaching it costs no guard check.
thread_local FreeBlock* tl_head[kClasses];

// Constructed the first time a thread refills (the slow path): at thread exit it hands the
// thread's free blocks to the global lists.
struct ThreadExit {
  ~ThreadExit() {
    GlobalLists& g = global_lists();
    std::lock_guard<std::mutex> lock(g.mu);
    for (size_t c = 0; c < kClasses; ++c) {
      while (FreeBlock* b = tl_head[c]) {
        tl_head[c] = b->next;
        b->next = g.head[c];
        g.head[c] = b;
      }
    }
  }
};
thread_local ThreadExit tl_exit;

// Class c holds blocks of (c + 1) * kGrain bytes.
size_t size_class(size_t bytes) { return bytes ? (bytes - 1) / kGrain : 0; }

// The thread's list for class c is empty: take the global list, or cut a new slab.
void refill(size_t c) {
  (void)&tl_exit;  // first use on this thread registers the hand-back at exit
  GlobalLists& g = global_lists();
  {
    std::lock_guard<std::mutex> lock(g.mu);
    if (g.head[c]) {
      tl_head[c] = g.head[c];
      g.head[c] = nullptr;
      return;
    }
  }
  const size_t block = (c + 1) * kGrain;
  char* slab = static_cast<char*>(std::aligned_alloc(64, kSlabBytes));
  if (!slab) throw std::bad_alloc();
  for (size_t off = 0; off + block <= kSlabBytes; off += block) {
    auto* b = reinterpret_cast<FreeBlock*>(slab + off);
    b->next = tl_head[c];
    tl_head[c] = b;
  }
}

}  // namespace

void* allocate_object(size_t bytes) {
  if (bytes > kMaxBytes) return ::operator new(bytes);
  const size_t c = size_class(bytes);
  if (!tl_head[c]) refill(c);
  FreeBlock* b = tl_head[c];
  tl_head[c] = b->next;
  return b;
}

void release_object(void* p, size_t bytes) {
  if (!p) return;
  if (bytes > kMaxBytes) return ::operator delete(p);
  const size_t c = size_class(bytes);
  auto* b = static_cast<FreeBlock*>(p);
  b->next = tl_head[c];
  tl_head[c] = b;
}

}  // namespace fast
}  // namespace d2l
