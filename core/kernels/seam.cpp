// core/kernels/seam.cpp — the seam's dispatch: each kernel of core/kernels/ points to the
// tier this build chose. `make` compiles this file with D2L_FAST=1 (core/kernels/fast/), `make
// FAST=0` with D2L_FAST=0 (core/kernels/reference/); nothing else in the library depends on it.
// D2L_REFERENCE_ONLY=1 (with D2L_FAST=0) names the reference tier alone, for a build that
// compiles no file of core/kernels/fast/: the engine compiled to WebAssembly for the
// companion pages (tools/browser/), which has neither OpenMP nor x86 intrinsics.
#ifndef D2L_FAST
#define D2L_FAST 1
#endif
#ifndef D2L_REFERENCE_ONLY
#define D2L_REFERENCE_ONLY 0
#endif
#if D2L_REFERENCE_ONLY && D2L_FAST
#error "D2L_REFERENCE_ONLY=1 needs D2L_FAST=0: the fast tier is not compiled in"
#endif

namespace d2l {
namespace fast {}
namespace reference {}
#if D2L_FAST
namespace tier = fast;
#else
namespace tier = reference;
#endif
}  // namespace d2l

// Each kernel: both tiers' declarations, and the seam's pointer, a constant (set before any
// code runs), to the chosen tier's function. The array beside it names both tiers'
// definitions, so a kernel that either tier lacks, or defines with other parameters, fails
// the link of every program instead of surfacing in one build only. Defined before the first
// include, so that every header of core/kernels/ is read with it. (A reference-only build
// lists the reference tier's alone.)
#if D2L_REFERENCE_ONLY
#define D2L_BOTH_TIERS(name) &reference::name
#else
#define D2L_BOTH_TIERS(name) &fast::name, &reference::name
#endif
#define D2L_KERNEL(name, ...)                                                                     \
  namespace reference { void name(__VA_ARGS__); }                                                 \
  namespace fast { void name(__VA_ARGS__); }                                                      \
  namespace kernels {                                                                             \
  [[gnu::used]] static void (*const name##_in_both_tiers[])(__VA_ARGS__) = {D2L_BOTH_TIERS(name)}; \
  extern void (*const name)(__VA_ARGS__);                                                         \
  void (*const name)(__VA_ARGS__) = &tier::name;                                                  \
  }
#include "core/kernels/list.h"

#include <algorithm>
#include <atomic>
#include <new>

#include "core/engine/allocator.h"
#if !D2L_REFERENCE_ONLY
#include "core/kernels/fast/kernels.h"
#endif
#include "core/kernels/reference/kernels.h"

namespace d2l {

// Tensor memory (core/engine/allocator.h) comes from the same tier, within set_max_tensor_bytes.
namespace {
std::atomic<size_t> max_tensor_floats{0};  // 0: no limit
std::atomic<size_t> limit_refusals{0};
}  // namespace
size_t tensor_limit_refusals() { return limit_refusals.load(); }
size_t max_tensor_bytes() { return max_tensor_floats.load() * sizeof(float); }
void set_max_tensor_bytes(size_t bytes) {
  max_tensor_floats.store(bytes ? std::max<size_t>(bytes / sizeof(float), 1) : 0);
}
float* allocate_floats(size_t n) {
  const size_t limit = max_tensor_floats.load(std::memory_order_relaxed);
  if (limit && n > limit) {
    limit_refusals.fetch_add(1);
    throw std::bad_alloc();
  }
  return tier::allocate_floats(n);
}
void release_floats(float* p, size_t n) { tier::release_floats(p, n); }
void* allocate_object(size_t bytes) { return tier::allocate_object(bytes); }
void release_object(void* p, size_t bytes) { tier::release_object(p, bytes); }

const char* kernels::tier_name() { return D2L_FAST ? "fast" : "reference"; }

}  // namespace d2l
