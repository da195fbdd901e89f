// core/kernels.cpp — the seam's dispatch: each kernel of core/kernels.h points to the
// tier this build chose. `make` compiles this file with D2L_FAST=1 (core/fast/), `make
// FAST=0` with D2L_FAST=0 (core/reference/); nothing else in the library depends on it.
#include "core/kernels.h"

#include <atomic>
#include <new>

#include "core/allocator.h"
#include "core/fast/kernels.h"
#include "core/reference/kernels.h"

#ifndef D2L_FAST
#define D2L_FAST 1
#endif

namespace d2l {

#if D2L_FAST
namespace tier = fast;
#else
namespace tier = reference;
#endif

// Tensor memory (core/allocator.h) comes from the same tier, after the failure hook.
namespace {
std::atomic<AllocationFailureHook> failure_hook{nullptr};
}  // namespace
void set_allocation_failure_hook(AllocationFailureHook hook) { failure_hook.store(hook); }
float* allocate_floats(size_t n) {
  const AllocationFailureHook refuse = failure_hook.load(std::memory_order_relaxed);
  if (refuse && refuse(n)) throw std::bad_alloc();
  return tier::allocate_floats(n);
}
void release_floats(float* p, size_t n) { tier::release_floats(p, n); }
AllocatorStats allocator_stats() { return tier::allocator_stats(); }
void allocator_trim() { tier::allocator_trim(); }
void* allocate_object(size_t bytes) { return tier::allocate_object(bytes); }
void release_object(void* p, size_t bytes) { tier::release_object(p, bytes); }

namespace kernels {

const char* tier_name() { return D2L_FAST ? "fast" : "reference"; }

// Each kernel of core/kernel_list.h: the seam's pointer, a constant (set before any code
// runs), to the chosen tier's function. The array beside it names both tiers' definitions,
// so a kernel that either tier lacks, or defines with other parameters, fails the link of
// every program instead of surfacing in one build only.
#define D2L_KERNEL(name, ...)                                                                          \
  [[gnu::used]] static void (*const name##_in_both_tiers[])(__VA_ARGS__) = {&fast::name, &reference::name}; \
  void (*const name)(__VA_ARGS__) = &tier::name
#include "core/kernel_list.h"

}  // namespace kernels
}  // namespace d2l
