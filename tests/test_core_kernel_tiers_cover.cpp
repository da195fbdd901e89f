// tests/test_core_kernel_tiers_cover.cpp — suite core_kernel_tiers_cover: every kernel of
// the seam (core/kernels/list.h) had its two tiers compared by a check of the suites
// core_kernel_tiers or core_kernel_tiers_basic (the first word of each mismatches() label,
// tier_compare.h), so a kernel added without a comparison fails here. It runs after those two,
// which it depends on (if one fails, this one is skipped: the failure is already reported).
// Boost.Test resolves a dependency when the suite registers, and the suites register in the
// order of their files' names, so both must sort before this file.
//
// The list is read first, before any header that includes it, with this file's own
// D2L_KERNEL: each kernel's line then records its name.
#include <string>
#include <vector>

namespace {
std::vector<std::string>& listed_kernels() {
  static std::vector<std::string> names;
  return names;
}
}  // namespace

#define D2L_KERNEL(name, ...) static const bool name##_is_listed = (listed_kernels().push_back(#name), true)
#include "core/kernels/list.h"

#include <boost/test/unit_test.hpp>

#include "tests/tier_compare.h"

namespace utf = boost::unit_test;
BOOST_AUTO_TEST_SUITE(core_kernel_tiers_cover,
                      *utf::depends_on("core_kernel_tiers") * utf::depends_on("core_kernel_tiers_basic"))

BOOST_AUTO_TEST_CASE(every_listed_kernel_compared) {
  BOOST_TEST(listed_kernels().size() >= 30u);  // the list was read: 34 kernels when this was written
  for (const std::string& name : listed_kernels())
    BOOST_TEST(tier_test::compared_kernels().count(name) == 1u, name << ": no tier test compares its fast and reference kernels");
}

BOOST_AUTO_TEST_SUITE_END()
