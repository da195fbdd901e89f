// tools/d2l/cli/section.h — the run around a section's code. A section file is the book's
// cells and one line of main:
//
//   void attention_cues() { ... the book's code, figures written to figure_path("x.png") ... }
//   int main(int argc, char** argv) { return d2l::run_section("attention_cues", argc, argv, attention_cues); }
//
// Everything else lives in the section's room, chapters/run/<name>.cpp, linked into the same
// program, which registers with a SectionRoom: the program's title, its defaults, the options
// it adds (--save, --translate, ...) and what runs after the book's code (--translate's
// extra sentence, --dump-attention). The library's training and data functions read those
// options from the run (tools/d2l/cli/run.h), as the book's d2l.train_seq2seq hides its
// Animator: the section's code never sees a command line.
//
// run_section declares the room's options, the exercises' (chapters/exercises/<name>.cpp,
// tools/d2l/cli/exercises.h) and the shared ones (--seed, --threads, --max-tensor-mb, --out),
// parses (bad usage: "error: ...", the usage, exit 2), applies them, and runs --ex N, or the
// room's `instead` when it takes the run over (an exercise's setting such as --rnn lstm), or
// the book's code and then the room's `after`; an exception becomes "error: ...", exit 1.
#pragma once
#include <functional>
#include <string>

#include "tools/d2l/cli/chapter.h"
#include "tools/d2l/cli/run.h"  // figure_path

namespace d2l {

struct SectionRoom {
  std::string title;                          // --help's first line: "10.1 Attention Cues (...)"
  ChapterDefaults defaults = {};              // --threads' default, the OpenMP wait policy
  std::function<void(CliArgs&)> options = {}; // declares the section's own options
  // After parsing, before the book's code: a run the options turn into something else
  // returns true from here, having done it (the book's code then does not run).
  std::function<bool()> instead = {};
  std::function<void()> after = {};           // after the book's code
};

// Registers the program's room (one per program, at start-up: `const RegisterSection room({...});`).
struct RegisterSection {
  explicit RegisterSection(SectionRoom room);
};

int run_section(const std::string& name, int argc, char** argv, const std::function<void()>& book);

// The options run_section declares for the registered room (its own, the exercises', the
// shared ones), unparsed: for a caller that runs the section's code without a command line
// (the browser's 10.2 panel: parse, apply_chapter_options, begin_run, the book's code).
CliArgs section_args(const std::string& name);

}  // namespace d2l
