// tools/d2l/cli/source_trace.h — where in the source each banner and figure of a run comes from,
// for the companion pages (`make book`, tools/programs/book/pages.h).
//
// When the environment variable D2L_BOOK_TRACE names a file, print_banner, print_saved,
// write_figure and Animator::finish append one line to it per call, in the order they print:
//   banner<TAB>chapters/attention_cues.cpp<TAB>66<TAB>注意力的可视化 / Visualization of Attention
//   figure<TAB>chapters/attention_cues.cpp<TAB>71<TAB>out/attention_cues/attention_weights.png
// The file and line are the caller's, filled in by the compiler (__builtin_FILE and
// __builtin_LINE as default arguments), so the chapter programs' code is unchanged. The book
// matches the k-th banner of the printed output with the k-th banner line here. Unset (the
// default), nothing is written.
#pragma once
#include <string>

namespace d2l {

// kind: "banner" or "figure"; text: the heading or the figure's path (tabs and newlines in
// it become spaces). A file that cannot be opened is reported once on stderr; the program
// goes on.
void trace_source(const char* kind, const char* file, int line, const std::string& text);

}  // namespace d2l
