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
#include <cstdio>
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

// 10.4's page trains the section's model in a Web Worker (tools/browser/training.js); with
// #train=3 it trains three epochs on load and lists their losses. They must be the reference
// tier's (the page's engine runs the reference kernels), as its program prints them with
// D2L_EPOCH_LOSS=1 on one thread, same corpus and seed, to all 17 digits.
const std::string kReference = "build-ref/chapters/bahdanau_attention";

tt::assertion_result engine_chromium_and_reference(utf::test_unit_id id) {
  tt::assertion_result r = engine_and_chromium(id);
  if (r && !fs::exists(kReference)) {
    r = tt::assertion_result(false);
    r.message() << "no " << kReference << " (the reference tier's program: make FAST=0 " << kReference << ")";
  }
  return r;
}

BOOST_AUTO_TEST_CASE(training_page_losses_are_the_reference_tiers, *utf::precondition(engine_chromium_and_reference)) {
  TempDir dir("browser-training");
  const std::string runs = dir("runs"), book = dir("book");
  fs::create_directories(runs);
  const std::string corpus = fs::absolute("chapters/data/fra-eng-small.txt").string();
  // The run the page shows (its weights for the translate panel too), on one thread.
  const int rc = run_command("D2L_EPOCH_LOSS=1 D2L_BOOK_TRACE=" + runs + "/bahdanau_attention.trace " + kReference +
                                 " --threads 1 --epochs 3 --data " + corpus + " --save " + runs +
                                 "/bahdanau_attention.safetensors --out " + dir("out"),
                             runs + "/bahdanau_attention.log", runs + "/bahdanau_attention.err");
  BOOST_REQUIRE_MESSAGE(rc == 0, kReference << " exited with " << rc << ": " << read_file(runs + "/bahdanau_attention.err"));
  std::string native;  // "1 0.447...\n2 ...": the page's format
  const std::string log = read_file(runs + "/bahdanau_attention.log");
  const std::regex line(R"(^\[epoch\] ([0-9]+) loss (\S+)$)");
  std::smatch m;
  for (size_t a = 0, b; a < log.size(); a = b + 1) {
    b = log.find('\n', a);
    if (b == std::string::npos) b = log.size();
    const std::string l = log.substr(a, b - a);
    if (std::regex_match(l, m, line)) native += m[1].str() + " " + m[2].str() + "\n";
  }
  BOOST_REQUIRE_MESSAGE(std::count(native.begin(), native.end(), '\n') == 3, "the run printed no 3 epoch losses: " << log);
  d2l_test::write_book(runs, book, " --engine " + kEngine, dir);

  const std::string cmd = "python3 tests/browser_check.py " + book + " " + build_dir() +
                          "/browser-screens-training 'bahdanau_attention.html#train=3=#live-train-losses'";
  const int check_rc = run_command(cmd, dir("check.out"), dir("check.err"));
  const std::string out = read_file(dir("check.out"));
  BOOST_REQUIRE_MESSAGE(check_rc == 0, "browser_check.py exited with " << check_rc << ": " << out << read_file(dir("check.err")));
  const d2l::JsonValue v = d2l::parse_json(out.substr(0, out.find('\n')));
  std::map<std::string, std::string> got;
  for (const auto& [key, value] : v.members)
    if (value.kind == d2l::JsonValue::Kind::string) got[key] = value.text;
  BOOST_TEST(got["state"] == "done", out);
  BOOST_TEST(got["text"] == native);
  BOOST_TEST(out.find("\"console\": []") != std::string::npos, "console errors: " << out);
}

BOOST_AUTO_TEST_SUITE_END()
