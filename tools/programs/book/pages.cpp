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
#include "tools/programs/book/html.h"
#include "tools/programs/book/live_panels.h"

namespace fs = std::filesystem;

namespace d2l::book {

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("book: cannot read " + p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

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

struct Section {
  std::string name, number, zh, en;  // attention_cues, 10.1, 注意力提示, Attention Cues
  std::vector<std::string> log;
  std::vector<Event> events;
  std::vector<std::string> sources;  // chapter program, layers, other files the trace names
};

const char* const kStyle =
    "body{font-family:DejaVu Sans,Bitstream Vera Sans,Verdana,sans-serif;margin:0 auto;max-width:64rem;"
    "padding:0 1rem 3rem;line-height:1.45;color:#222}"
    "nav{padding:.6rem 0;border-bottom:1px solid #ddd;font-size:.9rem}nav a{margin-right:1rem}"
    "h1 .en,h2 .en{color:#555;font-weight:normal}h1 .num{color:#a00;margin-right:.4rem}"
    "pre{background:#f7f7f7;border:1px solid #e3e3e3;padding:.5rem .7rem;overflow-x:auto;font-size:.82rem;"
    "line-height:1.3}pre.out{white-space:pre-wrap;overflow-wrap:anywhere}"
    ".block{border-left:3px solid #c33;padding-left:.8rem;margin:1.4rem 0}.block h3{margin:.2rem 0;font-size:1rem}"
    ".from{font-size:.85rem;color:#555;margin:.2rem 0}"
    "figure{margin:.8rem 0}figure svg{max-width:100%;height:auto;display:block}"
    "figcaption{font-size:.85rem;color:#555}"
    "pre.src{background:#fcfcfc}pre.src .ln{color:#999;text-decoration:none;user-select:none}"
    "pre.src .cm{color:#2a6e2a}pre.src .st{color:#8a4b08}pre.src .ref{background:#fff3c4}"
    "pre.src :target{background:#ffd86b;outline:1px solid #e0a800}"
    "table{border-collapse:collapse;font-size:.88rem;margin:.6rem 0}"
    "td,th{border:1px solid #ddd;padding:.3rem .5rem;vertical-align:top;text-align:left}th{background:#f3f3f3}"
    "code{background:#f3f3f3;padding:0 .2rem}";

std::string page_head(const std::string& title) {
  return "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"zh-Hans\">\n<head>\n"
         "<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
         "<title>" + escape(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
}

// The title from the chapter's first comment lines: "// chapters/x.cpp — 10.1 注意力提示 /
// Attention Cues (sec_attention-cues)." (the heading may wrap onto the next lines).
void parse_title(Section& s, const std::vector<std::string>& lines, const std::string& file) {
  std::string head;
  for (const std::string& l : lines) {
    if (l.rfind("//", 0) != 0 || trim(l.substr(2)).empty()) break;
    head += (head.empty() ? "" : " ") + trim(l.substr(2));
    if (head.find("(sec_") != std::string::npos) break;
  }
  const std::string dash = "\xE2\x80\x94 ";  // "— "
  const size_t d = head.find(dash), sec = head.find(" (sec_");
  if (d == std::string::npos || sec == std::string::npos || sec < d)
    throw std::runtime_error("book: " + file + ": the first comment lines do not give the section as "
                             "'— 10.1 中文 / English (sec_...)'");
  const std::string title = head.substr(d + dash.size(), sec - d - dash.size());
  const size_t sp = title.find(' ');
  s.number = title.substr(0, sp);
  const std::string names = sp == std::string::npos ? "" : title.substr(sp + 1);
  const size_t slash = names.find(" / ");
  s.zh = trim(names.substr(0, slash));
  s.en = slash == std::string::npos ? s.zh : trim(names.substr(slash + 3));
}

std::vector<Event> read_trace(const fs::path& p) {
  std::vector<Event> events;
  if (!fs::exists(p)) return events;
  int n = 0;
  for (const std::string& l : split_lines(read_text(p))) {
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
  std::vector<std::string> lines = split_lines(read_text(p));
  for (std::string& l : lines) {
    const size_t cr = l.find_last_of('\r', l.size() > 0 ? l.size() - 1 : 0);
    if (cr != std::string::npos) l = cr + 1 == l.size() ? l.substr(0, cr) : l.substr(cr + 1);
  }
  return lines;
}

// Splits the log at its banners, pairing each banner and "saved" line with the trace's next
// event of that kind and text (a line that only looks like one stays text).
std::vector<Block> blocks_of(const Section& s) {
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
  const std::vector<std::string>& source(const std::string& path) {
    auto it = files_.find(path);
    if (it == files_.end()) it = files_.emplace(path, split_lines(read_text(root_ / path))).first;
    return it->second;
  }

  void load() {
    const fs::path runs(opt_.runs);
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(root_ / "chapters"))
      if (e.path().extension() == ".cpp" && fs::exists(runs / (e.path().stem().string() + ".log")))
        names.push_back(e.path().stem().string());
    if (names.empty())
      throw std::runtime_error("book: no run of any chapter program in " + runs.string() +
                               " (<name>.log); `make book` runs them");
    for (const std::string& name : names) {
      Section s;
      s.name = name;
      const std::string chapter = "chapters/" + name + ".cpp";
      parse_title(s, source(chapter), chapter);
      s.log = read_log(runs / (name + ".log"));
      s.events = read_trace(runs / (name + ".trace"));
      // The sources: the program, the layers it includes (and theirs), then any other file
      // the trace names (a trainer in tools/d2l/train/ that drew a curve).
      s.sources.push_back(chapter);
      std::vector<std::string> todo = layer_includes(source(chapter));
      std::set<std::string> seen(s.sources.begin(), s.sources.end());
      for (size_t k = 0; k < todo.size(); ++k) {
        const std::string h = todo[k], cpp = h.substr(0, h.size() - 2) + ".cpp";
        for (const std::string& f : {h, cpp}) {
          if (seen.count(f) || !fs::exists(root_ / f)) continue;
          seen.insert(f);
          s.sources.push_back(f);
          for (const std::string& more : layer_includes(source(f))) todo.push_back(more);
        }
      }
      for (const Event& e : s.events)
        if (!seen.count(e.file) && fs::exists(root_ / e.file)) {
          seen.insert(e.file);
          s.sources.push_back(e.file);
        }
      sections_.push_back(std::move(s));
    }
    auto key = [](const Section& s) {  // 10.2 before 10.10, 10.x before 15.x
      std::vector<int> k;
      std::stringstream ss(s.number);
      for (std::string part; std::getline(ss, part, '.');) k.push_back(std::atoi(part.c_str()));
      return k;
    };
    std::sort(sections_.begin(), sections_.end(), [&](const Section& a, const Section& b) { return key(a) < key(b); });
    const fs::path settings = runs / "settings.txt";
    if (fs::exists(settings))
      for (const std::string& l : split_lines(read_text(settings))) {
        const size_t colon = l.find(": ");
        if (colon != std::string::npos) settings_.push_back({l.substr(0, colon), l.substr(colon + 2)});
      }
  }

  std::string nav(size_t i) const {
    std::string s = "<nav><a href=\"index.html\">\xE7\x9B\xAE\xE5\xBD\x95 / Contents</a>";  // 目录
    if (i > 0)
      s += "<a href=\"" + sections_[i - 1].name + ".html\">\xE2\x86\x90 " + escape(sections_[i - 1].number + " " +
                                                                                    sections_[i - 1].en) + "</a>";
    if (i + 1 < sections_.size())
      s += "<a href=\"" + sections_[i + 1].name + ".html\">" +
           escape(sections_[i + 1].number + " " + sections_[i + 1].en) + " \xE2\x86\x92</a>";
    return s + "</nav>\n";
  }

  std::string title_html(const Section& s) const {
    return "<span class=\"num\">" + escape(s.number) + "</span>" + escape(s.zh) +
           (s.en != s.zh ? " <span class=\"en\">/ " + escape(s.en) + "</span>" : "");
  }

  std::string figure_html(const Section& s, const Figure& f, int index, std::vector<std::vector<bool>>& marks) {
    const fs::path src = fs::path(f.path).is_absolute() ? fs::path(f.path) : root_ / f.path;
    const fs::path png = src.extension() == ".png" ? src : fs::path(src).replace_extension(".png");
    const fs::path svg = fs::path(src).replace_extension(".svg");
    if (!fs::exists(src))
      throw std::runtime_error("book: " + f.path + ", printed by " + s.name + ", is missing (run `make book` again)");
    const std::string base = png.filename().string();
    const std::string rel = "figures/" + s.name + "/" + std::to_string(index) + "-" + base;
    std::string html = "<figure id=\"fig-" + std::to_string(index) + "\">\n";
    if (fs::exists(svg)) {
      html += inline_svg(read_text(svg), "f" + std::to_string(index) + "-", base) + "\n";
    } else {
      html += "<img src=\"" + escape(rel) + "\" alt=\"" + escape(base) + "\" style=\"max-width:100%\"/>\n";
    }
    if (fs::exists(png)) {
      fs::create_directories(out_ / "figures" / s.name);
      write_file_atomically((out_ / rel).string(), read_text(png), "book");
    }
    html += "<figcaption>" + escape(f.path);
    if (fs::exists(png)) html += " \xC2\xB7 <a href=\"" + escape(rel) + "\">PNG</a>";
    if (f.at != nullptr && has_source(s, f.at->file)) {
      const LineRange r = figure_range(source(f.at->file), f.at->line);
      mark(s, f.at->file, r, marks);
      html += " \xC2\xB7 drawn by <a href=\"#" + line_anchor(f.at->file, r.first) + "\">" +
              escape(range_text(f.at->file, r)) + "</a>";
    }
    return html + "</figcaption>\n</figure>\n";
  }

  static bool has_source(const Section& s, const std::string& f) {
    return std::find(s.sources.begin(), s.sources.end(), f) != s.sources.end();
  }

  static void mark(const Section& s, const std::string& file, LineRange r, std::vector<std::vector<bool>>& marks) {
    const size_t k = static_cast<size_t>(std::find(s.sources.begin(), s.sources.end(), file) - s.sources.begin());
    for (int l = r.first; l <= r.last; ++l)
      if (static_cast<size_t>(l - 1) < marks[k].size()) marks[k][static_cast<size_t>(l - 1)] = true;
  }

  void write_section(size_t i) {
    const Section& s = sections_[i];
    std::vector<std::vector<bool>> marks;
    for (const std::string& f : s.sources) marks.emplace_back(source(f).size(), false);
    std::string body;
    const std::vector<Block> blocks = blocks_of(s);
    int figure_index = 0;
    for (size_t b = 0; b < blocks.size(); ++b) {
      const Block& blk = blocks[b];
      body += "<section class=\"block\" id=\"out-" + std::to_string(b + 1) + "\">\n";
      if (!blk.heading.empty()) body += "<h3>" + escape(blk.heading) + "</h3>\n";
      if (blk.at != nullptr && has_source(s, blk.at->file)) {
        int next = 0;  // the next banner called from the same file
        for (size_t c = b + 1; c < blocks.size() && next == 0; ++c)
          if (blocks[c].at != nullptr && blocks[c].at->file == blk.at->file) next = blocks[c].at->line;
        const LineRange r = block_range(source(blk.at->file), blk.at->line, next);
        mark(s, blk.at->file, r, marks);
        body += "<p class=\"from\">printed by <a href=\"#" + line_anchor(blk.at->file, r.first) + "\">" +
                escape(range_text(blk.at->file, r)) + "</a></p>\n";
      } else if (blk.heading.empty()) {
        const std::string chapter = s.sources[0];
        const auto& lines = source(chapter);
        int main_line = 1;
        for (size_t l = 0; l < lines.size(); ++l)
          if (lines[l].rfind("int main(", 0) == 0) main_line = static_cast<int>(l + 1);
        body += "<p class=\"from\">printed before the first banner, by <a href=\"#" +
                line_anchor(chapter, main_line) + "\">" + escape(chapter) + "'s main</a> and what it calls</p>\n";
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
    body += live_.section(s.name);  // the section's live panel, after its output
    std::string sources;
    for (size_t k = 0; k < s.sources.size(); ++k)
      sources += "<section id=\"" + file_anchor(s.sources[k]) + "\">\n<h3>" + escape(s.sources[k]) + "</h3>\n" +
                 source_listing(s.sources[k], source(s.sources[k]), marks[k]) + "</section>\n";
    std::string files;
    for (const std::string& f : s.sources)
      files += (files.empty() ? "" : ", ") + std::string("<a href=\"#") + file_anchor(f) + "\">" + escape(f) + "</a>";
    std::string page = page_head(s.number + " " + s.zh + " / " + s.en) + nav(i) + "<h1>" + title_html(s) + "</h1>\n" +
                       "<p>The output of <code>build/chapters/" + escape(s.name) + program_arguments() +
                       "</code> as it printed it, split at its banners, with its figures; then the source: " + files +
                       ". Highlighted source lines printed or drew something above.</p>\n" +
                       "<h2>\xE8\xBE\x93\xE5\x87\xBA <span class=\"en\">/ Output</span></h2>\n" + body +  // 输出
                       "<h2>\xE6\xBA\x90\xE4\xBB\xA3\xE7\xA0\x81 <span class=\"en\">/ Source</span></h2>\n" +  // 源代码
                       sources + nav(i) + "</body>\n</html>\n";
    write_file_atomically((out_ / (s.name + ".html")).string(), page, "book");
  }

  std::string program_arguments() const {  // " --quick", or "" for the defaults ("none: ...")
    for (const auto& kv : settings_)
      if (kv.first == "arguments" && !kv.second.empty() && kv.second.rfind("none", 0) != 0)
        return " " + escape(kv.second);
    return "";
  }

  // README.md's exercises table, each row's section linked to its page.
  std::string exercises_table() {
    const std::vector<std::string> lines = split_lines(read_text(root_ / "README.md"));
    size_t k = 0;
    while (k < lines.size() && lines[k] != "## Exercises") ++k;
    while (k < lines.size() && lines[k].rfind("| section |", 0) != 0) ++k;
    if (k >= lines.size()) throw std::runtime_error("book: README.md has no exercises table under '## Exercises'");
    std::string html = "<table>\n<tr><th>section</th><th>exercise</th><th>command</th><th>what you will see</th></tr>\n";
    for (k += 2; k < lines.size() && lines[k].rfind("|", 0) == 0; ++k) {
      std::vector<std::string> cells;
      std::string cur;
      bool code = false;
      for (size_t c = 1; c < lines[k].size(); ++c) {  // a '|' inside `code` is text
        const char ch = lines[k][c];
        if (ch == '`') code = !code;
        if (ch == '|' && !code) {
          cells.push_back(trim(cur));
          cur.clear();
        } else {
          cur += ch;
        }
      }
      if (cells.size() != 4)
        throw std::runtime_error("book: README.md:" + std::to_string(k + 1) + ": an exercises row needs 4 cells, has " +
                                 std::to_string(cells.size()));
      const Section* target = nullptr;  // the last section number the cell names: "9.7 (through 10.4)" -> 10.4
      size_t best = 0;
      for (const Section& s : sections_)
        for (size_t p = cells[0].find(s.number); p != std::string::npos; p = cells[0].find(s.number, p + 1)) {
          const size_t after = p + s.number.size();
          const bool whole = (p == 0 || !std::isdigit(static_cast<unsigned char>(cells[0][p - 1])) ) &&
                             (after >= cells[0].size() || !std::isdigit(static_cast<unsigned char>(cells[0][after])));
          if (whole && (target == nullptr || p >= best)) target = &s, best = p;
        }
      html += "<tr><td>" + (target ? "<a href=\"" + target->name + ".html\">" + inline_md(cells[0]) + "</a>"
                                   : inline_md(cells[0])) +
              "</td><td>" + inline_md(cells[1]) + "</td><td>" + inline_md(cells[2]) + "</td><td>" +
              inline_md(cells[3]) + "</td></tr>\n";
    }
    return html + "</table>\n";
  }

  void write_index() {
    std::string map = "<table>\n<tr><th>book section</th><th>page</th><th>source files</th><th>figures</th></tr>\n";
    std::set<std::string> data_lines;
    for (const Section& s : sections_) {
      std::string files;
      for (const std::string& f : s.sources)
        files += (files.empty() ? "" : "<br/>") + std::string("<a href=\"") + s.name + ".html#" + file_anchor(f) +
                 "\">" + escape(f) + "</a>";
      int figures = 0;
      for (const std::string& l : s.log) {
        figures += l.rfind("saved ", 0) == 0;
        for (const char* p : {"using data", "data: ", "embedding from ", "cpu: "})
          if (l.rfind(p, 0) == 0) data_lines.insert(s.name + ": " + l);
      }
      map += "<tr><td>" + escape(s.number + " " + s.zh) + (s.en != s.zh ? "<br/>" + escape(s.en) : "") +
             "</td><td><a href=\"" + s.name + ".html\">" + escape(s.name) + ".html</a></td><td>" + files + "</td><td>" +
             std::to_string(figures) + "</td></tr>\n";
    }
    map += "</table>\n";
    std::string settings = "<table>\n";
    for (const auto& kv : settings_)
      settings += "<tr><th>" + escape(kv.first) + "</th><td>" + escape(kv.second) + "</td></tr>\n";
    std::string data;
    for (const std::string& l : data_lines) data += escape(l) + "\n";
    settings += "<tr><th>data and threads, as the programs printed them</th><td><pre>" +
                (data.empty() ? std::string("(none printed: the programs ran on their bundled data)\n") : data) +
                "</pre></td></tr>\n</table>\n";
    const std::string page =
        page_head("d2l-attention-cpp: \xE6\xB3\xA8\xE6\x84\x8F\xE5\x8A\x9B\xE6\x9C\xBA\xE5\x88\xB6 / Attention Mechanisms") +
        "<h1>\xE6\xB3\xA8\xE6\x84\x8F\xE5\x8A\x9B\xE6\x9C\xBA\xE5\x88\xB6 <span class=\"en\">/ Attention Mechanisms: "
        "the companion's run</span></h1>\n"
        "<p>One page per section of <i>Dive into Deep Learning</i> (d2l-zh, chapter 10 and 15.5): what the section's "
        "program printed, its figures (hover over a heatmap's cells for the query, the key and the weight), and the "
        "C++ that printed and drew them.</p>\n"
        "<h2>\xE7\xAB\xA0\xE8\x8A\x82 <span class=\"en\">/ Section map</span></h2>\n" + map +  // 章节
        "<h2>\xE7\xBB\x83\xE4\xB9\xA0 <span class=\"en\">/ Exercises</span></h2>\n"  // 练习
        "<p>Each exercise is a command; the section links to that program's page (its default run).</p>\n" +
        exercises_table() +
        "<h2>\xE8\xBF\x90\xE8\xA1\x8C <span class=\"en\">/ The run</span></h2>\n" + settings +  // 运行
        "</body>\n</html>\n";
    write_file_atomically((out_ / "index.html").string(), page, "book");
  }

  BookOptions opt_;
  fs::path root_, out_;
  std::vector<Section> sections_;
  LivePanels live_;
  std::map<std::string, std::vector<std::string>> files_;
  std::vector<std::pair<std::string, std::string>> settings_;
};

}  // namespace

int write_book(const BookOptions& opt) { return Writer(opt).run(); }

}  // namespace d2l::book
