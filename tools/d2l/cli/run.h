// tools/d2l/cli/run.h — what the library reads of a program's run: the parsed command line
// and the output directory. run_chapter and run_section (chapter.h, section.h) set them
// before the program's code runs; the library's training loops, data loaders and figure
// helpers read the options the run declared (--epochs, --save, --data, ...) instead of the
// section's code passing them on. Outside a run (the tests, the browser's engine) there are
// none: in_run() is false and every function keeps the book's behaviour.
#pragma once
#include <functional>
#include <string>

#include "tools/d2l/cli/cli_args.h"

namespace d2l {

bool in_run();
const CliArgs& run_args();                        // throws std::logic_error outside a run
const std::string& run_out();                     // --out, created; "." outside a run
std::string figure_path(const std::string& name); // run_out() + "/" + name

// Whether the run declared the option and it was given on the command line.
bool run_given(const std::string& option);

// The section's code (run_section's `book`): an exercise's run replays the book's cells
// before its training (tools/d2l/cli/seq2seq_run.h). Throws std::logic_error when none.
const std::function<void()>& run_book();
void set_run_book(std::function<void()> book);

// Set by run_chapter / run_section (and by tests that exercise the library as a run does).
void begin_run(const CliArgs& args, const std::string& out);
void end_run();

}  // namespace d2l
