// tests/test_tools_heatmap_text.cpp — the heatmap tool's text reader
// (tools/programs/heatmap/heatmap_text.h): both forms read to the hand-written grids, and every
// malformed input names file and line.
#include <boost/test/unit_test.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "tools/programs/heatmap/heatmap_text.h"

namespace {

void check_grid(const d2l::HeatmapGrid& g, std::vector<int64_t> shape, std::vector<float> values) {
  BOOST_CHECK_EQUAL(g.rows, shape[0]);
  BOOST_CHECK_EQUAL(g.cols, shape[1]);
  BOOST_CHECK_EQUAL(g.height, shape[2]);
  BOOST_CHECK_EQUAL(g.width, shape[3]);
  BOOST_CHECK_EQUAL_COLLECTIONS(g.values.begin(), g.values.end(), values.begin(), values.end());
}

// The reader must throw runtime_error whose message starts with `prefix`.
void check_error(const std::string& text, const std::string& prefix) {
  try {
    d2l::parse_heatmap_text(text, "in.txt");
    BOOST_ERROR("no error for input " << text.substr(0, 40));
  } catch (const std::runtime_error& e) {
    BOOST_CHECK_MESSAGE(std::string(e.what()).rfind(prefix, 0) == 0, "message: " << e.what() << ", wanted: " << prefix);
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tools_heatmap_text)

BOOST_AUTO_TEST_CASE(plain_rows_and_blank_lines) {
  // Two 2 x 2 matrices separated by a blank line become the grid's two columns; commas,
  // comments and CRLF line ends are accepted.
  check_grid(d2l::parse_heatmap_text("# weights\n1, 2\r\n3 4\n\n5 6\n7 8\n", "in.txt"), {1, 2, 2, 2},
             {1, 2, 3, 4, 5, 6, 7, 8});
}

// A byte-order mark made the first value "not a number"; a lone '\r' (old Mac line ends) joined
// two rows into one row of four values.
BOOST_AUTO_TEST_CASE(byte_order_mark_and_lone_carriage_returns) {
  check_grid(d2l::parse_heatmap_text("\xEF\xBB\xBF" "1 2\r\n3 4\r\n", "in.txt"), {1, 1, 2, 2}, {1, 2, 3, 4});
  check_grid(d2l::parse_heatmap_text("1 2\r3 4\r\r5 6\r7 8\r", "in.txt"), {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  check_grid(d2l::parse_heatmap_text("\xEF\xBB\xBFtensor([[1., 2.],\r\n [3., 4.]])", "in.txt"), {1, 1, 2, 2},
             {1, 2, 3, 4});
}

BOOST_AUTO_TEST_CASE(form_feed_and_vertical_tab_lines_are_blank) {
  // `istream >> token` skips \f and \v, so a line of them holds no values: it separates
  // matrices like an empty line, and is never read as a row of 0 values.
  check_grid(d2l::parse_heatmap_text("1 2\n\v\n3 4\n", "in.txt"), {1, 2, 1, 2}, {1, 2, 3, 4});
  check_grid(d2l::parse_heatmap_text("1 2\n \f\t\n3 4\n", "in.txt"), {1, 2, 1, 2}, {1, 2, 3, 4});
  check_error("\n\n\f", "in.txt: empty input");
}

BOOST_AUTO_TEST_CASE(printed_tensors_of_two_three_and_four_dims) {
  check_grid(d2l::parse_heatmap_text("tensor([[0.5, 1.5],\n        [2.5, 3.5]])", "in.txt"), {1, 1, 2, 2},
             {0.5f, 1.5f, 2.5f, 3.5f});
  check_grid(d2l::parse_heatmap_text("[[[1], [2]], [[3], [4]], [[5], [6]]]", "in.txt"), {1, 3, 2, 1},
             {1, 2, 3, 4, 5, 6});
  check_grid(d2l::parse_heatmap_text("[[[[1, 2]]], [[[3, 4]]]]", "in.txt"), {2, 1, 1, 2}, {1, 2, 3, 4});
  // PyTorch's trailer after the list is allowed.
  check_grid(d2l::parse_heatmap_text("tensor([[1., 2.]], grad_fn=<SoftmaxBackward0>)", "in.txt"), {1, 1, 1, 2},
             {1, 2});
}

BOOST_AUTO_TEST_CASE(malformed_inputs_name_file_and_line) {
  check_error("   \n\t\n", "in.txt: empty input");
  check_error("# only a comment\n", "in.txt: no numbers found");
  check_error("1 2\n3 x\n", "in.txt:2: 'x' is not a number");
  check_error("1 2\n3\n", "in.txt:2: row has 1 values, expected 2");
  check_error("1 2\n\n1 2\n3 4\n", "in.txt:4: matrix 2 is 2 x 2 but matrix 1 is 1 x 2");
  check_error("1,,2\n", "in.txt:1: empty value between commas");
  check_error("[[1, 2],\n [3]]", "in.txt:2: a list of shape (1,) after one of shape (2,)");
  check_error("[[1, ...]]", "in.txt:1: '...': the printout elided values");
  check_error("[[1, 2]", "in.txt:1: '[' is never closed");
  check_error("[[]]", "in.txt:1: empty list []");
  check_error("[[[[[1]]]]]", "in.txt:1: more than 4 nested lists");
  // 100,000 '[' overflowed the recursive parser's stack (SEGV); the depth cap refuses them.
  check_error(std::string(100000, '['), "in.txt:1: more than 4 nested lists");
}

BOOST_AUTO_TEST_SUITE_END()
