// tests/test_tools_npy.cpp — the .npy reader (tools/d2l/figures/npy.h) on files NumPy wrote
// (tests/fixtures/npy/, made as its README says) and on hand-made broken ones; the matrices in
// show_heatmaps' layout; build/tools/heatmap drawing an .npy file as PNG and SVG.
#include <boost/test/unit_test.hpp>
#include <stb/stb_image.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "tests/test_util.h"
#include "tests/xml_check.h"
#include "tools/d2l/figures/figures.h"
#include "tools/d2l/figures/npy.h"

using d2l::NpyArray;

namespace {

const std::string kDir = "tests/fixtures/npy/";

NpyArray read_bytes(const std::string& bytes, const std::string& name = "w.npy") {
  std::istringstream in(bytes);
  return d2l::read_npy(in, name);
}

// The reader must throw runtime_error "w.npy: ..." containing `part`.
void check_error(const std::string& bytes, const std::string& part) {
  try {
    read_bytes(bytes);
    BOOST_ERROR("no error, wanted: " << part);
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    BOOST_CHECK_MESSAGE(msg.rfind("w.npy: ", 0) == 0 && msg.find(part) != std::string::npos,
                        "message: " << msg << "\nwanted: w.npy: ..." << part << "...");
  }
}

// An .npy file by hand: magic, version, header length (2 bytes in 1.0, else 4), header, data.
std::string npy(const std::string& header, const std::string& data = "", int major = 1) {
  std::string s = "\x93NUMPY";
  s += static_cast<char>(major);
  s += '\0';
  const uint32_t n = static_cast<uint32_t>(header.size());
  for (int k = 0; k < (major == 1 ? 2 : 4); ++k) s += static_cast<char>((n >> (8 * k)) & 0xFF);
  return s + header + data;
}

std::string dict(const std::string& descr, const std::string& shape, const std::string& fortran = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }\n";
}

// Little-endian float64 bytes.
std::string le_f8(std::vector<double> v) {
  std::string s;
  for (double d : v) {
    uint64_t u;
    std::memcpy(&u, &d, 8);
    for (int k = 0; k < 8; ++k) s += static_cast<char>((u >> (8 * k)) & 0xFF);
  }
  return s;
}

void check_array(const NpyArray& a, const std::string& descr, int version, std::vector<int64_t> shape,
                 const std::vector<float>& want) {
  BOOST_CHECK_EQUAL(a.descr, descr);
  BOOST_CHECK_EQUAL(a.major_version, version);
  BOOST_CHECK_EQUAL(d2l::npy_shape_str(a.shape), d2l::npy_shape_str(shape));
  BOOST_REQUIRE_EQUAL(a.values.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)  // exact: every value is the float NumPy rounds to
    BOOST_CHECK_MESSAGE(a.values[i] == want[i], "value " << i << ": " << a.values[i] << " vs " << want[i]);
}

const std::vector<float> kA{0.5f, -1.25f, 2.0f, 3.75f, 0.1f, -0.0f};  // a in the README

std::vector<float> b_values() {  // (k - 5.5) / 4
  std::vector<float> v;
  for (int k = 0; k < 12; ++k) v.push_back((k - 5.5f) / 4);
  return v;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tools_npy)

BOOST_AUTO_TEST_CASE(files_written_by_numpy) {
  check_array(d2l::read_npy_file(kDir + "f4_le_2d.npy"), "<f4", 1, {2, 3}, kA);
  BOOST_CHECK(std::signbit(d2l::read_npy_file(kDir + "f4_le_2d.npy").values[5]));  // -0.0
  check_array(d2l::read_npy_file(kDir + "f8_be_2d.npy"), ">f8", 1, {2, 3}, kA);
  check_array(d2l::read_npy_file(kDir + "f4_be_3d.npy"), ">f4", 1, {2, 2, 3}, b_values());
  std::vector<float> c;
  for (int k = 0; k < 24; ++k) c.push_back(static_cast<float>(k / 8.0 + 0.1));
  check_array(d2l::read_npy_file(kDir + "f8_le_4d.npy"), "<f8", 1, {2, 3, 1, 4}, c);
  check_array(d2l::read_npy_file(kDir + "v2_f4_le_3d.npy"), "<f4", 2, {2, 2, 3}, b_values());
  check_array(d2l::read_npy_file(kDir + "v3_f8_be_2d.npy"), ">f8", 3, {2, 3}, kA);
  check_array(d2l::read_npy_file(kDir + "f4_1d.npy"), "<f4", 1, {3}, {0, 1, 2});
  // NaN and ±inf are kept, as the text reader keeps them; the heatmap draws them grey.
  const NpyArray nf = d2l::read_npy_file(kDir + "nonfinite_f4.npy");
  BOOST_REQUIRE_EQUAL(nf.values.size(), 4u);
  BOOST_CHECK(std::isnan(nf.values[0]));
  BOOST_CHECK(nf.values[1] == INFINITY && nf.values[2] == -INFINITY && nf.values[3] == 1.0f);
}

