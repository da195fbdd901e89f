// core/kernels/fast/allocator.cpp — the caching allocator: freed blocks go on a free list per size
// class and the next request of that class reuses one.
//
// A training step creates and frees the same few hundred buffers every iteration. Going to
// malloc for each would cost a lock and, for large buffers, fresh zeroed pages from the OS
// (mmap), every time; after the first iteration this allocator never calls the system.
//
// Size classes: four per power of two (64 B, 80, 96, 112, 128, 160, ...), so a block is at
// most 25% larger than asked for. (With one class per power of two, the NLI model's
// 256 x 50 x 200 activations, 10.2 MB each, took 16 MiB blocks: a third of its memory.)
// Small blocks (up to 64 KiB: every tensor of the seq2seq models, the gradients of the
// small ops) are kept on lists of the thread that freed them, so the common case takes no
// lock; each thread keeps at most kLocalMax blocks per class and hands the rest, and all of
// them when it ends, to the shared lists. Larger blocks always use the shared lists, whose
// lock costs nothing next to the work on a 64 KiB tensor.
//
// Bounded: when the shapes change (the last, smaller batch of an epoch, evaluation, a new
// model), the blocks cached for the old shapes would sit idle beside the new ones, and a
// training run with a partial last batch would keep two steps' worth of activations. So a
// request for a large block that no list can serve first gives cached large blocks back to
// the system, largest first, until at most kCacheKeep bytes stay cached. A steady training
// loop never misses after its first step, so this costs nothing there. Blocks of kMapBytes
// and more are mapped from the system directly (mmap/munmap), so what is given back leaves
// the process: glibc serves such sizes from its heap once one was freed, and a free block in
// the middle of the heap is never returned.

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

#include <sys/mman.h>

#include "core/kernels/fast/kernels.h"

