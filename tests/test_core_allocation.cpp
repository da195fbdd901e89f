// tests/test_core_allocation.cpp — suite core_allocation: a tensor that cannot be allocated is
// an error naming the op, the shape and the bytes (core/check.h's OutOfMemory), where it was
// a bare std::bad_alloc ("std::bad_alloc" and nothing else) from somewhere in the step.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/check.h"
#include "core/fast/kernels.h"
#include "core/reference/kernels.h"
#include "core/ops.h"
#include "core/tensor.h"
#include "tests/test_util.h"

using namespace d2l;
using d2l_test::message_has;

// Under AddressSanitizer an allocation the system refuses would end the process with a
// report; the real build gets a null pointer (std::bad_alloc). Make both behave the same.
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }
#endif

BOOST_AUTO_TEST_SUITE(core_allocation)

BOOST_AUTO_TEST_CASE(a_tensor_too_large_for_memory_names_op_shape_and_bytes) {
  // 2^45 floats = 128 TiB: no 48-bit address space has room for it.
  const Shape huge{int64_t{1} << 23, int64_t{1} << 22};
  BOOST_CHECK_EXCEPTION(empty(huge), OutOfMemory,
                        message_has({"[Tensor] cannot allocate the data of a tensor of shape (8388608, 4194304)",
                                     "140737488355328 bytes (1.31e+05 GiB)", "out of memory"}));
  // Inside an op it names the op; it is still a std::bad_alloc for code that catches those.
  const Tensor col = zeros({int64_t{1} << 23, 1}), row = zeros({1, int64_t{1} << 22});
  BOOST_CHECK_EXCEPTION(col + row, std::bad_alloc,
                        message_has({"[add] cannot allocate the data of a tensor of shape (8388608, 4194304)"}));
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

// The tiers' allocators refuse a size they cannot represent: the fast tier indexed a free
// list past its last size class (2^54 floats), the reference tier's byte count wrapped
// around to a tiny block.
BOOST_AUTO_TEST_CASE(both_allocators_refuse_sizes_beyond_their_range) {
  BOOST_CHECK_THROW(fast::allocate_floats(size_t{1} << 54), std::bad_alloc);
  BOOST_CHECK_THROW(fast::allocate_floats(SIZE_MAX / sizeof(float)), std::bad_alloc);
  BOOST_CHECK_THROW(reference::allocate_floats(SIZE_MAX / sizeof(float) - 1), std::bad_alloc);
  BOOST_CHECK_THROW(reference::allocate_floats(size_t{1} << 54), std::bad_alloc);
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
  BOOST_TEST(lin->data_freed);
  BOOST_TEST(!lin->data);
  BOOST_TEST(!y.node()->data_freed);  // relu's output: its own backward reads it
  sum(y * y).backward();

  Tensor x2 = leaf(x0), W2 = leaf(W0);
  const Tensor h = linear(x2, W2, Tensor());  // held: kept
  Tensor y2 = relu(h);
  BOOST_TEST(!h.node()->data_freed);
  sum(y2 * y2).backward();
  BOOST_TEST(y.to_vector() == y2.to_vector());
  BOOST_TEST(x.grad().to_vector() == x2.grad().to_vector());
  BOOST_TEST(W.grad().to_vector() == W2.grad().to_vector());
  // By hand: h = x Wᵀ = [[3.5, 0.75], [-5, 1.25]]; d(Σ y²)/dh = 2 y where h > 0.
  BOOST_TEST(y.to_vector() == std::vector<float>({3.5f, 0.75f, 0.0f, 1.25f}));
  BOOST_TEST(W.grad().to_vector() == std::vector<float>({7.0f, -14.0f, 3.5f, 1.5f, 4.5f, -1.75f}));
}

// Data some backward reads stays, handle or not: relu's output read by the Linear after it.
BOOST_AUTO_TEST_CASE(graph_keeps_data_a_backward_reads) {
  Tensor x = tensor({{1.0f, -2.0f}});
  x.requires_grad_();
  const Tensor W = tensor({{1.0f, 1.0f}});
  const Tensor y = linear(relu(x), W, Tensor());
  BOOST_TEST(!y.node()->inputs[0]->data_freed);
  BOOST_TEST(y.node()->inputs[0]->data.get()[0] == 1.0f);
}

BOOST_AUTO_TEST_SUITE_END()
