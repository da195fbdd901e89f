// tools/d2l/figures/animator.h — the book's d2l.Animator for a terminal: training progress as one
// updating line, and the curves as a PNG (or an SVG, for a path ending in .svg) at the end
// (through d2l::plot).
//
// The book's Animator redraws a matplotlib figure in the notebook after every add(). A
// terminal cannot show the figure, so while training we print
//   epoch 3/10, loss 0.512, 4567.8 tokens/sec, 12.3 s elapsed
// rewritten in place (\r) when stdout is a terminal, and as plain lines about every tenth of
// the run otherwise, so CI logs stay short. finish() writes the curves and prints the path.
//
//   d2l::Animator animator("epoch", {"loss"}, {10, num_epochs}, num_epochs, "out/seq2seq/loss.png");
//   animator.add(epoch + 1, {loss}, "4567.8 tokens/sec");
//   animator.finish();
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/d2l/figures/figures.h"

namespace d2l {

// The note printed once when a training metric is NaN or inf, e.g. "note: loss is nan at
// epoch 3; rerun with D2L_CHECK_NUMERICS=1 ...": a NaN is never hidden behind the last
// finite value, and the note says how to find the op that made it.
std::string non_finite_note(const std::string& what, double value, const std::string& where);
// A value for a progress or result line: "%.3f", but NaN always as "nan" (printf writes the
// sign of a NaN, and x86 arithmetic makes negative ones: "-nan").
std::string format_metric(double value);

class Animator {
 public:
  // legend names the series (one value each in add); xlim as the book's xlim=[1, num_epochs];
  // total_epochs is the N of "epoch i/N". ylabel, fmts, figsize, ... via options().
  Animator(std::string xlabel, std::vector<std::string> legend, std::pair<float, float> xlim, int64_t total_epochs,
           std::string path, std::optional<std::pair<float, float>> ylim = std::nullopt);
  ~Animator();  // ends an unfinished progress line; never throws
  Animator(const Animator&) = delete;
  Animator& operator=(const Animator&) = delete;

  PlotOptions& options() { return opt_; }
  // One point per series at x (epochs, possibly fractional as the NLI chapter's
  // epoch + (i + 1) / num_batches). std::nullopt means "no value this time", like the book's
  // None. A NaN or inf is a value: the progress line prints it ("loss nan") and the first one
  // adds a note on how to find the op that made it (D2L_CHECK_NUMERICS=1); the curve skips it.
  // `extra` is appended to the progress line, e.g. "4567.8 tokens/sec".
  void add(float x, const std::vector<std::optional<float>>& ys, const std::string& extra = "");
  // end_progress(), then draw(), then prints "saved <path>"; returns the path. The caller's
  // file and line go to the run's source trace (tools/d2l/cli/source_trace.h).
  std::string finish(const char* file = __builtin_FILE(), int line = __builtin_LINE());
  // The two halves of finish(), for a trainer that saves its model between them (so a
  // figure that cannot be written never costs the model): end_progress() prints the final
  // progress line (idempotent); draw() writes the PNG or SVG (temp file + rename) and may
  // throw.
  void end_progress();
  void draw();
  // A resumed run: the curves drawn before the stop, one series per legend entry (each
  // keeps its fmt and label from this Animator). Call before the first add().
  void restore(const std::vector<std::pair<std::vector<float>, std::vector<float>>>& xy);

  const std::vector<Series>& series() const { return series_; }
  std::string last_line() const { return last_line_; }
  bool noted_non_finite() const { return noted_non_finite_; }  // the note has been printed
  // Where progress goes and whether it is a terminal (default stdout and isatty); tests
  // pass a temporary file.
  void set_output(std::FILE* out, bool tty);

 private:
  std::string progress_line(float x, const std::string& extra) const;
  void show(const std::string& line, bool force);  // terminal: rewrite the line
  void emit_pending();                              // plain: print the waiting line
  void note_non_finite(float x, const std::vector<std::optional<float>>& ys);  // once per run

  PlotOptions opt_;
  int64_t total_;
  std::string path_;
  std::vector<Series> series_;
  std::FILE* out_;
  bool tty_;
  bool finished_ = false;
  bool progress_ended_ = false;
  bool noted_non_finite_ = false;  // the D2L_CHECK_NUMERICS note is printed once
  bool line_open_ = false;   // terminal: a \r line is on screen without its newline
  bool shown_ = false;       // terminal: the latest add() is on screen
  std::string pending_;      // plain: the latest line, printed when its tenth is complete
  float pending_x_ = 0;
  int tenth_ = -1;           // plain: the last tenth of the run printed
  std::string last_line_;
  std::chrono::steady_clock::time_point start_, last_print_;
};

}  // namespace d2l