BOOST_AUTO_TEST_CASE(refused_files_written_by_numpy) {
  const auto pred = [](std::vector<std::string> p) { return d2l_test::message_has(std::move(p)); };
  BOOST_CHECK_EXCEPTION(d2l::read_npy_file(kDir + "fortran_f4.npy"), std::runtime_error,
                        pred({kDir + "fortran_f4.npy: fortran_order is True", "np.ascontiguousarray"}));
  BOOST_CHECK_EXCEPTION(d2l::read_npy_file(kDir + "int64_2d.npy"), std::runtime_error,
                        pred({kDir + "int64_2d.npy: dtype '<i8' is not supported", "astype(np.float32)"}));
  BOOST_CHECK_EXCEPTION(d2l::read_npy_file(kDir + "missing.npy"), std::runtime_error,
                        pred({"cannot open '" + kDir + "missing.npy'"}));
}

BOOST_AUTO_TEST_CASE(hand_made_headers) {
  // Python 2's long integers, double quotes, no trailing comma, no padding: all NumPy's.
  check_array(read_bytes(npy("{\"descr\": \"<f4\", \"shape\": (1L, 2L), \"fortran_order\": False}",
                             std::string("\0\0\x80\x3f\0\0\0\x40", 8))),
              "<f4", 1, {1, 2}, {1.0f, 2.0f});
  check_array(read_bytes(npy(dict("<f8", "(0, 3)"))), "<f8", 1, {0, 3}, {});  // an empty array reads
  check_array(read_bytes(npy(dict("<f4", "()"), std::string("\0\0\x80\x3f", 4), 2)), "<f4", 2, {}, {1.0f});
}

BOOST_AUTO_TEST_CASE(malformed_headers_name_the_file) {
  check_error("", "bad magic");
  check_error("\x93NUMPZ\x01\x00", "bad magic");
  check_error("PK\x03\x04 zip", ".npz archive");
  check_error("\x93NUMPY\x01", "file ends inside the .npy preamble");
  check_error(npy(dict("<f4", "(1,)"), "", 4), "unsupported .npy format version 4.0 (known: 1.0, 2.0, 3.0)");
  std::string minor = npy(dict("<f4", "(1,)"));
  minor[7] = 1;
  check_error(minor, "unsupported .npy format version 1.1");
  check_error(npy(dict("<f4", "(1,)")).substr(0, 30), "file ends inside the header (20 of 58 bytes)");
  check_error(npy(std::string(20000, ' '), "", 2), "header of 20000 bytes is longer than NumPy's limit of 10000");
  check_error(npy("['descr', 'shape']"), "header is not a dict");
  check_error(npy("{'descr': '<f4', 'shape': (1,)}"), "header has no 'fortran_order'");
  check_error(npy("{'descr': '<f4', 'order': 'C', 'fortran_order': False, 'shape': (1,)}"), "unknown key 'order'");
  check_error(npy("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}"), "key 'descr' twice");
  check_error(npy("{'descr' '<f4'}"), "header: expected ':' after 'descr' at column 10");
  check_error(npy("{'descr: '<f4'}"), "header: expected ':' after 'descr: '");
  check_error(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)"), "the dict is never closed");
  check_error(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x"), "text after the dict");
  check_error(npy("{'shape': " + std::string(1000, '(') + "}"), "nested too deep");
  check_error(npy(dict("<f4", "[2, 3]")), "shape must be a tuple, got [2, 3]");
  check_error(npy(dict("<f4", "(2, -3)")), "shape (2, -3) must hold non-negative integers");
  check_error(npy(dict("<f4", "(2, 'x')")), "must hold non-negative integers");
  check_error(npy(dict("<f4", "(99999999999999999999,)")), "integer too large");
  check_error(npy(dict("<f4", "(1,)", "'no'")), "fortran_order must be True or False, got 'no'");
  check_error(npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}"),
              "dtype [('a', '<f4')] is not supported");
  check_error(npy(dict("<f2", "(1,)")), "dtype '<f2' is not supported");
  check_error(npy(dict("=f4", "(1,)")), "dtype '=f4' is not supported");
}

BOOST_AUTO_TEST_CASE(truncated_and_trailing_data) {
  const std::string whole = d2l_test::read_file(kDir + "f4_le_2d.npy");  // 128-byte header block, 24 data bytes
  BOOST_REQUIRE_EQUAL(whole.size(), 152u);
  check_error(whole.substr(0, 151), "data ends after 23 bytes, but shape (2, 3) of float32 needs 24 (a truncated file?)");
  check_error(whole.substr(0, 128), "data ends after 0 bytes");
  check_error(whole + std::string(4, '\0'), "more bytes after the 24 data bytes of shape (2, 3) of float32");
  check_error(npy(dict("<f8", "(1, 2)"), le_f8({1.0, 1e39})), "value 1e+39 at [0, 1] is beyond float32's range");
  check_array(read_bytes(npy(dict("<f8", "(1, 2)"), le_f8({-3e38, 1e-50}))), "<f8", 1, {1, 2}, {-3e38f, 0.0f});
}

