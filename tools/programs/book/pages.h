// tools/programs/book/pages.h — the companion pages: each section's printed output, figures and
// source together, as a folder of static HTML (`make book`, build/tools/book).
//
// The sections and their exercises come from catalog.h (the exercises from the programs). Input, for each section whose
// program has a run in `runs`:
//   <runs>/<program>.log          what the program printed at its defaults (stdout), in order
//   <runs>/<program>.trace        where its banners and figures come from (source_trace.h)
//   <runs>/exercises/<id>.log     each exercise's run (`make exercises`; id "10.7-4"), + .trace
//   the figures the logs name ("saved out/<name>/x.png") and their SVG siblings (x.svg)
//   <runs>/settings.txt           "key: value" lines about the run (tier, arguments, threads, date)
// Output, in `out`:
//   index.html            the sections, every exercise linked to its place, the run's settings
//   <program>.html        one page per section, in parts (one function each, in this order):
//                         the book's section (number, titles, the link online); its output
//                         split at the program's banners, each figure inline (SVG, the PNG
//                         linked); each exercise (练习 N: the question, the command, a note on
//                         the bundled data, its output and figures); the source, folded, the
//                         section's own file first, each output block and figure linked to
//                         the lines that printed or drew it
//   figures/<program>/*.png  the PNGs, so the folder stands alone
// No script, no external file or font: the pages read offline with JavaScript off, and on a
// phone (at 400 px only code and table boxes scroll sideways). They are XHTML-compatible (a
// strict XML parser reads them). Every file is written to a temporary and renamed.
#pragma once
#include <string>

namespace d2l::book {

struct BookOptions {
  std::string runs = "build/book-run";  // the logs and traces (the Makefile's run rule)
  std::string out = "out/book";
  std::string root = ".";               // the repository: chapters/, layers/
  std::string engine;                   // the live panels' engine (live_panels.h); "": none
  std::string programs = "build/chapters";  // the chapter programs, asked for their exercises
};

// Writes the pages; returns the number of section pages. Throws std::runtime_error naming
// the file and what is wrong (no run found, a figure the log names is missing, ...).
int write_book(const BookOptions& opt);

// The exercise runs `make exercises` makes, one a line: "<id>\t<program>\t<arguments>" (an
// exercise answered by another's run is not listed), from the programs in `programs`.
std::string list_runs(const std::string& programs);

}  // namespace d2l::book
