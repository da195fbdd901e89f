// tools/d2l/figures/animator.cpp — d2l.Animator as a progress line plus a PNG (tools/d2l/figures/animator.h).
#include "tools/d2l/figures/animator.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "core/shape.h"  // check
#include "tools/d2l/cli/source_trace.h"
#include "tools/d2l/figures/surface.h"

namespace d2l {

std::string format_metric(double value) {
  if (std::isnan(value)) return "nan";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", value);
  return buf;
}

std::string non_finite_note(const std::string& what, double value, const std::string& where) {
  return "note: " + what + " is " + format_metric(value) + " at " + where +
         "; rerun with D2L_CHECK_NUMERICS=1 to stop at the first op that makes a NaN or inf "
         "(it names the op, its input shapes and the layer)";
}

Animator::Animator(std::string xlabel, std::vector<std::string> legend, std::pair<float, float> xlim,
                   int64_t total_epochs, std::string path, std::optional<std::pair<float, float>> ylim)
    : total_(total_epochs),
      path_(std::move(path)),
      out_(stdout),
      tty_(isatty(fileno(stdout)) != 0),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_ - std::chrono::seconds(1)) {  // the first add() shows at once
  check(total_epochs > 0, "Animator", "total_epochs must be positive, got ", total_epochs);
  check(!path_.empty(), "Animator", "needs a file for the curves (.png, or .svg for an SVG)");
  figure_format(path_, "Animator");  // an unknown extension fails now, not after training
  opt_.xlabel = std::move(xlabel);
  opt_.xlim = xlim;
  opt_.ylim = ylim;
  for (auto& name : legend) {
    series_.emplace_back();
    series_.back().label = std::move(name);
  }
}

Animator::~Animator() {
  if (finished_ || progress_ended_) return;
  emit_pending();
  if (line_open_) std::fputc('\n', out_);
}

void Animator::set_output(std::FILE* out, bool tty) {
  out_ = out;
  tty_ = tty;
}

std::string Animator::progress_line(float x, const std::string& extra) const {
  char buf[64];
  if (std::fabs(x - std::round(x)) < 1e-6f) std::snprintf(buf, sizeof buf, "epoch %lld", static_cast<long long>(std::lround(x)));
  else std::snprintf(buf, sizeof buf, "epoch %.2f", static_cast<double>(x));
  std::string line = std::string(buf) + "/" + std::to_string(total_);
  for (size_t i = 0; i < series_.size(); ++i) {
    // The latest value of each series, even when this add() skipped it (NaN).
    const Series& s = series_[i];
    if (s.y.empty()) continue;
    std::string name = s.label;
    if (name.empty()) name = (opt_.ylabel.empty() ? "value" : opt_.ylabel) + (series_.size() > 1 ? " " + std::to_string(i) : "");
    line += ", " + name + " " + format_metric(s.y.back());
  }
  if (!extra.empty()) line += ", " + extra;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::snprintf(buf, sizeof buf, ", %.1f s elapsed", secs);
  return line + buf;
}

void Animator::show(const std::string& line, bool force) {
  // Rewrite the line in place at most ten times a second; \x1b[K clears what a longer
  // previous line left behind.
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_print_ < std::chrono::milliseconds(100)) {
    shown_ = false;
    return;
  }
  std::fprintf(out_, "\r%s\x1b[K", line.c_str());
  std::fflush(out_);
  line_open_ = true;
  last_print_ = now;
  shown_ = true;
}

void Animator::emit_pending() {
  if (pending_.empty()) return;
  std::fprintf(out_, "%s\n", pending_.c_str());
  std::fflush(out_);
  pending_.clear();
}