BOOST_AUTO_TEST_CASE(absurd_shapes_fail_before_any_allocation) {
  // 2^40 × 2^40 float32 overflows the byte count; 2^30 × 2^30 (2^62 bytes) does not, but the data is
  // not there: both fail at once, reading only the header.
  check_error(npy(dict("<f4", "(1099511627776, 1099511627776)")), "needs more than 2^63 bytes");
  check_error(npy(dict("<f8", "(2147483648, 2147483648)")), "needs more than 2^63 bytes");
  check_error(npy(dict("<f4", "(9223372036854775807, 2)")), "needs more than 2^63 bytes");
  check_error(npy(dict("<f4", "(1073741824, 1073741824)")),
              "data ends after 0 bytes, but shape (1073741824, 1073741824) of float32 needs 4611686018427387904");
  // An empty dimension makes the array empty whatever the others say.
  check_array(read_bytes(npy(dict("<f4", "(0, 4611686018427387904)"))), "<f4", 1, {0, 4611686018427387904}, {});
}

BOOST_AUTO_TEST_CASE(heatmap_layout_of_two_to_four_dims) {
  const auto grid = [](std::vector<int64_t> shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return d2l::heatmap_grid(shape, std::vector<float>(static_cast<size_t>(n), 0.5f), "w.npy");
  };
  auto dims = [](const d2l::HeatmapGrid& g) { return std::vector<int64_t>{g.rows, g.cols, g.height, g.width}; };
  BOOST_CHECK(dims(grid({2, 3})) == (std::vector<int64_t>{1, 1, 2, 3}));        // one matrix
  BOOST_CHECK(dims(grid({4, 2, 3})) == (std::vector<int64_t>{1, 4, 2, 3}));     // one row of 4
  BOOST_CHECK(dims(grid({2, 4, 2, 3})) == (std::vector<int64_t>{2, 4, 2, 3}));  // the grid
  const auto pred = [](std::vector<std::string> p) { return d2l_test::message_has(std::move(p)); };
  BOOST_CHECK_EXCEPTION(grid({3}), std::runtime_error, pred({"w.npy: shape (3,) has 1 dimension; a heatmap needs 2"}));
  BOOST_CHECK_EXCEPTION(grid({1, 1, 1, 2, 2}), std::runtime_error, pred({"w.npy: shape (1, 1, 1, 2, 2) has 5 dimensions"}));
  BOOST_CHECK_EXCEPTION(d2l::heatmap_grid({2, 0}, {}, "w.npy"), std::runtime_error,
                        pred({"w.npy: shape (2, 0) is empty"}));
  BOOST_CHECK_EXCEPTION(d2l::heatmap_grid({2, 2}, {1, 2, 3}, "w.npy"), std::runtime_error,
                        pred({"w.npy: shape (2, 2) does not hold the 3 values given"}));
}

