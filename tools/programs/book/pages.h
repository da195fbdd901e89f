// tools/programs/book/pages.h — the companion pages: each section's printed output, figures and
// source together, as a folder of static HTML (`make book`, build/tools/book).
//
// Input, for each chapter program chapters/<name>.cpp that has a run in `runs`:
//   <runs>/<name>.log     what the program printed (stdout), in order
//   <runs>/<name>.trace   where its banners and figures come from (tools/d2l/cli/source_trace.h)
//   the figures the log names ("saved out/<name>/x.png") and their SVG siblings (x.svg)
//   <runs>/settings.txt   "key: value" lines about the run (tier, arguments, threads, date)
// and README.md's exercises table. Output, in `out`:
//   index.html            the section map, the exercises table, the run's settings
//   <name>.html           one page per section: its title in Chinese and English, the output
//                         split at the program's banners, each figure inline (SVG, with the
//                         PNG linked), and the chapter program and the layers it uses as
//                         numbered, anchored listings; each output block links to the lines
//                         that printed it, each figure to the lines that drew it
//   figures/<name>/*.png  the PNGs, so the folder stands alone
// No script, no external file or font: the pages read offline with JavaScript off. They are
// XHTML-compatible (a strict XML parser reads them). Every file is written to a temporary
// and renamed.
#pragma once
#include <string>

namespace d2l::book {

struct BookOptions {
  std::string runs = "build/book-run";  // the logs and traces (the Makefile's run rule)
  std::string out = "out/book";
  std::string root = ".";               // the repository: chapters/, layers/, README.md
  std::string engine;                   // the live panels' engine (live_panels.h); "": none
};

// Writes the pages; returns the number of section pages. Throws std::runtime_error naming
// the file and what is wrong (no run found, a figure the log names is missing, ...).
int write_book(const BookOptions& opt);

}  // namespace d2l::book
