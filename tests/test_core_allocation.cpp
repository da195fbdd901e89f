// tests/test_core_allocation.cpp — suite core_allocation: a tensor that cannot be allocated is
// an error naming the op, the shape and the bytes (core/check.h's OutOfMemory), where it was
// a bare std::bad_alloc ("std::bad_alloc" and nothing else) from somewhere in the step.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>

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

BOOST_AUTO_TEST_SUITE_END()
