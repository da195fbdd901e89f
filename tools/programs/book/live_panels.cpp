// tools/programs/book/live_panels.cpp — a section's live panel and the files it loads
// (tools/programs/book/live_panels.h).
#include "tools/programs/book/live_panels.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "core/io/files.h"
#include "core/io/json.h"
#include "tools/programs/book/html.h"

namespace fs = std::filesystem;

namespace d2l::book {

namespace {

std::string base64(const std::string& bytes) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 2]);
    out += digits[v >> 18];
    out += digits[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? digits[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? digits[v & 63] : '=';
  }
  return out;
}

std::string note(const std::string& why) {
  return "<section class=\"live-missing\"><p><b>\xE8\xAF\x95\xE4\xB8\x80\xE8\xAF\x95 / Live panel:</b> not on this "
         "page: " + why + "</p></section>\n";  // 试一试
}

// The sections whose panel translates with their own trained model: panels/translate.html with
// {{model}} the section's name and {{hover}} this line about its heatmaps.
const std::map<std::string, std::string> kTranslating = {
    {"bahdanau_attention", ""},
    {"transformer",
     "Heatmaps: encoder self-attention and decoder-encoder attention of each layer, per head; hover or tap a cell "
     "for its value."}};

// The sections with the backward view (panels/backward.html): the layer it differentiates, its
// title, and the options of build/tools/backward_steps that print the same steps.
struct BackwardView {
  const char *layer, *title, *args;
};
const std::map<std::string, BackwardView> kBackward = {
    {"attention_scoring_functions", {"dot", "10.3 DotProductAttention with masked_softmax", ""}},
    {"multihead_attention", {"mha", "10.5 MultiHeadAttention", " --layer mha"}}};

// 10.4's page also trains the section's model in the page (panels/training.html, training.js):
// its data, the bundled corpus, goes beside the pages as a script, as the weights do.
std::string training_panel(const std::string& name, const fs::path& root, const fs::path& out) {
  const fs::path panel = root / "tools/browser/panels/training.html";
  if (name != "bahdanau_attention" || !fs::exists(panel)) return "";
  write_file_atomically((out / "d2l_data_fra_eng_small.js").string(),
                        "(window.D2L_DATA = window.D2L_DATA || {})[\"fra-eng-small.txt\"] = " +
                            json_quote(read_bytes(root / "chapters/data/fra-eng-small.txt")) + ";\n",
                        "book");
  return "<link rel=\"stylesheet\" href=\"training.css\"/>\n" + read_bytes(panel) +
         "<script src=\"d2l_data_fra_eng_small.js\"></script>\n<script src=\"training_worker.js\"></script>\n"
         "<script src=\"training.js\"></script>\n";
}

std::string replace_once(std::string text, const std::string& what, const std::string& with) {
  const size_t at = text.find(what);
  if (at == std::string::npos) throw std::runtime_error("book: a panel template lacks " + what);
  return text.replace(at, what.size(), with);
}

}  // namespace

std::string LivePanels::section(const std::string& name) {
  const fs::path panels = fs::path(opt_.root) / "tools/browser/panels";
  const auto translating = kTranslating.find(name);
  const fs::path panel = translating != kTranslating.end() ? panels / "translate.html" : panels / (name + ".html");
  const auto backward = kBackward.find(name);
  if (!fs::exists(panel) && backward == kBackward.end()) return "";
  if (opt_.engine.empty() || !fs::exists(opt_.engine))
    return note("it runs the engine compiled for the browser, " +
                (opt_.engine.empty() ? std::string("which these pages were written without")
                                     : escape(opt_.engine) + ", which is missing") +
                ": <code>make book</code> builds it when emscripten is installed (<code>bash "
                "tools/scripts/install_deps.sh --browser</code>).");
  std::string html = !fs::exists(panel)                  ? std::string()
                     : translating == kTranslating.end() ? read_bytes(panel)
                                                         : replace_once(replace_once(read_bytes(panel), "{{model}}", name),
                                                                        "{{hover}}", translating->second);
  if (backward != kBackward.end()) {
    std::string view = read_bytes(panels / "backward.html");
    for (int i = 0; i < 2; ++i) view = replace_once(view, "{{title}}", backward->second.title);
    html += "<link rel=\"stylesheet\" href=\"backward.css\"/>\n" +
            replace_once(replace_once(view, "{{layer}}", backward->second.layer), "{{args}}", backward->second.args);
  }
  std::string scripts;
  // A panel that runs a trained model names it: data-model="<chapter>", whose run saved it.
  const std::string key = "data-model=\"";
  if (const size_t at = html.find(key); at != std::string::npos) {
    const std::string model = html.substr(at + key.size(), html.find('"', at + key.size()) - at - key.size());
    const fs::path weights = fs::path(opt_.runs) / (model + ".safetensors");
    if (!fs::exists(weights))
      return note("the run saved no weights (" + escape(weights.string()) +
                  " is missing; <code>make book</code> runs the program with <code>--save</code>).");
    const std::string js = "d2l_weights_" + model + ".js";
    write_file_atomically((fs::path(opt_.out) / js).string(),
                          "(window.D2L_WEIGHTS = window.D2L_WEIGHTS || {})[\"" + model + "\"] = \"" +
                              base64(read_bytes(weights)) + "\";\n",
                          "book");
    scripts += "<script src=\"" + js + "\"></script>\n";
  }
  used_ = true;
  return "<link rel=\"stylesheet\" href=\"panels.css\"/>\n" + html + scripts +
         "<script src=\"d2l_engine.js\"></script>\n<script src=\"panels.js\"></script>\n" +
         (backward != kBackward.end() ? "<script src=\"backward.js\"></script>\n" : "") +
         training_panel(name, opt_.root, opt_.out);
}

std::vector<std::string> LivePanels::sources(const std::string& name) const {
  if (!kBackward.count(name)) return {};
  // Where the backward view's steps link (tools/programs/backward_steps/attention_backward.cpp):
  // the engine's loop, the ops' forward and backward, the reference kernels the pages run.
  return {"core/autograd.cpp",          "core/ops/matmul.cpp",          "core/ops/elementwise.cpp",
          "core/ops/softmax.cpp",       "core/ops/shape.cpp",           "core/kernels/reference/matmul.cpp",
          "core/kernels/reference/elementwise.cpp", "core/kernels/reference/softmax.cpp",
          "core/engine/bookkeeping.cpp", "core/nn/basic.cpp"};
}

void LivePanels::finish() const {
  if (!used_) return;
  const fs::path out(opt_.out), browser = fs::path(opt_.root) / "tools/browser";
  // Read as a bounded plain file (a device or directory named by --engine is refused).
  write_file_atomically((out / "d2l_engine.js").string(),
                        read_input_file(opt_.engine, "book --engine", uint64_t{256} << 20), "book");
  for (const char* f : {"panels.js", "panels.css", "backward.js", "backward.css", "training.js", "training_worker.js",
                        "training.css"})
    write_file_atomically((out / f).string(), read_bytes(browser / f), "book");
}

}  // namespace d2l::book