void Animator::add(float x, const std::vector<std::optional<float>>& ys, const std::string& extra) {
  check(!finished_ && !progress_ended_, "Animator::add", "called after finish() or end_progress()");
  check(std::isfinite(x), "Animator::add", "x must be finite, got ", x);
  if (series_.empty()) series_.resize(ys.size());  // no legend: the first add fixes the count
  check(ys.size() == series_.size() && !ys.empty(), "Animator::add", "got ", ys.size(), " values for ",
        series_.size(), " series (one per legend entry)");
  for (size_t i = 0; i < ys.size(); ++i)
    if (ys[i]) {
      series_[i].x.push_back(x);
      series_[i].y.push_back(*ys[i]);
    }
  last_line_ = progress_line(x, extra);
  if (tty_) {
    bool non_finite = false;  // the first NaN or inf is shown at once, not throttled away
    for (const auto& y : ys) non_finite = non_finite || (y && !std::isfinite(*y));
    show(last_line_, x >= total_ || (non_finite && !noted_non_finite_));
    note_non_finite(x, ys);
    return;
  }
  // Plain output: one line each time the run passes another tenth of total_epochs, from
  // the last add() at that x, so that several adds at one x (the NLI chapter's batch and
  // epoch metrics) print once and complete. Hence a line waits for the next add() or
  // finish().
  auto tenth = [this](float at) { return static_cast<int>(std::floor(10.0 * at / total_)); };
  if (!pending_.empty() && x != pending_x_ && tenth(pending_x_) > tenth_) {
    tenth_ = tenth(pending_x_);
    emit_pending();
  }
  pending_ = last_line_;
  pending_x_ = x;
  note_non_finite(x, ys);
}

void Animator::note_non_finite(float x, const std::vector<std::optional<float>>& ys) {
  for (size_t i = 0; i < ys.size() && !noted_non_finite_; ++i)
    if (ys[i] && !std::isfinite(*ys[i])) {
      noted_non_finite_ = true;
      const Series& s = series_[i];
      const std::string name = !s.label.empty() ? s.label : !opt_.ylabel.empty() ? opt_.ylabel : "a value";
      char at[32];
      std::snprintf(at, sizeof at, "%g", static_cast<double>(x));
      // On a line of its own: a terminal's \r line is ended first.
      if (line_open_) std::fputc('\n', out_);
      line_open_ = false;
      const std::string where = (opt_.xlabel.empty() ? std::string("x") : opt_.xlabel) + " " + at;
      std::fprintf(out_, "%s\n", non_finite_note(name, *ys[i], where).c_str());
      std::fflush(out_);
    }
}

void Animator::end_progress() {
  if (progress_ended_) return;
  if (tty_ && !shown_ && !last_line_.empty()) show(last_line_, true);
  emit_pending();  // plain output always ends with the final state
  if (line_open_) {
    std::fputc('\n', out_);
    line_open_ = false;
  }
  progress_ended_ = true;
}

void Animator::draw() {
  check(!opt_.fmts.empty(), "Animator::finish", "options().fmts is empty");
  std::vector<Series> curves = series_;
  for (size_t i = 0; i < curves.size(); ++i) curves[i].fmt = opt_.fmts[i % opt_.fmts.size()];
  check(std::any_of(curves.begin(), curves.end(), [](const Series& s) { return !s.x.empty(); }),
        "Animator::finish", "no points were added, nothing to draw for ", path_);
  plot(curves, opt_, path_);
}

std::string Animator::finish(const char* file, int line) {
  if (finished_) return path_;
  end_progress();
  draw();
  finished_ = true;
  std::fprintf(out_, "saved %s\n", path_.c_str());
  std::fflush(out_);
  if (out_ == stdout) trace_source("figure", file, line, path_);
  return path_;
}

void Animator::restore(const std::vector<std::pair<std::vector<float>, std::vector<float>>>& xy) {
  check(!finished_ && last_line_.empty(), "Animator::restore", "call it before the first add()");
  if (series_.empty()) series_.resize(xy.size());
  check(xy.size() == series_.size(), "Animator::restore", "got ", xy.size(), " curves for ", series_.size(), " series");
  for (size_t i = 0; i < xy.size(); ++i) {
    check(xy[i].first.size() == xy[i].second.size(), "Animator::restore", "curve ", i, " has ", xy[i].first.size(),
          " x and ", xy[i].second.size(), " y values");
    series_[i].x = xy[i].first;
    series_[i].y = xy[i].second;
  }
}

}  // namespace d2l
