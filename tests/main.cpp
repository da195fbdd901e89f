// tests/main.cpp — the Boost.Test entry point for build/tests/run_tests.
//
// Boost.Test's own main prints a report but not the plain closing line CI reads, so we use
// the library's runner and then print "N passed, N failed[, N skipped]" from its results.
// Run one area with --run_test=core_softmax (suite names follow STYLE.md section 10).
#define BOOST_TEST_MODULE d2l
#define BOOST_TEST_NO_MAIN
#define BOOST_TEST_ALTERNATIVE_INIT_API
#include <boost/test/unit_test.hpp>
#include <boost/test/results_collector.hpp>

#include <cstdio>

namespace utf = boost::unit_test;

static bool init_suite() { return true; }

int main(int argc, char** argv) {
  const int rc = utf::unit_test_main(&init_suite, argc, argv);
  const utf::test_results& r = utf::results_collector.results(utf::framework::master_test_suite().p_id);
  const unsigned long failed = r.p_test_cases_failed + r.p_test_cases_aborted;
  std::fflush(stdout);
  std::printf("%lu passed, %lu failed", static_cast<unsigned long>(r.p_test_cases_passed), failed);
  if (r.p_test_cases_skipped > 0) std::printf(", %lu skipped", static_cast<unsigned long>(r.p_test_cases_skipped));
  std::printf("\n");
  return rc;
}
