// tests/test_tools_figures_svg.cpp — figures written as SVG (tools/d2l/figures/surface.h): the file is
// well-formed XML (tests/xml_check.h, and xmllint when it is installed), labels are <text>
// elements at the places the layout gives, cells are <rect>s in the colormap's colours,
// lines are <path>s; unknown extensions are refused.
#include <boost/test/unit_test.hpp>
#include <stb/stb_image.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/test_util.h"
#include "tests/xml_check.h"
#include "tools/d2l/figures/animator.h"
#include "tools/d2l/figures/figures.h"
#include "tools/d2l/figures/figures_style.h"

using d2l_test::message_has;
using d2l_test::parse_xml;
using d2l_test::XmlDoc;
using d2l_test::XmlElement;
using namespace d2l;
namespace fs = std::filesystem;

namespace {

const d2l_test::TempDir& scratch() {
  static const d2l_test::TempDir dir("figures_svg");
  return dir;
}

// Parses the file, requires it to be well-formed, and has xmllint agree when it exists.
XmlDoc load_svg(const std::string& path) {
  const std::string text = d2l_test::read_file(path);
  BOOST_REQUIRE_MESSAGE(text.rfind("<?xml", 0) == 0, path << " does not start with an XML declaration");
  XmlDoc doc = parse_xml(text);
  BOOST_REQUIRE_MESSAGE(doc.error.empty(), path << " is not well-formed: " << doc.error);
  BOOST_REQUIRE(!doc.elements.empty() && doc.elements[0].name == "svg");
  if (std::system("command -v xmllint >/dev/null 2>&1") == 0) {
    const auto [rc, out] = d2l_test::run_capture("xmllint --noout " + path);
    BOOST_CHECK_MESSAGE(rc == 0, "xmllint: " << out);
  } else {
    BOOST_TEST_MESSAGE("xmllint is not installed: only the test's own XML check ran on " << path);
  }
  return doc;
}

std::vector<std::string> texts(const XmlDoc& doc) {
  std::vector<std::string> out;
  for (const XmlElement* e : doc.all("text")) out.push_back(e->text);
  return out;
}

int count(const std::vector<std::string>& v, const std::string& s) {
  return static_cast<int>(std::count(v.begin(), v.end(), s));
}

float num(const XmlElement& e, const std::string& key) {
  const std::string v = e.attr(key);
  BOOST_REQUIRE_MESSAGE(!v.empty(), "<" << e.name << "> has no " << key);
  return std::stof(v);
}

// The <rect> whose top-left corner and size are (x, y, w, h), to 0.01 px; null if none.
const XmlElement* rect_at(const XmlDoc& doc, float x, float y, float w, float h) {
  for (const XmlElement* e : doc.all("rect"))
    if (e->attrs.count("x") && std::fabs(num(*e, "x") - x) < 0.01f && std::fabs(num(*e, "y") - y) < 0.01f &&
        std::fabs(num(*e, "width") - w) < 0.01f && std::fabs(num(*e, "height") - h) < 0.01f)
      return e;
  return nullptr;
}

std::string base64_decode(const std::string& s) {
  const std::string k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    if (c == '=') break;
    const size_t v = k.find(c);
    BOOST_REQUIRE_MESSAGE(v != std::string::npos, "not base64: '" << c << "'");
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

HeatmapOptions two_heads() {
  HeatmapOptions opt;
  opt.xlabel = "Keys";
  opt.ylabel = "Queries";
  opt.titles = {"Head 1", "Head 2"};
  opt.figsize = {5, 2.5f};
  return opt;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tools_figures_svg)

BOOST_AUTO_TEST_CASE(the_xml_check_refuses_malformed_documents) {
  BOOST_CHECK(parse_xml("<svg><g/><text x=\"1\">a &amp; b</text></svg>").error.empty());
  for (const char* bad : {"<svg><g></svg>", "<svg>a & b</svg>", "<svg x=1/>", "<svg a=\"1\" a=\"2\"/>",
                          "<svg a=\"1\"b=\"2\"/>", "<svg/><svg/>", "<svg>&nbsp;</svg>", "<svg><text>a < b</text></svg>",
                          "<svg>", ""})
    BOOST_CHECK_MESSAGE(!parse_xml(bad).error.empty(), "accepted: " << bad);
  const XmlDoc d = parse_xml("<svg><text>&lt;&#x2212;1&gt;</text></svg>");
  BOOST_CHECK_EQUAL(d.all("text")[0]->text, "<\u22121>");
}

BOOST_AUTO_TEST_CASE(heatmap_svg_labels_cells_and_colorbar) {
  // eye(3) and a constant 0.5 matrix side by side, the book's two-head figure.
  HeatmapGrid g{1, 2, 3, 3, {1, 0, 0, 0, 1, 0, 0, 0, 1, .5f, .5f, .5f, .5f, .5f, .5f, .5f, .5f, .5f}};
  const HeatmapOptions opt = two_heads();
  const std::string path = scratch()("heads.svg");
  show_heatmaps(g, opt, path);
  const XmlDoc doc = load_svg(path);
  const HeatmapLayout L = heatmap_layout(g, opt);

  // The figure's size in points (5 × 72, 2.5 × 72) over the PNG's pixels.
  const XmlElement& svg = doc.elements[0];
  BOOST_CHECK_EQUAL(svg.attr("width"), "360pt");
  BOOST_CHECK_EQUAL(svg.attr("height"), "180pt");
  BOOST_CHECK_EQUAL(svg.attr("viewBox"), "0 0 1000 500");

  // Labels as text: x label under both columns, y label once and turned, both titles,
  // the cell ticks and every colorbar tick label.
  const auto t = texts(doc);
  BOOST_CHECK_EQUAL(count(t, "Keys"), 2);
  BOOST_CHECK_EQUAL(count(t, "Queries"), 1);
  BOOST_CHECK_EQUAL(count(t, "Head 1"), 1);
  BOOST_CHECK_EQUAL(count(t, "Head 2"), 1);
  BOOST_CHECK_EQUAL(count(t, "2"), 3);  // the last cell's tick: on x under both columns, on y once
  for (const std::string& label : tick_labels(L.colorbar_ticks)) BOOST_CHECK_EQUAL(count(t, label), 1);
  for (const XmlElement* e : doc.all("text")) {
    if (e->text == "Queries") {
      BOOST_CHECK_EQUAL(e->attr("transform").rfind("rotate(-90 ", 0), 0u);
      BOOST_CHECK_CLOSE(num(*e, "y"), L.ylabels[0].cy(), 0.01);
    }
    if (e->text == "Keys") BOOST_CHECK_EQUAL(e->attr("text-anchor"), "middle");
  }
  const XmlElement* keys = doc.all("text")[0];
  for (const XmlElement* e : doc.all("text"))
    if (e->text == "Keys") { keys = e; break; }
  BOOST_CHECK_CLOSE(num(*keys, "x"), L.xlabels[0].cx(), 0.01);  // where the PNG puts it

  // Cells: one <rect> each, where the layout says, in the colormap's colours.
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const Box& a = L.axes[c];
        const XmlElement* r = rect_at(doc, a.x0 + j * L.cell, a.y0 + i * L.cell, L.cell, L.cell);
        BOOST_REQUIRE_MESSAGE(r, "no cell rect for matrix " << c << " (" << i << ", " << j << ")");
        const float v = g.at(0, c, i, j);
        BOOST_CHECK_EQUAL(r->attr("fill"), hex_str(colormap("Reds", (v - L.vmin) / (L.vmax - L.vmin))));
      }
  // The colorbar: one rect per pixel row, the top one darkest; frames for both axes and it.
  const Box& cb = L.colorbar;
  const XmlElement* top = rect_at(doc, cb.x0, cb.y0, cb.width(), 1);
  const XmlElement* bottom = rect_at(doc, cb.x0, cb.y1 - 1, cb.width(), 1);
  BOOST_REQUIRE(top && bottom);
  BOOST_CHECK_EQUAL(top->attr("fill"), "#67000d");
  BOOST_CHECK_EQUAL(bottom->attr("fill"), "#fff5f0");
  int frames = 0;
  for (const XmlElement* e : doc.all("rect")) frames += e->attr("fill") == "none" && e->attr("stroke") == "#000000";
  BOOST_CHECK_EQUAL(frames, 3);
  // Ticks are paths 0.8 pt wide.
  const float tick_w = FigureStyle(opt.dpi, opt.fontsize, opt.tick_fontsize).tick_width;
  int ticks = 0;
  for (const XmlElement* e : doc.all("path")) ticks += std::fabs(num(*e, "stroke-width") - tick_w) < 1e-3f;
  BOOST_CHECK_GE(ticks, 2 * (2 + 2) + static_cast<int>(L.colorbar_ticks.size()));  // >= 2 a side
}

BOOST_AUTO_TEST_CASE(svg_text_is_escaped_and_made_valid) {
  HeatmapOptions opt;
  opt.xlabel = "a < b & \"c\" 'd'";
  opt.ylabel = "bad \xff byte, control \x01, overlong \xC0\xAF";
  opt.xticklabels = {"<s>", "&"};
  const std::string path = scratch()("escaped.svg");
  show_heatmaps({1, 1, 1, 2, {0, 1}}, opt, path);
  const auto t = texts(load_svg(path));
  BOOST_CHECK_EQUAL(count(t, "a < b & \"c\" 'd'"), 1);
  BOOST_CHECK_EQUAL(count(t, "bad \uFFFD byte, control \uFFFD, overlong \uFFFD\uFFFD"), 1);
  BOOST_CHECK_EQUAL(count(t, "<s>"), 1);
  BOOST_CHECK_EQUAL(count(t, "&"), 1);
}

BOOST_AUTO_TEST_CASE(heatmap_cells_carry_a_tooltip) {
  // Each cell's <title>, which a browser shows on hover: subplot title, query, key, weight,
  // with the names escaped (read back through the strict parser).
  HeatmapOptions opt;
  opt.xlabel = "Keys";
  opt.ylabel = "Queries";
  opt.titles = {"Head 1", "Head 2"};
  opt.xnames = {"<unk>", "&", "\"q\""};
  opt.ynames = {"je", "l'ai"};
  const std::string path = scratch()("tips.svg");
  show_heatmaps({1, 2, 2, 3, {0, .5f, .5f, 1, 0, 0, .125f, .25f, .625f, .1f, .2f, .7f}}, opt, path);
  const XmlDoc doc = load_svg(path);
  std::vector<std::string> tips;
  for (const XmlElement* e : doc.all("title")) tips.push_back(e->text);
  BOOST_REQUIRE_EQUAL(tips.size(), 12u);  // 2 matrices of 2 x 3
  BOOST_CHECK_EQUAL(tips[0], "Head 1: Queries 0 'je', Keys 0 '<unk>': 0.0000");
  BOOST_CHECK_EQUAL(tips[5], "Head 1: Queries 1 'l'ai', Keys 2 '\"q\"': 0.0000");
  BOOST_CHECK_EQUAL(tips[7], "Head 2: Queries 0 'je', Keys 1 '&': 0.2500");
  BOOST_CHECK_EQUAL(tips[11], "Head 2: Queries 1 'l'ai', Keys 2 '\"q\"': 0.7000");
  // Without names the tick words name them, without those the index alone.
  HeatmapOptions plain;
  BOOST_CHECK_EQUAL(heatmap_cell_tip(plain, 0, 0, 2, 1, 0.5f), "row 2, column 1: 0.5000");
  plain.xticklabels = {"a", "man"};
  BOOST_CHECK_EQUAL(heatmap_cell_tip(plain, 0, 0, 0, 1, 1.0f), "row 0, column 1 'man': 1.0000");
}

BOOST_AUTO_TEST_CASE(large_matrices_are_one_embedded_image) {
  // 300 × 300 cells would be 90,000 <rect>s: the matrix is one PNG, a pixel per cell.
  HeatmapGrid g{1, 1, 300, 300, std::vector<float>(300 * 300)};
  for (int i = 0; i < 300; ++i)
    for (int j = 0; j < 300; ++j) g.values[i * 300 + j] = static_cast<float>(i) / 299;
  const std::string path = scratch()("big.svg");
  show_heatmaps(g, HeatmapOptions{}, path);
  const XmlDoc doc = load_svg(path);
  BOOST_CHECK_LT(doc.all("rect").size(), 1000u);
  const auto images = doc.all("image");
  BOOST_REQUIRE_EQUAL(images.size(), 1u);
  const HeatmapLayout L = heatmap_layout(g, HeatmapOptions{});
  BOOST_CHECK_CLOSE(num(*images[0], "x"), L.axes[0].x0, 0.01);
  BOOST_CHECK_CLOSE(num(*images[0], "width"), L.axes[0].width(), 0.01);
  const std::string href = images[0]->attr("xlink:href"), prefix = "data:image/png;base64,";
  BOOST_REQUIRE_EQUAL(href.rfind(prefix, 0), 0u);
  const std::string png = base64_decode(href.substr(prefix.size()));
  int w = 0, h = 0, n = 0;
  std::unique_ptr<unsigned char, void (*)(void*)> px(
      stbi_load_from_memory(reinterpret_cast<const unsigned char*>(png.data()), static_cast<int>(png.size()), &w, &h,
                            &n, 3),
      stbi_image_free);
  BOOST_REQUIRE(px);
  BOOST_CHECK_EQUAL(w, 300);
  BOOST_CHECK_EQUAL(h, 300);
  auto at = [&](int x, int y) {
    const unsigned char* p = px.get() + (static_cast<size_t>(y) * w + x) * 3;
    return Rgb{p[0], p[1], p[2]};
  };
  BOOST_CHECK(at(150, 0) == rgb_hex("#fff5f0"));
  BOOST_CHECK(at(150, 299) == rgb_hex("#67000d"));
  BOOST_CHECK(at(7, 150) == colormap("Reds", 150.0f / 299));
}

BOOST_AUTO_TEST_CASE(plot_svg_lines_markers_and_legend) {
  // y = 1 (C0) broken by a NaN, y = 2 dashed magenta, one training point (C1, alpha 0.5).
  PlotOptions opt;
  opt.xlabel = "x";
  opt.ylabel = "y";
  opt.xlim = {{0, 4}};
  opt.ylim = {{0, 4}};
  opt.legend = {"Truth", "Pred"};
  std::vector<Series> s = make_series({0, 1, 2, 3, 4}, {{1, 1, NAN, 1, 1}, {2, 2, 2, 2, 2}}, opt);
  s.push_back({{2.5f}, {3.0f}, "o", "", {}});
  const std::string path = scratch()("plot.svg");
  plot(s, opt, path);
  const XmlDoc doc = load_svg(path);
  const PlotLayout L = plot_layout(s, opt);
  const FigureStyle st(opt.dpi, opt.fontsize, opt.fontsize);

  const auto t = texts(doc);
  for (const char* label : {"x", "y", "Truth", "Pred"}) BOOST_CHECK_EQUAL(count(t, label), 1);
  for (const auto& l : tick_labels(L.xticks)) BOOST_CHECK_GE(count(t, l), 1);

  std::vector<const XmlElement*> c0, magenta;
  for (const XmlElement* e : doc.all("path")) {
    if (e->attr("stroke") == "#1f77b4") c0.push_back(e);
    if (e->attr("stroke") == "#bf00bf") magenta.push_back(e);
  }
  BOOST_REQUIRE_EQUAL(c0.size(), 2u);       // the curve and its legend sample
  BOOST_REQUIRE_EQUAL(magenta.size(), 2u);
  const std::string d = c0[0]->attr("d");   // two runs: M..L.. M..L..
  BOOST_CHECK_EQUAL(std::count(d.begin(), d.end(), 'M'), 2);
  float x0 = 0, y0 = 0;
  BOOST_REQUIRE_EQUAL(std::sscanf(d.c_str(), "M%f %f", &x0, &y0), 2);
  BOOST_CHECK_SMALL(x0 - L.px(0), 1e-3f);
  BOOST_CHECK_SMALL(y0 - L.py(1), 1e-3f);
  BOOST_CHECK_EQUAL(c0[0]->attr("stroke-linecap"), "round");
  BOOST_CHECK_CLOSE(num(*c0[0], "stroke-width"), 1.5f * st.pt, 0.01);
  float dash = 0;  // matplotlib's dashes, 3.7 on 1.6 off, times the 1.5 pt width
  BOOST_REQUIRE_EQUAL(std::sscanf(magenta[0]->attr("stroke-dasharray").c_str(), "%f", &dash), 1);
  BOOST_CHECK_CLOSE(dash, 3.7f * 1.5f * st.pt, 0.01);
  // Every clip-path points at a <clipPath> that exists.
  for (const XmlElement* e : doc.all("path")) {
    const std::string clip = e->attr("clip-path");
    if (clip.empty()) continue;
    bool found = false;
    for (const XmlElement* c : doc.all("clipPath")) found = found || clip == "url(#" + c->attr("id") + ")";
    BOOST_CHECK_MESSAGE(found, "dangling " << clip);
  }
  // The scatter point: a C1 disc at alpha 0.5 and its ring.
  int discs = 0;
  for (const XmlElement* e : doc.all("circle"))
    if (e->attr("fill") == "#ff7f0e") {
      ++discs;
      BOOST_CHECK_EQUAL(e->attr("fill-opacity"), "0.5");
      BOOST_CHECK_SMALL(num(*e, "cx") - L.px(2.5f), 1e-3f);
    }
  BOOST_CHECK_EQUAL(discs, 1);
  BOOST_CHECK_EQUAL(doc.all("circle").size(), 2u);
}

BOOST_AUTO_TEST_CASE(animator_writes_svg_and_extensions_are_checked) {
  std::FILE* out = std::tmpfile();
  BOOST_REQUIRE(out);
  Animator animator("epoch", {"loss"}, {1, 3}, 3, scratch()("loss.svg"));
  animator.set_output(out, false);
  for (int e = 1; e <= 3; ++e) animator.add(static_cast<float>(e), {1.0f / e});
  animator.finish();
  std::fclose(out);
  const auto t = texts(load_svg(scratch()("loss.svg")));
  BOOST_CHECK_EQUAL(count(t, "epoch"), 1);
  BOOST_CHECK_EQUAL(count(t, "loss"), 1);

  // An upper-case extension is still SVG; any other extension is refused before drawing.
  show_heatmaps({1, 1, 1, 1, {1}}, HeatmapOptions{}, scratch()("UP.SVG"));
  BOOST_CHECK_EQUAL(d2l_test::read_file(scratch()("UP.SVG")).rfind("<?xml", 0), 0u);
  BOOST_CHECK_EXCEPTION(show_heatmaps({1, 1, 1, 1, {1}}, HeatmapOptions{}, scratch()("eye.pdf")),
                        std::invalid_argument,
                        message_has({"[show_heatmaps]", "eye.pdf", "unknown figure format '.pdf'"}));
  BOOST_CHECK(!fs::exists(scratch()("eye.pdf")));
  BOOST_CHECK_EXCEPTION(Animator("epoch", {"loss"}, {1, 3}, 3, scratch()("loss.jpg")), std::invalid_argument,
                        message_has({"[Animator]", "'.jpg'"}));
  // Unwritable: a file used as a directory; no temporary is left behind.
  d2l_test::write_file(scratch()("plain_file"), "x");
  BOOST_CHECK_EXCEPTION(show_heatmaps({1, 1, 1, 1, {1}}, HeatmapOptions{}, scratch()("plain_file/x.svg")),
                        std::runtime_error, message_has({"[show_heatmaps]", "cannot write", "plain_file/x.svg"}));
  for (const auto& e : fs::directory_iterator(scratch().path))
    BOOST_CHECK_MESSAGE(e.path().string().find(".tmp.") == std::string::npos, "left behind " << e.path());
}

BOOST_AUTO_TEST_SUITE_END()
