// tests/main.cpp — the Boost.Test entry point for build/tests/run_tests.
//
// Boost.Test's own main prints a report but not the plain closing line CI reads, so we use
// the library's runner and then print "N passed, N failed[, N skipped]" from its results.
// Suites are named after what they test: core_<area> for the engine (core_softmax, ...),
// sec_<section> for a book section's layers, tools_<file> for tools/, chapters_run for the
// programs and reliability for determinism, numerics checks and files; run one with
// --run_test=core_softmax. A test whose precondition fails (a serial build, a data set that
// is not there) counts as skipped; tests left out by --run_test are not counted at all.
#define BOOST_TEST_MODULE d2l
#define BOOST_TEST_NO_MAIN
#define BOOST_TEST_ALTERNATIVE_INIT_API
#include <boost/test/unit_test.hpp>
#include <boost/test/results_collector.hpp>
#include <boost/test/tree/traverse.hpp>
#include <boost/test/tree/visitor.hpp>

#include <cstdio>

namespace utf = boost::unit_test;

static bool init_suite() { return true; }

// Counts the test cases --run_test left out (Boost reports them as skipped too).
struct CountNotSelected : utf::test_tree_visitor {
  unsigned long n = 0;
  void visit(const utf::test_case& tc) override { n += !tc.is_enabled(); }
};

int main(int argc, char** argv) {
  const int rc = utf::unit_test_main(&init_suite, argc, argv);
  const utf::test_results& r = utf::results_collector.results(utf::framework::master_test_suite().p_id);
  CountNotSelected not_selected;
  utf::traverse_test_tree(utf::framework::master_test_suite(), not_selected, true);
  // Boost counts an aborted test case among the failed ones already; a test that passed with
  // warnings is still a pass.
  const unsigned long passed = r.p_test_cases_passed + r.p_test_cases_warned;
  const unsigned long failed = r.p_test_cases_failed + r.p_test_cases_timed_out;
  // When the filter matches nothing, Boost never runs the tree and counts no skips at all.
  const unsigned long skipped =
      r.p_test_cases_skipped > not_selected.n ? r.p_test_cases_skipped - not_selected.n : 0;
  std::fflush(stdout);
  std::printf("%lu passed, %lu failed", passed, failed);
  if (skipped > 0) std::printf(", %lu skipped", skipped);
  std::printf("\n");
  return rc;
}
