// tools/programs/book/pages.cpp — reads each section's run and writes its page (tools/programs/book/pages.h).
#include "tools/programs/book/pages.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <cctype>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "core/io/files.h"
#include "tools/programs/book/catalog.h"
#include "tools/programs/book/html.h"
#include "tools/programs/book/live_panels.h"

namespace fs = std::filesystem;

namespace d2l::book {

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string cur;
  for (char c : text) {
    if (c == '\n') {
      lines.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) lines.push_back(cur);
  return lines;
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// One line of a trace file.
struct Event {
  std::string kind, file, text;
  int line = 0;
};

struct Figure {
  std::string path;         // as printed, e.g. out/attention_cues/attention_weights.png
  const Event* at = nullptr;  // where it was drawn (nullptr: no trace)
};

// The output between two banners: its text lines and figures in printed order.
struct Block {
  std::string heading;        // empty for the lines before the first banner
  const Event* at = nullptr;  // the banner's call
  struct Item {
    std::vector<std::string> text;
    std::optional<Figure> figure;
  };
  std::vector<Item> items;
};


// One program run: what it printed and where its banners and figures come from.
struct Run {
  std::string command;  // "build/chapters/nadaraya_watson --ex 1"
  std::vector<std::string> log;
  std::vector<Event> events;
};

struct ExerciseRun {
  ExerciseInfo info;
  std::optional<Run> run;  // none: not run yet (`make exercises`), or answered by another's run
};

using Marks = std::vector<std::vector<bool>>;  // per source file, the lines the page links to

struct Section {
  SectionInfo info;
  Run run;                             // the section's code, the program at its defaults
  std::vector<ExerciseRun> exercises;  // in the book's order
  std::vector<std::string> sources;    // the section's file first, then exercises, layers, ...
};

// Phone width: the body never scrolls sideways; a box of code, printed output or a table
// scrolls inside itself (pre and .wide keep their columns), long words in prose break.
const char* const kStyle =
    "html{-webkit-text-size-adjust:100%}"
    "body{font-family:DejaVu Sans,Bitstream Vera Sans,Verdana,sans-serif;margin:0 auto;max-width:64rem;"
    "padding:0 .8rem 3rem;line-height:1.45;color:#222;overflow-wrap:break-word}"
    "nav{padding:.6rem 0;border-bottom:1px solid #ddd;font-size:.9rem;display:flex;flex-wrap:wrap;gap:.3rem 1rem}"
    "nav.toc{border:0;padding:.2rem 0}"
    "h1{font-size:1.5rem}h1 .en,h2 .en,h3 .en{color:#555;font-weight:normal}h1 .num{color:#a00;margin-right:.4rem}"
    ".book{background:#f4f8ff;border:1px solid #d5e2f5;padding:.5rem .7rem;margin:.8rem 0}"
    "pre{background:#f7f7f7;border:1px solid #e3e3e3;padding:.5rem .7rem;overflow-x:auto;font-size:.82rem;"
    "line-height:1.3;white-space:pre;max-width:100%;box-sizing:border-box}"
    "pre.cmd{background:#222;color:#eee;border-color:#222}"
    ".block{border-left:3px solid #c33;padding-left:.7rem;margin:1.4rem 0;min-width:0}"
    ".block h3,.block h4{margin:.2rem 0;font-size:1rem}"
    ".exercise{border-top:2px solid #36c;margin:2rem 0 1rem;padding-top:.4rem}"
    ".exercise .block{border-left-color:#36c}.q{font-size:1.05rem;font-weight:bold;margin:.3rem 0}"
    ".note{font-size:.9rem;background:#fff8e1;border:1px solid #f0dc9c;padding:.4rem .6rem}"
    ".from{font-size:.85rem;color:#555;margin:.2rem 0}"
    "figure{margin:.8rem 0}figure svg,figure img{max-width:100%;height:auto;display:block}"
    "figcaption{font-size:.85rem;color:#333;overflow-wrap:anywhere}figcaption .path{color:#777;font-size:.75rem}"
    "details.again>summary{font-weight:normal;color:#555;font-size:.9rem}details{margin:.4rem 0}summary{cursor:pointer;font-weight:bold;overflow-wrap:anywhere}"
    "pre.src{background:#fcfcfc}pre.src .ln{color:#999;text-decoration:none;user-select:none}"
    "pre.src .cm{color:#2a6e2a}pre.src .st{color:#8a4b08}pre.src .ref{background:#fff3c4}"
    "pre.src :target{background:#ffd86b;outline:1px solid #e0a800}"
    ".wide{overflow-x:auto;max-width:100%}"
    "table{border-collapse:collapse;font-size:.88rem;margin:.6rem 0}"
    "td,th{border:1px solid #ddd;padding:.3rem .5rem;vertical-align:top;text-align:left}th{background:#f3f3f3}"
    ".nw{white-space:nowrap}ul.map{list-style:none;padding:0}ul.map li{margin:.5rem 0}ul.map .meta{font-size:.85rem;color:#555}"
    "table.ex td:first-child{white-space:nowrap}code{background:#f3f3f3;padding:0 .2rem;overflow-wrap:anywhere}";

std::string page_head(const std::string& title) {
  return "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"zh-Hans\">\n<head>\n"
         "<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
         "<title>" + escape(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
}

std::vector<Event> read_trace(const fs::path& p) {
  std::vector<Event> events;
  if (!fs::exists(p)) return events;
  int n = 0;
  for (const std::string& l : split_lines(read_bytes(p))) {
    ++n;
    std::vector<std::string> f;
    size_t start = 0;
    for (int k = 0; k < 3; ++k) {
      const size_t tab = l.find('\t', start);
      if (tab == std::string::npos) break;
      f.push_back(l.substr(start, tab - start));
      start = tab + 1;
    }
    if (f.size() != 3 || (f[0] != "banner" && f[0] != "figure"))
      throw std::runtime_error("book: " + p.string() + ":" + std::to_string(n) +
                               ": not 'banner|figure<TAB>file<TAB>line<TAB>text'");
    events.push_back({f[0], f[1], l.substr(start), std::atoi(f[2].c_str())});
  }
  return events;
}

// The lines as printed: a progress line rewritten with '\r' shows its last state.
std::vector<std::string> read_log(const fs::path& p) {
  std::vector<std::string> lines = split_lines(read_bytes(p));
  for (std::string& l : lines) {
    const size_t cr = l.find_last_of('\r', l.size() > 0 ? l.size() - 1 : 0);
    if (cr != std::string::npos) l = cr + 1 == l.size() ? l.substr(0, cr) : l.substr(cr + 1);
  }
  return lines;
}

// Splits the log at its banners, pairing each banner and "saved" line with the trace's next
// event of that kind and text (a line that only looks like one stays text).
std::vector<Block> blocks_of(const Run& s) {
  std::vector<Block> blocks(1);
  size_t next_banner = 0, next_figure = 0;
  auto find = [&](size_t& from, const std::string& kind, const std::string& text) -> const Event* {
    for (size_t k = from; k < s.events.size(); ++k)
      if (s.events[k].kind == kind) {
        if (s.events[k].text != text) return nullptr;
        from = k + 1;
        return &s.events[k];
      }
    return nullptr;
  };
  auto text_item = [](Block& b) -> std::vector<std::string>& {
    if (b.items.empty() || b.items.back().figure) b.items.emplace_back();
    return b.items.back().text;
  };
  for (const std::string& l : s.log) {
    if (l.size() > 6 && l.rfind("== ", 0) == 0 && l.compare(l.size() - 3, 3, " ==") == 0) {
      const std::string heading = l.substr(3, l.size() - 6);
      size_t probe = next_banner;
      const Event* at = find(probe, "banner", heading);
      if (at != nullptr || s.events.empty()) {
        next_banner = probe;
        blocks.push_back({heading, at, {}});
        continue;
      }
    }
    if (l.rfind("saved ", 0) == 0) {
      const std::string path = l.substr(6);
      size_t probe = next_figure;
      const Event* at = find(probe, "figure", path);
      const std::string ext = fs::path(path).extension().string();
      if ((at != nullptr || s.events.empty()) && (ext == ".png" || ext == ".svg")) {
        next_figure = probe;
        blocks.back().items.push_back({{}, Figure{path, at}});
        continue;
      }
    }
    text_item(blocks.back()).push_back(l);
  }
  if (blocks[0].items.empty()) blocks.erase(blocks.begin());
  return blocks;
}

// The SVG for inlining: without its XML declaration, its ids made unique on the page.
std::string inline_svg(const std::string& svg, const std::string& prefix, const std::string& label) {
  std::string s = svg;
  if (s.rfind("<?xml", 0) == 0) s.erase(0, s.find("?>") + 2);
  s = trim(s.substr(s.find_first_not_of("\r\n")));
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  };
  replace_all(" id=\"", " id=\"" + prefix);
  replace_all("url(#", "url(#" + prefix);
  if (s.rfind("<svg ", 0) != 0) throw std::runtime_error("book: not an SVG document: " + label);
  s.replace(0, 5, "<svg role=\"img\" aria-label=\"" + escape(label) + "\" ");
  return s;
}

std::string range_text(const std::string& file, LineRange r) {
  return file + (r.first == r.last ? " line " + std::to_string(r.first)
                                   : " lines " + std::to_string(r.first) + "\xE2\x80\x93" + std::to_string(r.last));
}

std::string inline_md(const std::string& md) {  // `code` and **bold** in a README table cell
  std::string e = escape(md), out;
  bool code = false, bold = false;
  for (size_t i = 0; i < e.size(); ++i) {
    if (e[i] == '`') {
      out += code ? "</code>" : "<code>";
      code = !code;
    } else if (!code && e.compare(i, 2, "**") == 0) {
      out += bold ? "</b>" : "<b>";
      bold = !bold;
      ++i;
    } else {
      out += e[i];
    }
  }
  if (code) out += "</code>";
  if (bold) out += "</b>";
  return out;
}

const char* const kLian = "\xE7\xBB\x83\xE4\xB9\xA0";  // 练习 (exercise)

class Writer {
 public:
  explicit Writer(const BookOptions& opt)
      : opt_(opt), root_(opt.root), out_(opt.out), live_({opt.root, opt.runs, opt.out, opt.engine}) {}

  int run() {
    load();
    fs::create_directories(out_ / "figures");
    for (size_t i = 0; i < sections_.size(); ++i) write_section(i);
    write_index();
    live_.finish();
    return static_cast<int>(sections_.size());
  }

 private:
  // ---- reading ----------------------------------------------------------------------------

  const std::vector<std::string>& source(const std::string& path) {
    auto it = files_.find(path);
    if (it == files_.end()) it = files_.emplace(path, split_lines(read_bytes(root_ / path))).first;
    return it->second;
  }

  // The run <runs>/<stem>.log (+ .trace); none when the log is not there.
  std::optional<Run> read_run(const std::string& stem, const std::string& command) const {
    const fs::path runs(opt_.runs);
    if (!fs::exists(runs / (stem + ".log"))) return std::nullopt;
    return Run{command, read_log(runs / (stem + ".log")), read_trace(runs / (stem + ".trace"))};
  }

  void add_source(Section& s, std::set<std::string>& seen, const std::string& f) {
    if (seen.count(f) || !fs::exists(root_ / f)) return;
    seen.insert(f);
    s.sources.push_back(f);
  }

  // The files a page lists: the section's program, its exercises' file, the layers it
  // includes (and theirs), the other programs its exercises run, then any other file a
  // trace names (a trainer in tools/d2l/train/ that drew a curve).
  void collect_sources(Section& s) {
    std::set<std::string> seen;
    const std::string chapter = "chapters/" + s.info.program + ".cpp";
    add_source(s, seen, chapter);
    add_source(s, seen, "chapters/exercises/" + s.info.program + ".cpp");
    std::vector<std::string> todo = layer_includes(source(chapter));
    for (size_t k = 0; k < todo.size(); ++k) {
      const std::string h = todo[k], cpp = h.substr(0, h.size() - 2) + ".cpp";
      for (const std::string& f : {h, cpp}) {
        if (seen.count(f) || !fs::exists(root_ / f)) continue;
        add_source(s, seen, f);
        for (const std::string& more : layer_includes(source(f))) todo.push_back(more);
      }
    }
    for (const ExerciseRun& e : s.exercises) add_source(s, seen, "chapters/" + e.info.program + ".cpp");
    for (const std::string& f : live_.sources(s.info.program)) add_source(s, seen, f);
    for (const Event& e : s.run.events) add_source(s, seen, e.file);
    for (const ExerciseRun& x : s.exercises)
      if (x.run)
        for (const Event& e : x.run->events) add_source(s, seen, e.file);
  }

  void load() {
    const fs::path runs(opt_.runs);
    const std::vector<ExerciseInfo> all_exercises = exercises(opt_.programs);
    for (const SectionInfo& info : sections()) {
      std::optional<Run> run = read_run(info.program, "build/chapters/" + info.program + program_arguments_of(runs));
      if (!run) continue;
      Section s{info, std::move(*run), {}, {}};
      for (const ExerciseInfo& e : all_exercises)
        if (e.section == info.number) {
          const std::string cmd =
              "build/chapters/" + e.program + (e.args.empty() ? "" : " " + e.args) + program_arguments_of(runs);
          s.exercises.push_back({e, e.same_run_as ? std::nullopt : read_run("exercises/" + e.id(), cmd)});
        }
      collect_sources(s);
      sections_.push_back(std::move(s));
    }
    if (sections_.empty())
      throw std::runtime_error("book: no run of any chapter program in " + runs.string() +
                               " (<name>.log); `make book` runs them");
    const fs::path settings = runs / "settings.txt";
    if (fs::exists(settings))
      for (const std::string& l : split_lines(read_bytes(settings))) {
        const size_t colon = l.find(": ");
        if (colon != std::string::npos) settings_.push_back({l.substr(0, colon), l.substr(colon + 2)});
      }
  }

  // " --quick" when the runs were made with ARGS=--quick (settings.txt), else "".
  static std::string program_arguments_of(const fs::path& runs) {
    if (!fs::exists(runs / "settings.txt")) return "";
    for (const std::string& l : split_lines(read_bytes(runs / "settings.txt")))
      if (l.rfind("arguments: ", 0) == 0 && l.rfind("arguments: none", 0) != 0 && l.size() > 11)
        return " " + l.substr(11);
    return "";
  }

  // ---- page parts ---------------------------------------------------------------------------

  std::string nav(size_t i) const {
    std::string s = "<nav><a href=\"index.html\">\xE7\x9B\xAE\xE5\xBD\x95 / Contents</a>";  // 目录
    if (i > 0)
      s += "<a href=\"" + sections_[i - 1].info.program + ".html\">\xE2\x86\x90 " +
           escape(sections_[i - 1].info.number + " " + sections_[i - 1].info.zh) + "</a>";
    if (i + 1 < sections_.size())
      s += "<a href=\"" + sections_[i + 1].info.program + ".html\">" +
           escape(sections_[i + 1].info.number + " " + sections_[i + 1].info.zh) + " \xE2\x86\x92</a>";
    return s + "</nav>\n";
  }

  static std::string page_title(const Section& s) {
    return s.info.number + " " + s.info.zh + (s.info.en != s.info.zh ? " / " + s.info.en : "") +
           " \xC2\xB7 d2l-attention-cpp";
  }

  // The book's section this page accompanies: number, titles, the link online, and what
  // follows on the page (output, the exercises by number, the source).
  std::string book_header(const Section& s, bool live) const {
    std::string h = "<h1><span class=\"num\">" + escape(s.info.number) + "</span>" + escape(s.info.zh) +
                    (s.info.en != s.info.zh ? " <span class=\"en\">/ " + escape(s.info.en) + "</span>" : "") +
                    "</h1>\n<p class=\"book\">\xE3\x80\x8A\xE5\x8A\xA8\xE6\x89\x8B\xE5\xAD\xA6\xE6\xB7\xB1\xE5\xBA\xA6"
                    "\xE5\xAD\xA6\xE4\xB9\xA0\xE3\x80\x8B " + escape(s.info.number) + ": <a href=\"" +
                    escape(s.info.url) + "\">" + escape(s.info.url) + "</a><br/>Read the section there; this page "
                    "shows what its code prints and draws when run in C++, then its exercises run.</p>\n";
    h += "<nav class=\"toc\"><a href=\"#output\">\xE8\xBE\x93\xE5\x87\xBA / Output</a>";  // 输出
    if (live) h += "<a href=\"#live\">\xE8\xAF\x95\xE4\xB8\x80\xE8\xAF\x95 / Live</a>";  // 试一试: the panel
    for (const ExerciseRun& e : s.exercises)
      h += "<a href=\"#" + e.info.anchor() + "\">" + kLian + " " + std::to_string(e.info.number) + "</a>";
    return h + "<a href=\"#source\">\xE6\xBA\x90\xE4\xBB\xA3\xE7\xA0\x81 / Source</a></nav>\n";  // 源代码
  }

  std::string figure_html(const Section& s, const Figure& f, int index, Marks& marks) {
    const fs::path src = fs::path(f.path).is_absolute() ? fs::path(f.path) : root_ / f.path;
    const fs::path png = src.extension() == ".png" ? src : fs::path(src).replace_extension(".png");
    const fs::path svg = fs::path(src).replace_extension(".svg");
    if (!fs::exists(src))
      throw std::runtime_error("book: " + f.path + ", printed by " + s.info.program +
                               ", is missing (run `make book` again)");
    const std::string base = png.filename().string();
    const std::string rel = "figures/" + s.info.program + "/" + std::to_string(index) + "-" + base;
    std::string html = "<figure id=\"fig-" + std::to_string(index) + "\">\n";
    // Inline SVG (its cells' tooltips work) while the page stays small enough for a phone;
    // a big SVG (a heatmap of thousands of cells) or one past the page's budget is shown as
    // its PNG, the SVG beside it as a file.
    const std::string svg_text = fs::exists(svg) ? read_bytes(svg) : "";
    const bool inline_it = !svg_text.empty() && (!fs::exists(png) || (svg_text.size() <= kMaxInlineSvg &&
                                                                       inlined_ + svg_text.size() <= kPageSvgBudget));
    const std::string svg_rel = fs::path(rel).replace_extension(".svg").string();
    fs::create_directories(out_ / "figures" / s.info.program);
    if (inline_it) {
      inlined_ += svg_text.size();
      html += inline_svg(svg_text, "f" + std::to_string(index) + "-", base) + "\n";
    } else {
      html += "<img src=\"" + escape(rel) + "\" alt=\"" + escape(base) + "\"/>\n";
      if (!svg_text.empty()) write_file_atomically((out_ / svg_rel).string(), svg_text, "book");
    }
    if (fs::exists(png)) write_file_atomically((out_ / rel).string(), read_bytes(png), "book");
    html += "<figcaption>" + escape(figure_description(s, f, base)) + " <span class=\"path\">" + escape(f.path) +
            "</span>";
    if (fs::exists(png) && inline_it) html += " \xC2\xB7 <a href=\"" + escape(rel) + "\">PNG</a>";
    if (!inline_it && !svg_text.empty())
      html += " \xC2\xB7 <a href=\"" + escape(svg_rel) + "\">SVG (hover over a cell for its value)</a>";
    if (f.at != nullptr && has_source(s, f.at->file)) {
      const LineRange r = figure_range(source(f.at->file), f.at->line);
      mark(s, f.at->file, r, marks);
      html += " \xC2\xB7 drawn by <a href=\"#" + line_anchor(f.at->file, r.first) + "\">" +
              escape(range_text(f.at->file, r)) + "</a>";
    }
    return html + "</figcaption>\n</figure>\n";
  }

  // What a figure shows, for its caption: the description its program's opening comment gives
  // beside the file's name ("//   attention.png   the decoder's attention over ..."), read from
  // the file that drew it, then the section's program and its exercises' file; else its name
  // in words ("average_pooling.png": "Average pooling").
  std::string figure_description(const Section& s, const Figure& f, const std::string& base) {
    std::vector<std::string> files;
    if (f.at != nullptr) files.push_back(f.at->file);
    files.push_back("chapters/" + s.info.program + ".cpp");
    files.push_back("chapters/exercises/" + s.info.program + ".cpp");
    for (const std::string& file : files) {
      if (!fs::exists(root_ / file)) continue;
      const std::string d = described_in(source(file), base);
      if (!d.empty()) return d;
    }
    std::string words = fs::path(base).stem().string();
    std::replace(words.begin(), words.end(), '_', ' ');
    if (!words.empty() && words[0] >= 'a' && words[0] <= 'z') words[0] = static_cast<char>(words[0] - 'a' + 'A');
    return words;
  }
  // The description after `base` in the opening comment of `lines`, with its continuation
  // lines (indented at least as far), or "" when the name is followed by another file's name.
  static std::string described_in(const std::vector<std::string>& lines, const std::string& base) {
    auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; };
    for (size_t i = 0; i < lines.size() && lines[i].rfind("//", 0) == 0; ++i) {
      const std::string& l = lines[i];
      size_t at = l.find(base);
      while (at != std::string::npos && at > 0 && word_char(l[at - 1])) at = l.find(base, at + 1);
      if (at == std::string::npos) continue;
      size_t d = at + base.size();
      while (d < l.size() && (l[d] == ' ' || l[d] == ':')) ++d;
      if (l.compare(d, 3, "\xE2\x80\x94") == 0) d += 3;  // an em dash
      while (d < l.size() && l[d] == ' ') ++d;
      if (d >= l.size() || d - (at + base.size()) < 2 || l.find(".png", d) != std::string::npos) return "";
      std::string text = l.substr(d);
      for (size_t j = i + 1; j < lines.size() && lines[j].rfind("//", 0) == 0; ++j) {
        const size_t start = lines[j].find_first_not_of(' ', 2);
        if (start == std::string::npos || start < d || lines[j].find(".png") != std::string::npos) break;
        text += " " + lines[j].substr(start);
      }
      while (!text.empty() && (text.back() == ';' || text.back() == ',' || text.back() == ' ')) text.pop_back();
      if (!text.empty() && text[0] >= 'a' && text[0] <= 'z') text[0] = static_cast<char>(text[0] - 'a' + 'A');
      return text;
    }
    return "";
  }

  static bool has_source(const Section& s, const std::string& f) {
    return std::find(s.sources.begin(), s.sources.end(), f) != s.sources.end();
  }

  static void mark(const Section& s, const std::string& file, LineRange r, Marks& marks) {
    const size_t k = static_cast<size_t>(std::find(s.sources.begin(), s.sources.end(), file) - s.sources.begin());
    for (int l = r.first; l <= r.last; ++l)
      if (static_cast<size_t>(l - 1) < marks[k].size()) marks[k][static_cast<size_t>(l - 1)] = true;
  }

  // One run's output split at its banners, each block linked to the lines that printed it,
  // figures inline. `id` prefixes the blocks' anchors ("out", "ex-2"); `level` is the
  // headings' tag ("h3" for the section's, "h4" inside an exercise).
  // The printed text of a block (figures aside), to tell a block an exercise run repeats.
  static std::string block_text(const Block& b) {
    std::string t = b.heading + "\n";
    for (const Block::Item& item : b.items)
      for (const std::string& l : item.text) t += l + "\n";
    return t;
  }

  // An exercise that reruns the section's code first (a model trained again, then probed)
  // prints the section's blocks again: `repeated` holds the section's blocks' texts, and
  // each run of such blocks, printed exactly as under Output, is folded.
  std::string run_output(const Section& s, const Run& run, const std::string& id, const std::string& level,
                         int& figure_index, Marks& marks, const std::set<std::string>& repeated = {}) {
    std::string body;
    const std::vector<Block> blocks = blocks_of(run);
    bool folded = false;
    for (size_t b = 0; b < blocks.size(); ++b) {
      const Block& blk = blocks[b];
      const bool again = !blk.heading.empty() && repeated.count(block_text(blk)) > 0;
      if (again && !folded) {
        size_t n = b;
        while (n < blocks.size() && !blocks[n].heading.empty() && repeated.count(block_text(blocks[n]))) ++n;
        body += "<details class=\"again\"><summary>the section's code again, printing what it printed under "
                "Output (" + std::to_string(n - b) + (n - b == 1 ? " block" : " blocks") + ")</summary>\n";
      } else if (!again && folded) {
        body += "</details>\n";
      }
      folded = again;
      body += "<section class=\"block\" id=\"" + id + "-" + std::to_string(b + 1) + "\">\n";
      if (!blk.heading.empty()) body += "<" + level + ">" + escape(blk.heading) + "</" + level + ">\n";
      if (blk.at != nullptr && has_source(s, blk.at->file)) {
        int next = 0;  // the next banner called from the same file
        for (size_t c = b + 1; c < blocks.size() && next == 0; ++c)
          if (blocks[c].at != nullptr && blocks[c].at->file == blk.at->file) next = blocks[c].at->line;
        const LineRange r = block_range(source(blk.at->file), blk.at->line, next);
        mark(s, blk.at->file, r, marks);
        body += "<p class=\"from\">printed by <a href=\"#" + line_anchor(blk.at->file, r.first) + "\">" +
                escape(range_text(blk.at->file, r)) + "</a></p>\n";
      }
      for (const Block::Item& item : blk.items) {
        if (item.figure) {
          body += figure_html(s, *item.figure, ++figure_index, marks);
        } else {
          std::string text;
          for (const std::string& l : item.text) text += escape(l) + "\n";
          body += "<pre class=\"out\">" + text + "</pre>\n";
        }
      }
      body += "</section>\n";
    }
    return body + (folded ? "</details>\n" : "");
  }

  // The section's code as the book runs it: the program at its defaults.
  std::string section_output(const Section& s, int& figure_index, Marks& marks) {
    return "<h2 id=\"output\">\xE8\xBE\x93\xE5\x87\xBA <span class=\"en\">/ Output</span></h2>\n"  // 输出
           "<p>What the section's program printed, in the book's order, split at its banners (each names the "
           "book's subsection), with its figures:</p>\n<pre class=\"cmd\">" +
           escape(s.run.command) + "</pre>\n" + run_output(s, s.run, "out", "h3", figure_index, marks);
  }

  // One exercise: its heading (练习 N), the question in a line, the command, what the
  // bundled data can show, then the run's output and figures.
  std::string exercise_part(const Section& s, const ExerciseRun& e, int& figure_index, Marks& marks) {
    const ExerciseInfo& x = e.info;
    std::string cmd = "build/chapters/" + x.program + (x.args.empty() ? "" : " " + x.args);
    std::string h = "<section class=\"exercise\" id=\"" + x.anchor() + "\">\n<h3>" + kLian + " " + escape(x.section) +
                    "." + std::to_string(x.number) + " <span class=\"en\">/ Exercise " + std::to_string(x.number) +
                    "</span></h3>\n<p class=\"q\">" + escape(x.question) + "</p>\n";
    if (x.same_run_as != 0) {
      h += "<p>The run of <a href=\"#ex-" + std::to_string(x.same_run_as) + "\">" + kLian + " " + escape(x.section) +
           "." + std::to_string(x.same_run_as) + "</a> above answers it too:</p>\n<pre class=\"cmd\">" + escape(cmd) +
           "</pre>\n";
      if (!x.note.empty()) h += "<p class=\"note\">" + inline_md(x.note) + "</p>\n";
      return h + "</section>\n";
    }
    if (e.run) cmd = e.run->command;
    h += "<pre class=\"cmd\">" + escape(cmd) + "</pre>\n";
    if (!x.note.empty()) h += "<p class=\"note\">" + inline_md(x.note) + "</p>\n";
    if (!e.run)
      return h + "<p class=\"note\">Not run yet: <code>make exercises</code> (or <code>make book</code>) runs it "
                 "and the page shows its output here.</p>\n</section>\n";
    std::set<std::string> repeated;
    for (const Block& b : blocks_of(s.run)) repeated.insert(block_text(b));
    return h + run_output(s, *e.run, x.anchor(), "h4", figure_index, marks, repeated) + "</section>\n";
  }

  std::string exercises_part(const Section& s, int& figure_index, Marks& marks) {
    if (s.exercises.empty()) return "";
    std::string h = std::string("<h2 id=\"exercises\">") + kLian + " <span class=\"en\">/ Exercises</span></h2>\n";
    for (const ExerciseRun& e : s.exercises) h += exercise_part(s, e, figure_index, marks);
    return h;
  }

  // The source, each file folded (a link to one of its lines opens it), the section's own
  // file first.
  std::string sources_part(const Section& s, const Marks& marks) {
    std::string h = "<h2 id=\"source\">\xE6\xBA\x90\xE4\xBB\xA3\xE7\xA0\x81 <span class=\"en\">/ Source</span></h2>\n"
                    "<p>Folded: open a file, or follow a \"printed by\" / \"drawn by\" link above (highlighted lines "
                    "printed or drew something on this page).</p>\n";
    for (size_t k = 0; k < s.sources.size(); ++k) {
      const std::vector<std::string>& lines = source(s.sources[k]);
      h += "<details id=\"" + file_anchor(s.sources[k]) + "\"><summary>" + escape(s.sources[k]) + " (" +
           std::to_string(lines.size()) + " lines)</summary>\n" + source_listing(s.sources[k], lines, marks[k]) +
           "</details>\n";
    }
    return h;
  }

  void write_section(size_t i) {
    const Section& s = sections_[i];
    inlined_ = 0;
    Marks marks;
    for (const std::string& f : s.sources) marks.emplace_back(source(f).size(), false);
    int figure_index = 0;
    // The section's live panel (live_panels.h) comes right after its output.
    const std::string live = live_.section(s.info.program);
    const bool has_live = live.find("id=\"live\"") != std::string::npos;
    if (has_live) live_sections_.insert(s.info.program);
    const std::string output = section_output(s, figure_index, marks) + live;
    const std::string exercises = exercises_part(s, figure_index, marks);
    const std::string page = page_head(page_title(s)) + nav(i) + book_header(s, has_live) + output + exercises +
                             sources_part(s, marks) + nav(i) + "</body>\n</html>\n";
    write_file_atomically((out_ / (s.info.program + ".html")).string(), page, "book");
  }

  // ---- the index ------------------------------------------------------------------------------

  // The sections in the book's order: each links to its page and to the book online.
  std::string section_map() const {
    std::string map = "<ul class=\"map\">\n";
    for (const Section& s : sections_)
      map += "<li><a href=\"" + s.info.program + ".html\"><b>" + escape(s.info.number) + "</b> " + escape(s.info.zh) +
             (s.info.en != s.info.zh ? " <span class=\"en\">/ " + escape(s.info.en) + "</span>" : "") + "</a><br/>" +
             "<span class=\"meta\">" +
             (live_sections_.count(s.info.program)
                  ? "<a href=\"" + s.info.program + ".html#live\">\xE8\xAF\x95\xE4\xB8\x80\xE8\xAF\x95 / Live</a> \xC2\xB7 "
                  : std::string()) +
             std::to_string(s.exercises.size()) + " " + kLian + " \xC2\xB7 chapters/" +
             escape(s.info.program) + ".cpp \xC2\xB7 <a href=\"" + escape(s.info.url) + "\" class=\"nw\">zh.d2l.ai</a>"
             "</span></li>\n";
    return map + "</ul>\n";
  }

  // Every exercise, linked to its place on its section's page, with its question and command.
  std::string exercise_table() const {
    std::string t = "<div class=\"wide\"><table class=\"ex\">\n<tr><th>exercise</th><th>question and command</th></tr>\n";
    for (const Section& s : sections_)
      for (const ExerciseRun& e : s.exercises)
        t += "<tr><td><a href=\"" + s.info.program + ".html#" + e.info.anchor() + "\">" + escape(e.info.section) + "." +
             std::to_string(e.info.number) + "</a></td><td>" + escape(e.info.question) + "<br/><code>" +
             escape(e.info.program + (e.info.args.empty() ? "" : " " + e.info.args)) + "</code></td></tr>\n";
    return t + "</table></div>\n";
  }

  std::string settings_table() const {
    std::string settings = "<div class=\"wide\"><table>\n";
    for (const auto& kv : settings_)
      settings += "<tr><th>" + escape(kv.first) + "</th><td>" + escape(kv.second) + "</td></tr>\n";
    std::set<std::string> data_lines;
    for (const Section& s : sections_)
      for (const std::string& l : s.run.log)
        for (const char* p : {"using data", "data: ", "embedding from ", "cpu: "})
          if (l.rfind(p, 0) == 0) data_lines.insert(s.info.program + ": " + l);
    std::string data;
    for (const std::string& l : data_lines) data += escape(l) + "\n";
    return settings + "</table></div>\n<p>Data and threads, as the programs printed them:</p>\n<pre>" +
           (data.empty() ? std::string("(none printed: the programs ran on their bundled data)\n") : data) +
           "</pre>\n";
  }

  void write_index() {
    const std::string page =
        page_head("d2l-attention-cpp: \xE6\xB3\xA8\xE6\x84\x8F\xE5\x8A\x9B\xE6\x9C\xBA\xE5\x88\xB6 / Attention "
                  "Mechanisms, the companion") +
        "<h1>\xE6\xB3\xA8\xE6\x84\x8F\xE5\x8A\x9B\xE6\x9C\xBA\xE5\x88\xB6 <span class=\"en\">/ Attention Mechanisms: "
        "the companion</span></h1>\n"
        "<p>One page per section of <i>Dive into Deep Learning</i> (d2l-zh, chapter 10 and 15.5), to read beside the "
        "book: the section's output and figures as its C++ program prints and draws them, then each of the section's "
        "exercises run (hover over a heatmap's cells for the query, the key and the weight), then the C++, folded.</p>\n"
        "<h2>\xE7\xAB\xA0\xE8\x8A\x82 <span class=\"en\">/ Sections</span></h2>\n" +  // 章节
        section_map() + "<h2>" + kLian + " <span class=\"en\">/ Exercises</span></h2>\n" + exercise_table() +
        "<h2>\xE8\xBF\x90\xE8\xA1\x8C <span class=\"en\">/ The run</span></h2>\n" + settings_table() +  // 运行
        "</body>\n</html>\n";
    write_file_atomically((out_ / "index.html").string(), page, "book");
  }

  // A page inlines SVGs up to this many bytes in all, none bigger than kMaxInlineSvg.
  static constexpr size_t kMaxInlineSvg = 400 << 10, kPageSvgBudget = 1200 << 10;
  size_t inlined_ = 0;
  BookOptions opt_;
  fs::path root_, out_;
  std::vector<Section> sections_;
  LivePanels live_;
  std::set<std::string> live_sections_;  // the sections whose page has a live panel (#live)
  std::map<std::string, std::vector<std::string>> files_;
  std::vector<std::pair<std::string, std::string>> settings_;
};

}  // namespace

int write_book(const BookOptions& opt) { return Writer(opt).run(); }

std::string list_runs(const std::string& programs) {
  std::string s;
  for (const ExerciseInfo& e : exercises(programs))
    if (e.same_run_as == 0) s += e.id() + "\t" + e.program + "\t" + e.args + "\n";
  return s;
}

}  // namespace d2l::book
