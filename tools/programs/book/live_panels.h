// tools/programs/book/live_panels.h — the live panels on the section pages: for a section with
// a panel (tools/browser/panels/<name>.html, or translate.html for the sections that translate
// with their own model), the HTML that follows its output, and the files the panels load
// beside the pages: the engine compiled for the browser (d2l_engine.js,
// `make browser`), tools/browser/panels.js and panels.css, and the weights the run saved
// (<runs>/<model>.safetensors) as d2l_weights_<model>.js, a script (pages opened from file://
// may load scripts but not read files). Without the engine or the weights the section gets a
// note saying what is missing, and the page reads as it does without JavaScript. 10.4's page
// also gets the training panel (panels/training.html), its scripts and the bundled corpus as
// d2l_data_fra_eng_small.js.
#pragma once
#include <string>
#include <vector>

namespace d2l::book {

struct LiveOptions {
  std::string root = ".";                               // tools/browser/ is found under it
  std::string runs = "build/book-run";                  // <model>.safetensors
  std::string out = "out/book";
  std::string engine = "build-browser/d2l_engine.js";   // "" or a missing file: no panels
};

class LivePanels {
 public:
  explicit LivePanels(LiveOptions opt) : opt_(std::move(opt)) {}
  // The panel of section `name` with its script tags, a note when it cannot run, or "" for a
  // section without a panel. Writes the weights the panel needs into the output folder.
  std::string section(const std::string& name);
  // The engine's files a section's backward view links its steps to, for the page's listings
  // (none for a section without the view).
  std::vector<std::string> sources(const std::string& name) const;
  // Copies the engine and the panels' script and style once any section() used them.
  void finish() const;

 private:
  LiveOptions opt_;
  bool used_ = false;
};

}  // namespace d2l::book
