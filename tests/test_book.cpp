// tests/test_book.cpp — the companion pages (tools/programs/book/, `make book`): the source trace the
// programs leave, the line ranges, escaping, the pages build/tools/book writes from real runs,
// and those pages opened in headless Chromium (tests/book_check.py; skipped without it).
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_prelude.h"
#include "tools/programs/book/html.h"

namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// The 1-based line of `chapters/<file>` that contains `what`.
int line_of(const std::string& file, const std::string& what) {
  const std::string text = read_file(file);
  const size_t p = text.find(what);
  BOOST_REQUIRE_MESSAGE(p != std::string::npos, file << " lacks '" << what << "'");
  return static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(p), '\n')) + 1;
}

// Runs of a few quick chapter programs with D2L_BOOK_TRACE, and the book written from them,
// made once for the suite's tests.
struct Runs {
  TempDir dir{"book_runs"};
  std::string runs = dir("runs"), out = dir("out"), book = dir("book");
  Runs() {
    const std::vector<std::pair<std::string, std::string>> programs = {
        {"attention_cues", ""},
        {"multihead_attention", ""},
        {"nadaraya_watson", "--quick"},
        {"bahdanau_attention", "--quick --translate \"i'm <unk> & 'cold' .\""}};
    for (const auto& [name, args] : programs) d2l_test::run_traced(name, args, runs, out + "/" + name);
    // One exercise run, where `make exercises` puts it (10.1 exercise 2).
    fs::create_directories(runs + "/exercises");
    const std::string ex = "D2L_BOOK_TRACE=" + runs + "/exercises/10.1-2.trace " + build_dir() +
                           "/chapters/attention_cues --ex 2 --out " + out + "/ex-10.1-2";
    const int ex_rc = run_command(ex, runs + "/exercises/10.1-2.log", runs + "/exercises/10.1-2.err");
    BOOST_REQUIRE_MESSAGE(ex_rc == 0, "attention_cues --ex 2 exited with " << ex_rc);
    d2l_test::write_book(runs, book, "", dir);
  }
};
Runs& runs() {
  static Runs r;
  return r;
}

