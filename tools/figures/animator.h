// tools/figures/animator.h — the book's d2l.Animator for a terminal: training progress as one
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

#include "tools/figures/figures.h"

namespace d2l {

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
  // epoch + (i + 1) / num_batches). NaN means "no value this time", like the book's None.
  // `extra` is appended to the progress line, e.g. "4567.8 tokens/sec".
  void add(float x, const std::vector<float>& ys, const std::string& extra = "");
  // Writes the figure (temp file + rename), prints "saved <path>" and returns the path.
  std::string finish();

  const std::vector<Series>& series() const { return series_; }
  std::string last_line() const { return last_line_; }
  // Where progress goes and whether it is a terminal (default stdout and isatty); tests
  // pass a temporary file.
  void set_output(std::FILE* out, bool tty);

 private:
  std::string progress_line(float x, const std::string& extra) const;
  void show(const std::string& line, bool force);  // terminal: rewrite the line
  void emit_pending();                              // plain: print the waiting line

  PlotOptions opt_;
  int64_t total_;
  std::string path_;
  std::vector<Series> series_;
  std::FILE* out_;
  bool tty_;
  bool finished_ = false;
  bool line_open_ = false;   // terminal: a \r line is on screen without its newline
  bool shown_ = false;       // terminal: the latest add() is on screen
  std::string pending_;      // plain: the latest line, printed when its tenth is complete
  float pending_x_ = 0;
  int tenth_ = -1;           // plain: the last tenth of the run printed
  std::string last_line_;
  std::chrono::steady_clock::time_point start_, last_print_;
};

}  // namespace d2l
