// tests/test_core_allocation.cpp — suite core_allocation: a tensor that cannot be allocated is
// an error naming the op, the shape and the bytes (core/engine/allocator.h's OutOfMemory), where it was
// a bare std::bad_alloc ("std::bad_alloc" and nothing else) from somewhere in the step.
//
// Running out of memory is simulated with core/engine/allocator.h's failure hook, not by asking the
// system for more than it has: how a system says no depends on the machine, and under
// AddressSanitizer a refused request ends the process with a report (unless every allocation
// is allowed to return null, which turns an ASan error anywhere into a confusing "out of
// memory" far from its cause).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/engine/allocator.h"
#include "core/engine/bookkeeping.h"
#include "core/shape.h"  // check
#include "core/kernels/fast/kernels.h"
#include "core/kernels/reference/kernels.h"
#include "core/ops.h"
#include "core/tensor.h"
#include "tests/test_util.h"

using namespace d2l;
using d2l_test::message_has;

namespace {

// While alive, every tensor allocation of at least `n_floats` fails as on a full machine.
// (Asking the real system for more than it has is no test: whether it says no depends on
// the machine, its overcommit policy and a sanitizer's limits.)
class RefuseAllocationsFrom {
 public:
  explicit RefuseAllocationsFrom(size_t n_floats) { set_max_tensor_bytes((n_floats - 1) * sizeof(float)); }
  ~RefuseAllocationsFrom() { set_max_tensor_bytes(0); }
  RefuseAllocationsFrom(const RefuseAllocationsFrom&) = delete;
  RefuseAllocationsFrom& operator=(const RefuseAllocationsFrom&) = delete;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(core_allocation)

BOOST_AUTO_TEST_CASE(a_tensor_the_system_refuses_names_op_shape_and_bytes) {
  const Tensor col = zeros({8192, 1}), row = zeros({1, 32768});
  {
    RefuseAllocationsFrom full(1 << 20);  // 4 MiB and more
    // 8192 * 32768 floats = 2^28 * 4 bytes = 1 GiB.
    BOOST_CHECK_EXCEPTION(empty({8192, 32768}), OutOfMemory,
                          message_has({"[Tensor] cannot allocate the data of a tensor of shape (8192, 32768)",
                                       "1073741824 bytes (1 GiB)", "out of memory"}));
    // Inside an op it names the op; it is still a std::bad_alloc for code that catches those.
    BOOST_CHECK_EXCEPTION(col + row, std::bad_alloc,
                          message_has({"[add] cannot allocate the data of a tensor of shape (8192, 32768)"}));
  }
  // A gradient: the forward pass fitted, the machine filled up before backward.
  const Tensor x = ones({1024, 1024}).requires_grad_();
  Tensor loss = sum(x * 2.0f);
  {
    RefuseAllocationsFrom full(1 << 20);
    BOOST_CHECK_EXCEPTION(loss.backward(), OutOfMemory,
                          message_has({"cannot allocate the gradient of a tensor of shape (",
                                       "4194304 bytes (0.00391 GiB)"}));  // x * 2, or sum's flat view of it
  }
  // Nothing stays broken: the refused sizes allocate once memory is there, and small tensors
  // of every size class up to 2 KiB allocate and compute.
  BOOST_TEST(sum(zeros({1024, 1024}) + 1.0f).item() == 1048576.0f);
  for (int64_t n = 1; n <= 512; ++n) BOOST_TEST(sum(ones({n}) * 2.0f).item() == 2.0f * static_cast<float>(n));
}

BOOST_AUTO_TEST_CASE(a_shape_beyond_any_machine_or_int64_is_refused_before_allocating) {
  BOOST_CHECK_EXCEPTION(empty({int64_t{1} << 40, 1 << 10}), std::invalid_argument,
                        message_has({"[Tensor]", "(1099511627776, 1024)", "more than any machine can hold"}));
  // The element count wrapped around int64_t (2^32 * 2^32 = 2^64 = 0 mod 2^64): a 0-byte
  // buffer for a "huge" tensor.
  BOOST_CHECK_EXCEPTION(empty({int64_t{1} << 32, int64_t{1} << 32}), std::invalid_argument,
                        message_has({"[Tensor]", "(4294967296, 4294967296)", "more elements than an int64_t can count"}));
  BOOST_TEST(numel_of({int64_t{1} << 62, 4, 0}) == 0);  // a zero size anywhere: empty
}

// The tiers' allocators refuse a size they cannot represent, before asking the system: the
// fast tier indexed a free list past its last size class (2^54 floats), the reference
// tier's byte count wrapped around to a tiny block.
BOOST_AUTO_TEST_CASE(both_allocators_refuse_sizes_beyond_their_range) {
  BOOST_CHECK_THROW(fast::allocate_floats(size_t{1} << 54), std::bad_alloc);
  BOOST_CHECK_THROW(fast::allocate_floats(SIZE_MAX / sizeof(float)), std::bad_alloc);
  BOOST_CHECK_THROW(reference::allocate_floats(SIZE_MAX / sizeof(float) - 1), std::bad_alloc);
}

// The fast allocator keeps freed blocks for reuse, but a request none of them can serve (the
// shapes changed) first gives cached large blocks back until at most 64 MiB stay cached.
BOOST_AUTO_TEST_CASE(fast_allocator_gives_cached_blocks_back_on_a_miss) {
  fast::allocator_trim();
  const size_t n = size_t{2} << 20;  // 8 MiB of floats per block: mapped, never touched here
  std::vector<float*> blocks;
  for (int i = 0; i < 12; ++i) blocks.push_back(fast::allocate_floats(n));
  for (float* p : blocks) fast::release_floats(p, n);
  const uint64_t before = fast::allocator_stats().cached_bytes;
  BOOST_TEST(before >= 12 * n * sizeof(float));  // 96 MiB cached: the same size would reuse them
  float* p = fast::allocate_floats(n);           // a hit: nothing given back
  BOOST_TEST(fast::allocator_stats().cached_bytes == before - n * sizeof(float));
  fast::release_floats(p, n);
  float* q = fast::allocate_floats(3 * n);  // another size class: a miss
  const uint64_t after = fast::allocator_stats().cached_bytes;
  BOOST_TEST(after <= (uint64_t{64} << 20));
  BOOST_TEST(after >= (uint64_t{64} << 20) - n * sizeof(float));  // only down to the bound
  fast::release_floats(q, 3 * n);
  fast::allocator_trim();
}

// A graph node's data that no backward reads is freed once only the graph holds the node: a
// Linear's output under a ReLU (relu's backward reads its own output). The gradients are
// those of the same graph with the Linear's output kept alive by a handle.
BOOST_AUTO_TEST_CASE(graph_frees_data_no_backward_reads_and_gradients_stay_the_same) {
  const Tensor x0 = tensor({{1.0f, -2.0f, 0.5f}, {0.0f, 3.0f, -1.0f}});
  const Tensor W0 = tensor({{0.5f, -1.0f, 2.0f}, {1.5f, 0.25f, -0.5f}});
  auto leaf = [](const Tensor& t) {
    Tensor c = t.detach();
    c.requires_grad_();
    return c;
  };
  Tensor x = leaf(x0), W = leaf(W0);
  Tensor y = relu(linear(x, W, Tensor()));  // the Linear's output: no handle left
  Node* lin = y.node()->inputs[0].get();
  BOOST_TEST(lin->book->data_freed);
  BOOST_TEST(!lin->data);
  BOOST_TEST(!y.node()->book->data_freed);  // relu's output: its own backward reads it
  sum(y * y).backward();

  Tensor x2 = leaf(x0), W2 = leaf(W0);
  const Tensor h = linear(x2, W2, Tensor());  // held: kept
  Tensor y2 = relu(h);
  BOOST_TEST(!h.node()->book->data_freed);
  sum(y2 * y2).backward();
  BOOST_TEST(y.to_vector() == y2.to_vector());
  BOOST_TEST(x.grad().to_vector() == x2.grad().to_vector());
  BOOST_TEST(W.grad().to_vector() == W2.grad().to_vector());
  // By hand: h = x Wᵀ = [[3.5, 0.75], [-5, 1.25]]; d(Σ y²)/dh = 2 y where h > 0.
  BOOST_TEST(y.to_vector() == std::vector<float>({3.5f, 0.75f, 0.0f, 1.25f}));
  BOOST_TEST(W.grad().to_vector() == std::vector<float>({7.0f, -14.0f, 3.5f, 1.5f, 4.5f, -1.75f}));
}

// The unary ops say what their derivative reads (kernels::derivative_reads): x * 2 reads
// nothing, tanh only its output, log its input. So in tanh(2 h) neither h nor 2 h is kept,
// while log keeps its input; the gradients equal those of the graph with every tensor held.
BOOST_AUTO_TEST_CASE(unary_ops_keep_only_what_their_derivative_reads) {
  const Tensor x0 = tensor({{0.5f, -1.0f}, {2.0f, 0.25f}});
  Tensor x = x0.detach(), x2 = x0.detach();
  x.requires_grad_();
  x2.requires_grad_();
  Tensor y = tanh(mul(x * x, 2.0f));
  Node* scaled = y.node()->inputs[0].get();
  BOOST_TEST(scaled->book->data_freed);                  // 2 x²: tanh's backward reads tanh's output
  BOOST_TEST(scaled->inputs[0]->book->data_freed);       // x²: the scaling's derivative is the constant 2
  Tensor z = log(x * x + 1.0f);
  BOOST_TEST(!z.node()->inputs[0]->book->data_freed);    // x² + 1: log's derivative is 1 / x
  sum(y + z).backward();

  const Tensor sq = x2 * x2, scaled2 = mul(sq, 2.0f), shifted = sq + 1.0f;  // held: kept
  sum(tanh(scaled2) + log(shifted)).backward();
  BOOST_TEST(x.grad().to_vector() == x2.grad().to_vector());
  // By hand at x = 0.5: d/dx [tanh(2x²) + log(x² + 1)] = 4x (1 − tanh²(2x²)) + 2x / (x² + 1)
  const float t = std::tanh(0.5f);
  BOOST_TEST(x.grad().to_vector()[0] == 2.0f * (1.0f - t * t) + 1.0f / 1.25f, boost::test_tools::tolerance(1e-5f));
}

// Data some backward reads stays, handle or not: relu's output read by the Linear after it.
BOOST_AUTO_TEST_CASE(graph_keeps_data_a_backward_reads) {
  Tensor x = tensor({{1.0f, -2.0f}});
  x.requires_grad_();
  const Tensor W = tensor({{1.0f, 1.0f}});
  const Tensor y = linear(relu(x), W, Tensor());
  BOOST_TEST(!y.node()->inputs[0]->book->data_freed);
  BOOST_TEST(y.node()->inputs[0]->data.get()[0] == 1.0f);
}

// Every fast-tier block, of every size class from 64 B to 1 MiB, comes back 64-byte aligned
// and writable to its end (under AddressSanitizer a block smaller than its class, or a
// refused aligned_alloc, is an error here).
BOOST_AUTO_TEST_CASE(fast_allocator_blocks_of_every_class_are_aligned_and_whole) {
  for (size_t n = 2; n <= (size_t{1} << 18); n += 1 + n / 8) {
    float* p = fast::allocate_floats(n);
    BOOST_TEST(reinterpret_cast<uintptr_t>(p) % 64 == 0);
    p[0] = 1.0f;
    p[n - 1] = 2.0f;
    BOOST_TEST(p[0] + p[n - 1] == 3.0f);
    fast::release_floats(p, n);
  }
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define D2L_TEST_ASAN 1
#endif
#endif
#if !defined(__SANITIZE_ADDRESS__) && !defined(D2L_TEST_ASAN)
// The real system, in builds without a sanitizer: 2^46 floats (256 TiB) is more than the
// address space a process gets on x86-64 (128 TiB) or AArch64 (at most 256 TiB, part of it
// in use), so it is refused on every machine and every overcommit policy.
BOOST_AUTO_TEST_CASE(the_system_refusing_a_tensor_is_an_out_of_memory_error) {
  BOOST_CHECK_EXCEPTION(empty({int64_t{1} << 23, int64_t{1} << 23}), OutOfMemory,
                        message_has({"[Tensor] cannot allocate the data of a tensor of shape (8388608, 8388608)",
                                     "281474976710656 bytes (2.62e+05 GiB)"}));
  BOOST_CHECK_THROW(reference::allocate_floats(size_t{1} << 46), std::bad_alloc);
}
#endif

BOOST_AUTO_TEST_SUITE_END()