tt::assertion_result chromium_available(utf::test_unit_id) {
  return d2l_test::command_succeeds("command -v chromium && command -v python3",
                                    "chromium not found (bash tools/scripts/install_deps.sh --browser installs it)");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(book)

BOOST_AUTO_TEST_CASE(escape_makes_tokens_and_bad_bytes_safe) {
  using d2l::book::escape;
  BOOST_TEST(escape("<unk> & \"q\" 'x'") == "&lt;unk&gt; &amp; &quot;q&quot; &#39;x&#39;");
  BOOST_TEST(escape("je suis \xE2\x80\x94 caf\xC3\xA9") == "je suis \xE2\x80\x94 caf\xC3\xA9");  // UTF-8 kept
  BOOST_TEST(escape(std::string("a\xFF" "b\x01" "c\xC0\xAF", 7)) == "a\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c\xEF\xBF\xBD\xEF\xBF\xBD");
  BOOST_TEST(d2l::book::line_anchor("chapters/a_b.cpp", 7) == "src-chapters-a_b-cpp-L7");
}

BOOST_AUTO_TEST_CASE(ranges_follow_blocks_and_statements) {
  const std::vector<std::string> src = {
      "int main() {",                              // 1
      "  print_banner(\"one { not a brace\");",   // 2
      "  f(1);  // }",                             // 3
      "",                                          // 4
      "  print_banner(\"two\");",                  // 5
      "  if (x) {",                                // 6
      "    show_heatmaps(w, \"Keys\",",            // 7
      "                  path);",                  // 8
      "    print_saved(path);",                    // 9
      "  }",                                       // 10
      "  write_figure(p, [&] {",                   // 11
      "    plot(s, o, p);",                        // 12
      "  });",                                     // 13
      "}"};                                        // 14
  using d2l::book::block_range;
  using d2l::book::figure_range;
  // Up to the next banner (blank line dropped), then up to the end of main's block.
  BOOST_TEST(block_range(src, 2, 5).first == 2);
  BOOST_TEST(block_range(src, 2, 5).last == 3);
  BOOST_TEST(block_range(src, 2, 0).last == 3);  // the print_banner on line 5 ends it too
  // ... and the opening of the block a banner that did not run is in.
  const std::vector<std::string> ex = {"  print_banner(\"a\");", "  g();", "  if (ex) {", "    // ---",
                                       "    print_banner(\"b\");", "  }"};
  BOOST_TEST(block_range(ex, 1, 0).last == 2);
  BOOST_TEST(block_range(src, 5, 0).last == 13);
  BOOST_TEST(block_range(src, 7, 0).last == 9);  // inside the if: ends before its '}'
  // print_saved takes the statement before it; write_figure its whole lambda.
  BOOST_TEST(figure_range(src, 9).first == 7);
  BOOST_TEST(figure_range(src, 9).last == 9);
  BOOST_TEST(figure_range(src, 11).first == 11);
  BOOST_TEST(figure_range(src, 11).last == 13);
  const auto inc = d2l::book::layer_includes({"#include \"layers/gru.h\"", "#include \"core/ops.h\""});
  BOOST_TEST(inc.size() == 1u);
  BOOST_TEST(inc.at(0) == "layers/gru.h");
}

BOOST_AUTO_TEST_CASE(trace_names_each_banner_and_figure_line) {
  Runs& r = runs();
  const int banner = line_of("chapters/attention_cues.cpp", "print_banner(\"注意力的可视化");
  const int saved = line_of("chapters/attention_cues.cpp", "print_saved(path);\n}");
  BOOST_TEST(read_file(r.runs + "/attention_cues.trace") ==
             "banner\tchapters/attention_cues.cpp\t" + std::to_string(banner) +
                 "\t注意力的可视化 / Visualization of Attention\n"
                 "figure\tchapters/attention_cues.cpp\t" + std::to_string(saved) + "\t" + r.out +
                 "/attention_cues/attention_weights.png\n");
  // Beside each PNG its SVG, whose 100 cells each carry a tooltip.
  const std::string svg = read_file(r.out + "/attention_cues/attention_weights.svg");
  BOOST_TEST(count(svg, "<title>") == 100u);
  BOOST_TEST(svg.find("<title>Queries 3, Keys 3: 1.0000</title>") != std::string::npos);
  BOOST_TEST(svg.find("<title>Queries 3, Keys 4: 0.0000</title>") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(pages_link_output_to_the_source_lines) {
  Runs& r = runs();
  const std::string index = read_file(r.book + "/index.html");
  for (const char* page : {"attention_cues", "multihead_attention", "nadaraya_watson", "bahdanau_attention"})
    BOOST_TEST(index.find(std::string("href=\"") + page + ".html\"") != std::string::npos, page);
  // The exercises table: every exercise of the catalog, each linked to an anchor its page has.
  const std::regex ex_link("href=\"([a-z_]+)\\.html#(ex-[0-9]+)\">([0-9]+\\.[0-9]+\\.[0-9]+)</a>");
  int exercises = 0;
  for (std::sregex_iterator it(index.begin(), index.end(), ex_link), end; it != end; ++it, ++exercises) {
    const std::string target = r.book + "/" + (*it)[1].str() + ".html";
    if (!fs::exists(target)) continue;  // a section whose program did not run here
    BOOST_TEST(read_file(target).find("id=\"" + (*it)[2].str() + "\"") != std::string::npos, (*it)[0].str());
  }
  BOOST_TEST(exercises == 10);  // those of the four sections run here: 10.1 (2), 10.2 (4), 10.4 (2), 10.5 (2)
  BOOST_TEST(index.find("href=\"nadaraya_watson.html#ex-3\">10.2.3</a>") != std::string::npos);
  BOOST_TEST(index.find("<th>tier</th><td>test</td>") != std::string::npos);
  const std::string page = read_file(r.book + "/attention_cues.html");
  const int banner = line_of("chapters/attention_cues.cpp", "print_banner(\"注意力的可视化");
  const int saved = line_of("chapters/attention_cues.cpp", "print_saved(path);\n}");
  // The block: from the banner to the end of the section's function (the line before its "}").
  const int end = line_of("chapters/attention_cues.cpp", "  print_saved(path);\n}\n");
  BOOST_TEST(page.find("<h1><span class=\"num\">10.1</span>注意力提示 <span class=\"en\">/ Attention Cues</span></h1>") !=
             std::string::npos);
  BOOST_TEST(page.find("href=\"#src-chapters-attention_cues-cpp-L" + std::to_string(banner) +
                       "\">chapters/attention_cues.cpp lines " + std::to_string(banner) + "\xE2\x80\x93" +
                       std::to_string(end) + "</a>") != std::string::npos);
  // The figure: the show_heatmaps call before print_saved, inline with its tooltips.
  BOOST_TEST(page.find("drawn by <a href=\"#src-chapters-attention_cues-cpp-L" + std::to_string(saved - 1) + "\">") !=
             std::string::npos);
  BOOST_TEST(count(page, "<title>") == 201u);  // the page's own, the 100 cells' of its figure and of exercise 2's
  BOOST_TEST(page.find("<span id=\"src-chapters-attention_cues-cpp-L" + std::to_string(banner) + "\" class=\"ref\">") !=
             std::string::npos);
  BOOST_TEST(fs::file_size(r.book + "/figures/attention_cues/1-attention_weights.png") ==
             fs::file_size(r.out + "/attention_cues/attention_weights.png"));
  // The layers the program includes are listed, and the --translate tokens are escaped.
  const std::string b = read_file(r.book + "/bahdanau_attention.html");
  for (const char* f : {"src-layers-bahdanau_attention-h", "src-layers-gru-cpp", "src-tools-d2l-train-train_seq2seq-cpp"})
    BOOST_TEST(b.find(std::string("<details id=\"") + f + "\">") != std::string::npos, f);
  BOOST_TEST(b.find("i&#39;m &lt;unk&gt; &amp; &#39;cold&#39; . =&gt; ") != std::string::npos);
  BOOST_TEST(b.find("<unk> &") == std::string::npos);
  // Hovering over the attention of the --translate sentence reads its tokens.
  BOOST_TEST(b.find(", Key positions 1 &apos;&lt;unk&gt;&apos;: 0.") != std::string::npos);
  BOOST_TEST(b.find(", Key positions 5 &apos;&lt;eos&gt;&apos;: 0.") != std::string::npos);
}

// A section page as a companion: its own title, the book's section online, then its output,
// its exercises in order (a run shown under its 练习 heading, one not run says so), then the
// source folded, the section's own file first.
BOOST_AUTO_TEST_CASE(section_pages_carry_the_book_and_the_exercises) {
  Runs& r = runs();
  std::set<std::string> titles;
  for (const char* name : {"attention_cues", "multihead_attention", "nadaraya_watson", "bahdanau_attention"}) {
    const std::string page = read_file(r.book + "/" + name + ".html");
    const size_t t = page.find("<title>");
    titles.insert(page.substr(t, page.find("</title>") - t));
    BOOST_TEST(page.find("<a href=\"https://zh.d2l.ai/chapter_attention-mechanisms/") != std::string::npos, name);
  }
  BOOST_TEST(titles.size() == 4u);  // every page its own title
  const std::string page = read_file(r.book + "/attention_cues.html");
  BOOST_TEST(page.find("<a href=\"https://zh.d2l.ai/chapter_attention-mechanisms/attention-cues.html\">") !=
             std::string::npos);
  const size_t output = page.find("id=\"output\""), ex1 = page.find("<section class=\"exercise\" id=\"ex-1\">"),
               ex2 = page.find("<section class=\"exercise\" id=\"ex-2\">"), src = page.find("id=\"source\"");
  BOOST_REQUIRE(output != std::string::npos && ex1 != std::string::npos && ex2 != std::string::npos &&
                src != std::string::npos);
  BOOST_TEST((output < ex1 && ex1 < ex2 && ex2 < src));
  BOOST_TEST(page.find("<h3>练习 10.1.2 <span class=\"en\">/ Exercise 2</span></h3>") != std::string::npos);
  // Exercise 1 (answered by 10.4's program) was not run here; exercise 2's run is shown with
  // its own banner and figure, linked to the lines that drew it.
  BOOST_TEST(page.substr(ex1, ex2 - ex1).find("Not run yet") != std::string::npos);
  const std::string two = page.substr(ex2, src - ex2);
  BOOST_TEST(two.find("<pre class=\"cmd\">build/chapters/attention_cues --ex 2 --quick</pre>") != std::string::npos);
  BOOST_TEST(two.find("<h4>练习 2 / Exercise 2: softmax over the rows of a random 10x10 matrix</h4>") !=
             std::string::npos);
  BOOST_TEST(two.find("ex2_random_attention_weights.png") != std::string::npos);
  BOOST_TEST(two.find("drawn by <a href=\"#src-chapters-") != std::string::npos);
  BOOST_TEST(page.find("<h3>练习") == page.find("<h3>练习 10.1.1"));
  // The source folded, the section's own file first.
  BOOST_TEST(page.find("<details id=\"src-chapters-attention_cues-cpp\"><summary>chapters/attention_cues.cpp") ==
             page.find("<details"));
}

BOOST_AUTO_TEST_CASE(a_missing_figure_or_run_is_an_error) {
  TempDir t("book_bad");
  fs::create_directories(t("runs"));
  const int none = run_command(build_dir() + "/tools/book --runs " + t("runs") + " --out " + t("book"), t("o"), t("e"));
  BOOST_TEST(none == 1);
  BOOST_TEST(read_file(t("e")).find("no run of any chapter program in " + t("runs")) != std::string::npos);
  t.write("runs/attention_cues.log", "== a <b> & \"c\" ==\nsaved " + t("gone.png") + "\n");
  const int rc = run_command(build_dir() + "/tools/book --runs " + t("runs") + " --out " + t("book"), t("o"), t("e"));
  BOOST_TEST(rc == 1);
  BOOST_TEST(read_file(t("e")).find(t("gone.png") + ", printed by attention_cues, is missing") != std::string::npos);
}

// The heatmap tool's SVG is the same figure: a tooltip per cell, with the names given.
BOOST_AUTO_TEST_CASE(heatmap_tool_svg_has_the_tooltips) {
  TempDir t("book_heatmap");
  const std::string in = t.write("w.txt", "0.25 0.75\n1 0\n");
  const int rc = run_command(build_dir() + "/tools/heatmap --xlabel Keys --ylabel Queries --xnames 'go <eos>' "
                             "--ynames \"va !\" --format svg --out " + t("w.svg") + " " + in, t("o"), t("e"));
  BOOST_REQUIRE_MESSAGE(rc == 0, read_file(t("e")));
  const std::string svg = read_file(t("w.svg"));
  BOOST_TEST(count(svg, "<title>") == 4u);
  BOOST_TEST(svg.find("<title>Queries 0 &apos;va&apos;, Keys 1 &apos;&lt;eos&gt;&apos;: 0.7500</title>") !=
             std::string::npos, svg);
  BOOST_TEST(svg.find("<title>Queries 1 &apos;!&apos;, Keys 0 &apos;go&apos;: 1.0000</title>") != std::string::npos);
}

// Every page in a real browser: no console error, images and SVGs with a size, links that
// resolve, a screenshot of each under BUILD/book-screens/. The checker must also fail: a
// page with a dangling link and an external script is refused (statically, no browser).
BOOST_AUTO_TEST_CASE(pages_open_cleanly_in_chromium, *utf::precondition(chromium_available)) {
  Runs& r = runs();
  const std::string shots = build_dir() + "/book-screens";
  TempDir t("book_check");
  const int rc = run_command("python3 tests/book_check.py " + r.book + " " + shots, t("o"), t("e"));
  const std::string out = read_file(t("o"));
  BOOST_TEST(rc == 0, out << read_file(t("e")));
  BOOST_TEST(out.find("attention_cues.html: 0 images, 2 SVGs, 200 cell tooltips") != std::string::npos, out);
  BOOST_TEST(fs::file_size(shots + "/index.png") > 1000u);
  // At a phone's width (400 px) no page scrolls sideways; each has its screenshot.
  for (const char* page : {"index", "attention_cues", "multihead_attention", "nadaraya_watson", "bahdanau_attention"}) {
    BOOST_TEST(out.find(std::string(page) + ".html: ") != std::string::npos, page);
    BOOST_TEST(fs::file_size(shots + "/" + page + "-400.png") > 1000u, page);
  }
  BOOST_TEST(count(out, "400 px wide at 400 px") == 5u, out);
  BOOST_TEST(fs::file_size(shots + "/bahdanau_attention-figure.png") > 1000u);

  fs::copy(r.book, t("bad"), fs::copy_options::recursive);
  std::string page = read_file(t("bad/attention_cues.html"));
  page.replace(page.find("</body>"), 7,
               "<a href=\"#nowhere\">x</a><script src=\"http://x/y.js\"></script><script>alert(1)</script></body>");
  d2l_test::write_file(t("bad/attention_cues.html"), page);
  const int bad = run_command("python3 tests/book_check.py " + t("bad") + " " + t("s") + " --static-only", t("o"), t("e"));
  const std::string msg = read_file(t("o"));
  BOOST_TEST(bad == 1);
  BOOST_TEST(msg.find("FAIL attention_cues.html: link #nowhere: no id 'nowhere' in attention_cues.html") !=
             std::string::npos, msg);
  BOOST_TEST(msg.find("FAIL attention_cues.html: has an inline <script>") != std::string::npos, msg);
  BOOST_TEST(msg.find("FAIL attention_cues.html: external reference http://x/y.js") != std::string::npos, msg);

  // A page wider than a phone fails the browser check, naming what sticks out; a wide
  // table inside a box that scrolls does not.
  fs::create_directories(t("wide"));
  d2l_test::write_file(t("wide/index.html"),
                       "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><meta charset=\"utf-8\"/>"
                       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/><title>w</title></head>"
                       "<body><div class=\"ok\" style=\"overflow-x:auto\"><table style=\"width:900px\"><tr><td>x</td>"
                       "</tr></table></div><p class=\"long\" style=\"white-space:nowrap\">" + std::string(120, 'w') +
                       "</p></body></html>\n");
  const int wide = run_command("python3 tests/book_check.py " + t("wide") + " " + t("ws"), t("o"), t("e"));
  const std::string wmsg = read_file(t("o"));
  BOOST_TEST(wide == 1, wmsg);
  BOOST_TEST(wmsg.find("FAIL index.html: at 400 px the page is ") != std::string::npos, wmsg);
  BOOST_TEST(wmsg.find("p.long (right edge ") != std::string::npos, wmsg);
  BOOST_TEST(wmsg.find("table") == std::string::npos, wmsg);
}

// The exercises the pages and `make exercises` run are the ones the programs register
// (--list-exercises): every run build/tools/book --list-runs prints is a registered command
// (10.2's first with the catalog's --n-train 500 added), every registered command is run
// once (10.7's 4 and 5 share attention_cost's run), and a program that lists one more
// exercise, or one fewer than the catalog describes, changes the list or stops the book.
BOOST_AUTO_TEST_CASE(the_exercises_are_the_programs_own) {
  const std::string chapters = build_dir() + "/chapters", book = build_dir() + "/tools/book";
  const std::vector<std::string> programs = {"attention_cues", "nadaraya_watson", "attention_scoring_functions",
                                             "bahdanau_attention", "multihead_attention",
                                             "self_attention_and_positional_encoding", "transformer",
                                             "natural_language_inference_attention"};
  std::set<std::string> registered;  // "<program> <args>" as the registries print them
  size_t entries = 0;
  for (const std::string& p : programs) {
    const auto [rc, out] = d2l_test::run_capture(chapters + "/" + p + " --list-exercises");
    BOOST_REQUIRE_MESSAGE(rc == 0, p << ": " << out);
    std::istringstream in(out);
    for (std::string line; std::getline(in, line); ++entries)
      registered.insert(line.substr(line.rfind('\t') + std::string("\tbuild/chapters/").size()));
  }
  const auto [rc, runs] = d2l_test::run_capture(book + " --list-runs");
  BOOST_REQUIRE_MESSAGE(rc == 0, runs);
  std::set<std::string> listed;
  size_t lines = 0;
  std::istringstream in(runs);
  for (std::string line; std::getline(in, line); ++lines) {
    const size_t a = line.find('\t'), b = line.find('\t', a + 1);
    std::string command = line.substr(a + 1, b - a - 1) + (b + 1 < line.size() ? " " + line.substr(b + 1) : "");
    if (line.rfind("10.2-1\t", 0) == 0) {
      BOOST_TEST(command == "nadaraya_watson --ex 1 --n-train 500");
      command = "nadaraya_watson --ex 1";
    }
    BOOST_TEST(registered.count(command) == 1u, line);
    listed.insert(command);
  }
  BOOST_TEST(entries == 24u);
  BOOST_TEST(lines == 23u);  // 10.7's exercise 5 is read from exercise 4's run
  BOOST_TEST(listed == registered);

  // Stand-ins for the programs: attention_cues lists a third exercise, then only its first.
  TempDir dir("book_registry");
  fs::create_directories(dir("programs"));
  for (const std::string& p : programs)
    if (p != "attention_cues") fs::create_symlink(fs::absolute(chapters + "/" + p), dir("programs/" + p));
  auto cues_lists = [&](const std::string& lines_printed) {
    d2l_test::write_file(dir("programs/attention_cues"), "#!/bin/sh\nprintf '" + lines_printed + "'\n");
    fs::permissions(dir("programs/attention_cues"), fs::perms::owner_all);
    return d2l_test::run_capture(book + " --list-runs --programs " + dir("programs"));
  };
  const auto [more_rc, more] = cues_lists(
      "1\\tcues\\tbuild/chapters/bahdanau_attention --cues\\n2\\tsoftmax\\tbuild/chapters/attention_cues --ex 2\\n"
      "3\\ta new one\\tbuild/chapters/attention_cues --ex 3\\n");
  BOOST_TEST(more_rc == 0, more);
  BOOST_TEST(more.find("10.1-3\tattention_cues\t--ex 3\n") != std::string::npos, more);
  const auto [fewer_rc, fewer] = cues_lists("1\\tcues\\tbuild/chapters/bahdanau_attention --cues\\n");
  BOOST_TEST(fewer_rc == 1);
  BOOST_TEST(fewer.find("describes exercise 2 of 10.1, which no section's program lists") != std::string::npos, fewer);
  const auto [bad_rc, bad] = cues_lists("one\\tcues\\n");
  BOOST_TEST(bad_rc == 1);
  BOOST_TEST(bad.find("attention_cues --list-exercises printed \"one\tcues\"") != std::string::npos, bad);
}

BOOST_AUTO_TEST_SUITE_END()
