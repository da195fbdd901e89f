// tools/programs/book/html.h — the pieces of the companion pages that know HTML and C++ text
// (tools/programs/book/pages.h): escaping, anchors, a source file as numbered lines, and the line
// ranges a banner's block and a figure's drawing cover in the source.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace d2l::book {

// The file's bytes as they are; std::runtime_error "book: cannot read <path>" when it cannot
// be opened.
std::string read_bytes(const std::filesystem::path& p);

// Text for HTML and XML (the pages are XHTML-compatible, so a strict XML parser reads them):
// xml_escape of core/io/utf8.h, ' as &#39;. A token such as <unk> or a file with any bytes
// still gives a well-formed page.
std::string escape(const std::string& s);

// The anchor of a source file and of one of its lines: "chapters/attention_cues.cpp" ->
// "src-chapters-attention_cues-cpp", line 66 -> "src-chapters-attention_cues-cpp-L66".
std::string file_anchor(const std::string& path);
std::string line_anchor(const std::string& path, int line);

// The file as numbered lines: <pre> with one anchored number per line, comments set apart,
// and the lines in `marked` (1-based) highlighted as lines the page's output links to.
std::string source_listing(const std::string& path, const std::vector<std::string>& lines,
                           const std::vector<bool>& marked);

struct LineRange {
  int first = 0, last = 0;  // 1-based, inclusive
};
// The lines a banner at `line` introduces: up to the line before the next banner that ran
// (next_banner, 0 when none), the next print_banner call below it, or the end of the
// enclosing { } block, whichever comes first, without trailing blank or comment lines.
// Strings, characters and comments do not count as braces.
LineRange block_range(const std::vector<std::string>& lines, int line, int next_banner);
// The statement that starts at `line` (through its closing ';'): a write_figure(path, [&] {
// ... }) call; when that statement is a print_saved(path) call, the statement before it (the
// show_heatmaps or plot call that drew the file) is included too.
LineRange figure_range(const std::vector<std::string>& lines, int line);

// The files "#include "layers/..."" names in `lines`, in order.
std::vector<std::string> layer_includes(const std::vector<std::string>& lines);

}  // namespace d2l::book