namespace d2l {
namespace fast {
namespace {

constexpr size_t kAlign = 64;
constexpr int kClasses = 4 * 44;       // 64 B << 43 is far beyond any machine's memory
constexpr size_t kLocalBytes = 64 << 10;  // blocks up to this size are cached per thread
constexpr size_t kLocalMax = 64;       // blocks per class and thread
constexpr size_t kMapBytes = 1 << 20;  // blocks from this size on are mapped
constexpr uint64_t kCacheKeep = uint64_t{64} << 20;  // shared cache kept on a miss

// Memory from and back to the system.
void* system_alloc(size_t bytes) {
  // aligned_alloc takes a multiple of the alignment (C11 7.22.3.1): the classes below
  // 256 B that are not one (80, 96, 112, 160, 224) ask for the next. glibc accepts any
  // size; AddressSanitizer refuses the call (with allocator_may_return_null=1, silently:
  // every 80-byte tensor was then "out of memory").
  if (bytes < kMapBytes) return std::aligned_alloc(kAlign, (bytes + kAlign - 1) / kAlign * kAlign);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;  // page-aligned, so 64-byte aligned
}
void system_free(void* p, size_t bytes) {
  if (bytes < kMapBytes) std::free(p);
  else munmap(p, bytes);
}

// The class of a block of `bytes` (> 0): the smallest 64 B · 2^k · (4 + q) / 4 that holds it.
int size_class(size_t bytes) {
  if (bytes <= kAlign) return 0;
  int k = 0;
  while ((kAlign << (k + 1)) < bytes) ++k;  // kAlign << k < bytes <= kAlign << (k + 1)
  const size_t quarter = (kAlign << k) / 4;
  const int q = static_cast<int>((bytes - (kAlign << k) + quarter - 1) / quarter);  // 1..4
  return 4 * k + q;
}
size_t class_bytes(int c) { return (kAlign << (c / 4)) / 4 * (4 + c % 4); }

// Counters written by one thread, read by allocator_stats on any.
struct Counters {
  std::atomic<uint64_t> requests{0}, os_allocs{0}, cached_bytes{0};
};
void bump(std::atomic<uint64_t>& a, int64_t v) {  // no locked instruction: one writer
  a.store(a.load(std::memory_order_relaxed) + static_cast<uint64_t>(v), std::memory_order_relaxed);
}

struct Local;
struct Shared {
  std::mutex mu;  // guards everything here
  std::vector<void*> lists[kClasses];
  uint64_t requests = 0, os_allocs = 0, cached_bytes = 0;
  std::vector<Local*> threads;  // every live thread's cache, for allocator_stats and trim
};
Shared& shared() {
  static Shared* s = new Shared();  // never destroyed: tensors in static storage may outlive it
  return *s;
}

// One thread's cache of small blocks.
struct Local {
  std::vector<void*> lists[kClasses];
  Counters counters;
};

// The calling thread's cache: created on first use, handed to the shared lists when the
// thread ends. After that (static destructors freeing tensors at exit) it is null and
// every call takes the shared path.
thread_local Local* tl_local = nullptr;
thread_local bool tl_ended = false;
struct LocalOwner {
  ~LocalOwner() {
    Local* L = tl_local;
    tl_local = nullptr;
    tl_ended = true;
    if (!L) return;
    Shared& S = shared();
    std::lock_guard<std::mutex> lock(S.mu);
    for (int c = 0; c < kClasses; ++c) S.lists[c].insert(S.lists[c].end(), L->lists[c].begin(), L->lists[c].end());
    S.requests += L->counters.requests.load();
    S.os_allocs += L->counters.os_allocs.load();
    S.cached_bytes += L->counters.cached_bytes.load();
    for (size_t i = 0; i < S.threads.size(); ++i)
      if (S.threads[i] == L) S.threads.erase(S.threads.begin() + static_cast<std::ptrdiff_t>(i));
    delete L;
  }
};
thread_local LocalOwner tl_owner;

Local* local() {
  if (tl_local || tl_ended) return tl_local;
  (void)&tl_owner;  // first use on this thread: registers the hand-over at thread exit
  auto* L = new Local();
  Shared& S = shared();
  std::lock_guard<std::mutex> lock(S.mu);
  S.threads.push_back(L);
  return tl_local = L;
}


}  // namespace

float* allocate_floats(size_t n) {
  // Beyond the largest class there is no free list to index (nor that much memory): the
  // caller (core/tensor.cpp) turns the bad_alloc into an error naming the tensor.
  if (n > class_bytes(kClasses - 1) / sizeof(float)) throw std::bad_alloc();
  const int c = size_class(n * sizeof(float));
  const size_t bytes = class_bytes(c);
  Local* L = bytes <= kLocalBytes ? local() : nullptr;
  if (L) {
    bump(L->counters.requests, 1);
    auto& l = L->lists[c];
    if (!l.empty()) {
      void* p = l.back();
      l.pop_back();
      bump(L->counters.cached_bytes, -static_cast<int64_t>(bytes));
      return static_cast<float*>(p);
    }
  }
  Shared& S = shared();
  {
    std::lock_guard<std::mutex> lock(S.mu);
    S.requests += L ? 0 : 1;
    auto& l = S.lists[c];
    if (!l.empty()) {
      void* p = l.back();
      l.pop_back();
      S.cached_bytes -= bytes;
      return static_cast<float*>(p);
    }
    ++S.os_allocs;
    // A miss: the shapes changed. Give back cached large blocks, largest first.
    if (!L)
      for (int k = kClasses - 1; k >= 0 && S.cached_bytes > kCacheKeep && class_bytes(k) > kLocalBytes; --k)
        while (!S.lists[k].empty() && S.cached_bytes > kCacheKeep) {
          system_free(S.lists[k].back(), class_bytes(k));
          S.lists[k].pop_back();
          S.cached_bytes -= class_bytes(k);
        }
  }
  void* p = system_alloc(bytes);
  if (!p) throw std::bad_alloc();
  return static_cast<float*>(p);
}

void release_floats(float* p, size_t n) {
  if (!p) return;
  const int c = size_class(n * sizeof(float));
  const size_t bytes = class_bytes(c);
  Local* L = bytes <= kLocalBytes ? local() : nullptr;
  if (L && L->lists[c].size() < kLocalMax) {
    L->lists[c].push_back(p);
    bump(L->counters.cached_bytes, static_cast<int64_t>(bytes));
    return;
  }
  Shared& S = shared();
  std::lock_guard<std::mutex> lock(S.mu);
  S.lists[c].push_back(p);
  S.cached_bytes += bytes;
}

AllocatorStats allocator_stats() {
  Shared& S = shared();
  std::lock_guard<std::mutex> lock(S.mu);
  AllocatorStats st{S.requests, S.os_allocs, S.cached_bytes};
  for (const Local* L : S.threads) {
    st.requests += L->counters.requests.load(std::memory_order_relaxed);
    st.os_allocs += L->counters.os_allocs.load(std::memory_order_relaxed);
    st.cached_bytes += L->counters.cached_bytes.load(std::memory_order_relaxed);
  }
  return st;
}

// Frees the shared lists and the calling thread's own (another thread's cache belongs to
// that thread; OpenMP's worker threads never free tensors).
void allocator_trim() {
  Local* L = local();
  Shared& S = shared();
  std::lock_guard<std::mutex> lock(S.mu);
  for (int c = 0; c < kClasses; ++c) {
    for (void* p : S.lists[c]) system_free(p, class_bytes(c));
    S.lists[c].clear();
    if (!L) continue;
    for (void* p : L->lists[c]) system_free(p, class_bytes(c));
    L->lists[c].clear();
  }
  S.cached_bytes = 0;
  if (L) L->counters.cached_bytes.store(0, std::memory_order_relaxed);
}

}  // namespace fast
}  // namespace d2l
