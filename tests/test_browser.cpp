// tests/test_browser.cpp — the companion pages' live panels (tools/browser/): quick runs of the
// chapter programs save their trained models, build/tools/book writes the pages with the
// engine compiled for the browser (build-browser/d2l_engine.js, `make browser`), and headless
// Chromium opens them from file:// with the panels' state in the URL fragment
// (tests/browser_check.py). What the page computes must be what the native programs printed:
// the book's four sentences translated by 10.4's and 10.7's models, 15.5's prediction on the
// book's example, and a masked_softmax row (against the native op). Skipped, saying which,
// without emscripten's output or without Chromium.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "core/io/json.h"
#include "core/ops.h"
#include "tests/test_prelude.h"

namespace {

const std::string kEngine = "build-browser/d2l_engine.js";

tt::assertion_result engine_and_chromium(utf::test_unit_id) {
  tt::assertion_result r(false);
  if (!fs::exists(kEngine)) {
    r.message() << "no " << kEngine << ": emscripten (em++) is not installed, so `make test` did not build the "
                << "engine for the browser (bash tools/scripts/install_deps.sh --browser installs it)";
    return r;
  }
  if (std::system("command -v chromium >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1") != 0) {
    r.message() << "chromium not found (bash tools/scripts/install_deps.sh --browser installs it)";
    return r;
  }
  return true;
}

std::string url_encode(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '.' || c == '-' || c == '_' || c == '\'') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

// "go . => va !,  bleu 1.000" lines of a run: sentence -> translation.
std::map<std::string, std::string> translations(const std::string& log) {
  std::map<std::string, std::string> out;
  const std::regex line(R"(^(.+) => (.*),  bleu [0-9.]+$)");
  std::smatch m;
  for (size_t a = 0, b; a < log.size(); a = b + 1) {
    b = log.find('\n', a);
    if (b == std::string::npos) b = log.size();
    const std::string l = log.substr(a, b - a);
    if (std::regex_match(l, m, line)) out[m[1]] = m[2];
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(browser)

BOOST_AUTO_TEST_CASE(live_panels_compute_what_the_programs_print, *utf::precondition(engine_and_chromium)) {
  TempDir dir("browser");
  const std::string runs = dir("runs"), book = dir("book");
  const std::vector<std::pair<std::string, std::string>> programs = {
      {"bahdanau_attention", "--quick"},
      {"transformer", "--quick"},
      {"natural_language_inference_attention", "--quick"},
      {"attention_scoring_functions", ""}};
  for (const auto& [name, args] : programs) {
    const std::string save = args.empty() ? "" : " --save " + runs + "/" + name + ".safetensors";
    d2l_test::run_traced(name, args + save, runs, dir("out/" + name));
  }
  d2l_test::write_book(runs, book, " --engine " + kEngine, dir);
  BOOST_TEST(fs::file_size(book + "/d2l_engine.js") <= 2u * 1024 * 1024);

  // What each check expects in the page: [check argument, expected text].
  std::vector<std::pair<std::string, std::string>> checks;
  const std::vector<std::string> engs{"go .", "i lost .", "he's calm .", "i'm home ."};
  for (const std::string page : {"bahdanau_attention", "transformer"}) {
    const auto native = translations(read_file(runs + "/" + page + ".log"));
    for (const std::string& s : engs) {
      BOOST_REQUIRE_MESSAGE(native.count(s), page << "'s run printed no translation of '" << s << "'");
      checks.push_back({page + ".html#translate=" + url_encode(s) + "=#live-translation", native.at(s)});
    }
  }
  // 15.5: the run's prediction on the book's example, printed as the notebook shows a str.
  std::smatch m;
  const std::string nli_log = read_file(runs + "/natural_language_inference_attention.log");
  BOOST_REQUIRE(std::regex_search(nli_log, m, std::regex("\n'(entailment|contradiction|neutral)'\n")));
  checks.push_back({"natural_language_inference_attention.html#premise=he%20is%20good%20.&hypothesis=he%20is%20bad%20.="
                    "#live-label",
                    m[1]});
  // 10.3: two rows of scores and their valid lengths, against the native masked_softmax.
  const std::vector<float> scores{0.5f, 1.25f, -0.3f, 2.0f, 1.0f, 0.1f, 0.7f, -1.5f};
  const std::vector<float> w = d2l::masked_softmax(d2l::tensor(scores, {1, 2, 4}), d2l::tensor({{2, 3}})).to_vector();
  std::string rows;
  for (size_t i = 0; i < w.size(); ++i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.4f", w[i]);
    rows += (i == 0 ? "" : i % 4 == 0 ? "\n" : " ") + std::string(buf);
  }
  checks.push_back({"attention_scoring_functions.html#scores=" + url_encode("0.5 1.25 -0.3 2.0; 1.0 0.1 0.7 -1.5") +
                        "&valid=2%203&keys=1%201%200%202&query=1%200&len=2=#live-softmax",
                    rows});
  // An unknown word: the engine's message beside the input.
  checks.push_back({"bahdanau_attention.html#translate=zzyzx%20.=.live-error",
                    "[translate] 'zzyzx' is not in the source vocabulary"});

  std::string cmd = "python3 tests/browser_check.py " + book + " " + build_dir() + "/browser-screens";
  for (const auto& c : checks) cmd += " '" + std::regex_replace(c.first, std::regex("'"), "'\\''") + "'";
  const int rc = run_command(cmd, dir("check.out"), dir("check.err"));
  const std::string out = read_file(dir("check.out"));
  BOOST_REQUIRE_MESSAGE(rc == 0, "browser_check.py exited with " << rc << ": " << out << read_file(dir("check.err")));
  size_t k = 0;
  for (size_t a = 0, b; a < out.size() && k < checks.size(); a = b + 1, ++k) {
    b = out.find('\n', a);
    const d2l::JsonValue v = d2l::parse_json(out.substr(a, b - a));
    std::map<std::string, std::string> got;
    for (const auto& [key, value] : v.members)
      if (value.kind == d2l::JsonValue::Kind::string) got[key] = value.text;
    BOOST_TEST_CONTEXT(checks[k].first) {
      const bool error_check = checks[k].first.find(".live-error") != std::string::npos;
      BOOST_TEST(got["state"] == (error_check ? "error" : "done"), out.substr(a, b - a));
      if (error_check) BOOST_TEST(got["text"].rfind(checks[k].second, 0) == 0, got["text"]);
      else BOOST_TEST(got["text"] == checks[k].second);
      BOOST_TEST(out.substr(a, b - a).find("\"console\": []") != std::string::npos, "console errors");
    }
  }
  BOOST_TEST(k == checks.size());
}

// The backward view of 10.3 and 10.5 (tools/browser/backward.js), opened with its inputs in the
// fragment: each gradient it shows equals what build/tools/backward_steps prints for the same
// input, to float rounding (the page runs the reference tier compiled to WebAssembly, this
// build its own tier); every finite-difference error under 1e-2; masked_softmax sends exactly 0
// to each masked score; every step's source link finds its line in the page's listings.
BOOST_AUTO_TEST_CASE(backward_view_shows_the_native_engines_gradients, *utf::precondition(engine_and_chromium)) {
  TempDir dir("browser_backward");
  const std::string runs = dir("runs"), book = dir("book");
  for (const std::string name : {"attention_scoring_functions", "multihead_attention"})
    d2l_test::run_traced(name, "", runs, dir("out/" + name));
  d2l_test::write_book(runs, book, " --engine " + kEngine, dir);

  struct Case {
    std::string page, layer, queries, keys, values, valid, of;
    int row, col, hiddens, heads, seed;
  };
  const std::vector<Case> cases = {
      {"attention_scoring_functions", "dot", "0.5 1; 1 -0.5", "1 0; 0 1; 1 1; -1 0.5", "1 0 2; 0 1 -1; 3 1 0; -2 0.5 1",
       "2 3", "row", 0, 0, 4, 2, 0},
      {"attention_scoring_functions", "dot", "1 2 0; -1 0.5 1; 0 0 1", "1 0 1; 0 1 0; 2 1 -1", "1; 2; 3", "2", "element",
       2, 0, 4, 2, 0},
      {"multihead_attention", "mha", "0.5 1; 1 -0.5", "1 0; 0 1; 1 1; -1 0.5", "1 0 2; 0 1 -1; 3 1 0; -2 0.5 1", "1 3",
       "element", 1, 3, 6, 3, 7}};
  std::string cmd = "python3 tests/browser_check.py " + book + " " + build_dir() + "/browser-backward-screens";
  std::vector<d2l::JsonValue> native;
  for (const Case& c : cases) {
    const std::string fragment = "bw_q=" + url_encode(c.queries) + "&bw_k=" + url_encode(c.keys) +
                                 "&bw_v=" + url_encode(c.values) + "&bw_valid=" + url_encode(c.valid) + "&bw_of=" + c.of +
                                 "&bw_row=" + std::to_string(c.row) + "&bw_col=" + std::to_string(c.col) +
                                 "&bw_hiddens=" + std::to_string(c.hiddens) + "&bw_heads=" + std::to_string(c.heads) +
                                 "&bw_seed=" + std::to_string(c.seed) + "&bw_step=2";
    cmd += " '" + c.page + ".html#" + fragment + "=@backward'";
    const std::string args = " --layer " + c.layer + " --queries '" + c.queries + "' --keys '" + c.keys +
                             "' --values '" + c.values + "' --valid '" + c.valid + "' --row " + std::to_string(c.row) +
                             (c.of == "element" ? " --col " + std::to_string(c.col) : "") + " --hiddens " +
                             std::to_string(c.hiddens) + " --heads " + std::to_string(c.heads) + " --seed " +
                             std::to_string(c.seed) + " --json";
    BOOST_REQUIRE(run_command(build_dir() + "/tools/backward_steps" + args, dir("native.out"), dir("native.err")) == 0);
    const std::string out = read_file(dir("native.out"));
    native.push_back(d2l::parse_json(out.substr(0, out.find('\n'))));
  }
  const int rc = run_command(cmd, dir("check.out"), dir("check.err"));
  const std::string out = read_file(dir("check.out"));
  BOOST_REQUIRE_MESSAGE(rc == 0, "browser_check.py exited with " << rc << ": " << out << read_file(dir("check.err")));
  auto member = [](const d2l::JsonValue& v, const std::string& key) -> const d2l::JsonValue& {
    for (const auto& [k, m] : v.members)
      if (k == key) return m;
    throw std::runtime_error("no '" + key + "' in " + key);
  };
  size_t k = 0;
  for (size_t a = 0, b; a < out.size() && k < cases.size(); a = b + 1, ++k) {
    b = out.find('\n', a);
    const std::string line = out.substr(a, b - a);
    BOOST_TEST_CONTEXT(cases[k].page << " " << cases[k].of << " " << cases[k].row) {
      const d2l::JsonValue probe = d2l::parse_json(line);
      BOOST_REQUIRE_MESSAGE(member(probe, "state").text == "done", line);
      BOOST_TEST(line.find("\"console\": []") != std::string::npos, "console errors: " << line);
      const d2l::JsonValue page = d2l::parse_json(member(probe, "text").text);
      // The gradients, name by name, against the native run: |page - native| <= 1e-5 x the
      // tensor's largest |gradient|.
      for (const d2l::JsonValue& g : member(native[k], "gradients").items) {
        const std::string name = member(g, "name").text;
        const d2l::JsonValue& shown = member(member(page, "gradients"), name);
        BOOST_REQUIRE_EQUAL(shown.items.size(), member(g, "data").items.size());
        double diff = 0, scale = 0;
        for (size_t i = 0; i < shown.items.size(); ++i) {
          const double x = std::stod(shown.items[i].text), y = std::stod(member(g, "data").items[i].text);
          diff = std::max(diff, std::fabs(x - y));
          scale = std::max(scale, std::fabs(y));
        }
        BOOST_TEST(scale > 0.0, name);
        BOOST_TEST(diff <= 1e-5 * scale, name << ": differs by " << diff << " (largest |gradient| " << scale << ")");
        BOOST_TEST(std::stod(member(member(page, "errors"), name).text) < 1e-2, name << "'s finite-difference error");
      }
      BOOST_TEST(std::stoi(member(page, "masked").text) > 0);
      BOOST_TEST(std::stoi(member(page, "masked_nonzero").text) == 0);
      BOOST_TEST(member(page, "unresolved").items.empty(), line);
      BOOST_TEST(std::stoi(member(page, "links").text) >= 4);
      BOOST_TEST(member(page, "steps").items.size() == (cases[k].layer == "dot" ? 4u : 20u));
    }
  }
  BOOST_TEST(k == cases.size());
}

BOOST_AUTO_TEST_SUITE_END()