BOOST_AUTO_TEST_CASE(heatmap_tool_draws_npy_as_png_and_svg) {
  const std::string tool = d2l_test::build_dir() + "/tools/heatmap";
  BOOST_REQUIRE_MESSAGE(d2l_test::fs::exists(tool), tool << " is missing: run make");
  const d2l_test::TempDir dir("npy_tool");
  const std::string file = kDir + "f8_le_4d.npy";  // (2, 3, 1, 4): a 2 × 3 grid of 1 × 4 matrices
  auto [rc, out] = d2l_test::run_capture(tool + " --xlabel Keys --ylabel Queries --title A --title B --title C "
                                                "--figsize 6,2.5 --out " + dir("w.png") + " " + file);
  BOOST_CHECK_EQUAL(rc, 0);
  BOOST_CHECK_MESSAGE(out.find("saved " + dir("w.png") + " (2 x 3 grid of 1 x 4 matrices)") != std::string::npos, out);

  // The PNG's cells in the colormap's colours over the file's values.
  d2l::HeatmapOptions opt;
  opt.xlabel = "Keys";
  opt.ylabel = "Queries";
  opt.titles = {"A", "B", "C"};
  opt.figsize = {6, 2.5f};
  NpyArray a = d2l::read_npy_file(file);
  const d2l::HeatmapGrid g = d2l::heatmap_grid(a.shape, a.values, file);
  const d2l::HeatmapLayout L = d2l::heatmap_layout(g, opt);
  int w = 0, h = 0, n = 0;
  std::unique_ptr<unsigned char, void (*)(void*)> px(stbi_load(dir("w.png").c_str(), &w, &h, &n, 3), stbi_image_free);
  BOOST_REQUIRE(px);
  BOOST_CHECK_EQUAL(w, 1200);
  for (int k : {0, 4}) {  // matrix k, its last cell
    const d2l::Box& ax = L.axes[k];
    const int x = static_cast<int>(ax.x0 + 3.5f * L.cell), y = static_cast<int>(ax.y0 + 0.5f * L.cell);
    const unsigned char* p = px.get() + (static_cast<size_t>(y) * w + x) * 3;
    const d2l::Rgb want = d2l::colormap("Reds", (g.values[k * 4 + 3] - L.vmin) / (L.vmax - L.vmin));
    BOOST_CHECK_MESSAGE(std::abs(p[0] - want.r) <= 2 && std::abs(p[1] - want.g) <= 2 && std::abs(p[2] - want.b) <= 2,
                        "matrix " << k << ": got " << int(p[0]) << "," << int(p[1]) << "," << int(p[2]) << " want "
                                  << d2l::hex_str(want));
  }

  // The same figure as SVG, by --format (and the default name), with its labels as text.
  std::tie(rc, out) = d2l_test::run_capture("cd " + dir.path.string() + " && " + d2l_test::fs::absolute(tool).string() +
                                            " --xlabel Keys --ylabel Queries --title A --title B --title C "
                                            "--figsize 6,2.5 --format svg " + d2l_test::fs::absolute(file).string());
  BOOST_CHECK_EQUAL(rc, 0);
  BOOST_CHECK_MESSAGE(out.find("saved out/heatmap.svg (2 x 3 grid of 1 x 4 matrices)") != std::string::npos, out);
  const d2l_test::XmlDoc doc = d2l_test::parse_xml(d2l_test::read_file(dir.path / "out/heatmap.svg"));
  BOOST_REQUIRE_MESSAGE(doc.error.empty(), doc.error);
  int keys = 0, queries = 0, titles = 0;
  for (const d2l_test::XmlElement* e : doc.all("text"))
    keys += e->text == "Keys", queries += e->text == "Queries", titles += e->text == "A" || e->text == "C";
  BOOST_CHECK_EQUAL(keys, 3);     // under each column
  BOOST_CHECK_EQUAL(queries, 2);  // left of each row
  BOOST_CHECK_EQUAL(titles, 4);   // every subplot gets its column's title
  BOOST_CHECK_EQUAL(doc.all("rect").size() > 24u, true);

  // From stdin (recognised by the magic), and the errors.
  std::tie(rc, out) = d2l_test::run_capture("cat " + kDir + "f4_be_3d.npy | " + tool + " --out " + dir("s.svg") + " -");
  BOOST_CHECK_EQUAL(rc, 0);
  BOOST_CHECK_MESSAGE(out.find("(1 x 2 grid of 2 x 3 matrices)") != std::string::npos, out);
  d2l_test::write_file(dir("cut.npy"), d2l_test::read_file(kDir + "f4_le_2d.npy").substr(0, 140));
  std::tie(rc, out) = d2l_test::run_capture(tool + " --out " + dir("cut.png") + " " + dir("cut.npy"));
  BOOST_CHECK_EQUAL(rc, 1);
  BOOST_CHECK_MESSAGE(out.find("error: " + dir("cut.npy") + ": data ends after 12 bytes") != std::string::npos, out);
  BOOST_CHECK(!d2l_test::fs::exists(dir("cut.png")));
  std::tie(rc, out) = d2l_test::run_capture(tool + " --out " + dir("x.png") + " " + kDir + "f4_1d.npy");
  BOOST_CHECK_EQUAL(rc, 1);
  BOOST_CHECK_MESSAGE(out.find("f4_1d.npy: shape (3,) has 1 dimension") != std::string::npos, out);
  std::tie(rc, out) = d2l_test::run_capture(tool + " --format svg --out " + dir("x.png") + " " + file);
  BOOST_CHECK_EQUAL(rc, 2);
  BOOST_CHECK_MESSAGE(out.find("--format svg but --out '" + dir("x.png") + "' names a png file") != std::string::npos, out);
  std::tie(rc, out) = d2l_test::run_capture(tool + " --format pdf " + file);
  BOOST_CHECK_EQUAL(rc, 2);
  BOOST_CHECK_MESSAGE(out.find("--format must be png or svg, got 'pdf'") != std::string::npos, out);
  std::tie(rc, out) = d2l_test::run_capture(tool + " --out " + dir("x.pdf") + " " + file);
  BOOST_CHECK_EQUAL(rc, 2);
  BOOST_CHECK_MESSAGE(out.find("unknown figure format '.pdf'") != std::string::npos, out);
}

BOOST_AUTO_TEST_SUITE_END()
