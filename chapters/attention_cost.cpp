// chapters/attention_cost.cpp — 10.7 Transformer (sec_transformer), exercises 4 and 5: what
// long inputs cost, and memory-efficient attention.
//
// Exercise 4 asks what self-attention costs as the sequence grows: its scores and weights
// are (no. of queries) x (no. of keys) per head, so time and memory grow as n². This program
// measures one MultiHeadAttention layer (10.5; batch 1, num_hiddens 512, 8 heads by default)
// and one EncoderBlock (10.7; FFN 2048), forward + backward of sum(output), at n = 64 ..
// 4096: the median time of --repeats runs, and the peak memory the run added to the
// process. Exercise 5 is the same layer with memory_efficient_attention (core/ops.h: the
// online softmax, block by block, the weights recomputed in the backward): same results, memory
// linear in n.
//
// Every measurement runs in a fresh process (this program started again with --one), so
// each peak is its own: the peak resident memory (getrusage) minus what the process held
// before the first forward. The plain and memory-efficient runs alternate, n by n. Each
// process runs the layer once untimed (first-touch page faults, the allocator's warm-up),
// then --repeats times and on while its runs add up to less than --min-seconds of CPU time
// (tens of runs at small n), and reports the median of the wall-clock times and of the CPU
// time its threads used (CLOCK_PROCESS_CPUTIME_ID). Idle OpenMP threads sleep (PASSIVE): a
// spinning thread would count as work and hold a core another thread needs. On a busy
// machine the wall-clock time grows with the other programs' share of the cores, the CPU
// time hardly does, so the figure draws CPU time; the program measures how much of the
// machine other programs used (/proc/stat) during each measurement (the "others" column)
// and the whole sweep, and says so when it was busy.
//   out/attention_cost/time.png     seconds against n, log-log, with an n² line
//   out/attention_cost/memory.png   MB against n, log-log, with n² and n lines
// --also PATH adds another build of this program (build-ref/chapters/attention_cost: the
// reference tier) for the sizes up to --also-max-n. tools/bench/attention_cost_torch.py
// measures PyTorch's plain attention (matmul, softmax, matmul) the same way and writes a
// CSV; --pytorch FILE.csv adds its rows to the table and its line to both figures.
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/autograd.h"
#include "core/kernels/list.h"  // tier_name
#include "core/io/files.h"
#include "core/io/json.h"  // quote_input
#include "core/ops.h"
#include "layers/exercises/multihead_attention.h"
#include "layers/transformer.h"
#include "tools/d2l/cli/chapter.h"
#include "tools/d2l/figures/figures.h"

using namespace d2l;

namespace {

double resident_mb() {  // the process's resident memory now (/proc/self/statm, in pages)
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1048576.0;
}

double peak_resident_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // kilobytes on Linux
}

struct Measurement {
  std::string tier, layer, impl;
  int64_t n = 0, runs = 0;
  double seconds = 0, cpu_seconds = 0, peak_mb = 0;  // seconds: wall clock; peak_mb: added
};

double cpu_now() {  // CPU time of all this process's threads
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

constexpr int64_t kMaxRepeats = 1000;  // --min-seconds' cap on the runs of one measurement

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// The whole machine's busy CPU seconds so far (/proc/stat's first line: user, nice, system,
// irq, softirq, steal), and this process's waited-for children's CPU seconds: their
// difference over the sweep is what other programs used.
double machine_busy_seconds() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  return static_cast<double>(user + nice + system + irq + softirq + steal) / static_cast<double>(sysconf(_SC_CLK_TCK));
}
double children_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// One measurement in this process: `layer` (attention or encoder) with `impl` (plain or
// efficient) at sequence length n; prints one "result ..." line for the parent to read.
void measure_one(const std::string& layer, const std::string& impl, int64_t n, int64_t num_hiddens,
                 int64_t num_heads, int64_t repeats, double min_seconds) {
  check(layer == "attention" || layer == "encoder", "attention_cost", "--one: layer is attention or encoder, got ",
        layer);
  check(impl == "plain" || impl == "efficient", "attention_cost", "--one: impl is plain or efficient, got ", impl);
  const int64_t d = num_hiddens;
  MultiHeadAttention mha(d, d, d, d, num_heads, 0.0f);
  EncoderBlock block(d, d, d, d, {d}, d, 4 * d, num_heads, 0.0f);
  std::optional<MemoryEfficientHeads> efficient_mha, efficient_block;  // while they live
  if (impl == "efficient") {
    efficient_mha.emplace(mha);
    efficient_block.emplace(block.attention);
  }
  const Tensor X = normal(0, 1, {1, n, d}).requires_grad_();
  const double before = resident_mb();
  std::vector<double> times, cpu_times;
  double cpu_total = 0;
  // r = -1: the untimed warm-up. Then --repeats runs, and more while they add up to less than
  // --min-seconds of CPU time: a run at small n takes milliseconds, and on a busy machine one
  // run in a few lands on cold caches after another program's turn on the core; over many
  // runs the median does not see them.
  for (int64_t r = -1; r < repeats || (cpu_total < min_seconds && r < kMaxRepeats); ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_now();
    const Tensor Y = layer == "attention" ? mha(X, X, X) : block(X, Tensor());
    sum(Y).backward();
    if (r < 0) continue;
    cpu_times.push_back(cpu_now() - c0);
    cpu_total += cpu_times.back();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::printf("result tier=%s layer=%s impl=%s n=%lld seconds=%.6f cpu=%.6f peak_mb=%.1f runs=%zu\n",
              kernels::tier_name(), layer.c_str(), impl.c_str(), static_cast<long long>(n), median(times),
              median(cpu_times), peak_resident_mb() - before, times.size());
}

// Runs `exe --one ...` and reads its result line. The child gets this run's limits too
// (--max-tensor-mb), so a measurement cannot take more memory than the run allows.
struct Settings {
  int64_t num_hiddens, num_heads, repeats, threads, max_tensor_mb;
  double min_seconds;
  std::string out;
};

// s for a POSIX shell, as one word: in single quotes, each ' written as '\''.
std::string shell_word(const std::string& s) {
  std::string w = "'";
  for (char c : s) w += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return w + "'";
}

Measurement run_child(const std::string& exe, const std::string& layer, const std::string& impl, int64_t n,
                      const Settings& set) {
  std::ostringstream cmd;
  cmd << "OMP_WAIT_POLICY=PASSIVE " << shell_word(exe) << " --one " << layer << ":" << impl << ":" << n
      << " --num-hiddens " << set.num_hiddens << " --num-heads " << set.num_heads << " --repeats " << set.repeats
      << " --min-seconds " << set.min_seconds << " --threads " << set.threads
      << " --max-tensor-mb " << set.max_tensor_mb << " --out " << shell_word(set.out);
  FILE* pipe = popen(cmd.str().c_str(), "r");
  check(pipe != nullptr, "attention_cost", "cannot run ", cmd.str());
  Measurement m;
  char line[512], tier[32] = "", lay[32] = "", imp[32] = "";
  long long nn = 0, runs = 0;
  bool found = false;
  while (std::fgets(line, sizeof line, pipe))
    if (std::sscanf(line, "result tier=%31s layer=%31s impl=%31s n=%lld seconds=%lf cpu=%lf peak_mb=%lf runs=%lld", tier,
                    lay, imp, &nn, &m.seconds, &m.cpu_seconds, &m.peak_mb, &runs) == 8)
      found = true;
  const int status = pclose(pipe);
  check(found && status == 0, "attention_cost", "the measurement `", cmd.str(), "` failed (status ", status,
        "; its error is above)");
  m.tier = tier;
  m.layer = lay;
  m.impl = imp;
  m.n = nn;
  m.runs = runs;
  return m;
}

std::vector<int64_t> parse_sizes(const std::string& text) {
  std::vector<int64_t> sizes;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    sizes.push_back(parse_int_option("sizes", item, 1, 1 << 20));
  check(!sizes.empty(), "attention_cost", "--sizes is empty");
  return sizes;
}

// PyTorch's plain attention as tools/bench/attention_cost_torch.py --csv writes it: the header
// line "n,threads,seconds,peak_mb", then one line per n (its best thread setting). Any other
// line is an error naming the file and the line.
std::vector<Measurement> read_pytorch_csv(const std::string& path) {
  // A FIFO nobody writes to, or /dev/zero, is refused (core/io/files.h) rather than waited on.
  std::istringstream in(read_input_file(path, "--pytorch", 1 << 20, /*text=*/true));
  const std::string header = "n,threads,seconds,peak_mb";
  std::vector<Measurement> rows;
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line_no == 1) {
      check(line == header, "attention_cost", "--pytorch ", path, " line 1: expected the header \"", header,
            "\", got ", quote_input(line));
      continue;
    }
    if (line.empty()) continue;
    long long n = 0, threads = 0;
    double seconds = 0, peak_mb = 0;
    char rest = 0;
    const int got = std::sscanf(line.c_str(), "%lld,%lld,%lf,%lf %c", &n, &threads, &seconds, &peak_mb, &rest);
    check(got == 4 && n > 0 && threads > 0 && std::isfinite(seconds) && seconds > 0 && std::isfinite(peak_mb),
          "attention_cost", "--pytorch ", path, " line ", line_no,
          ": expected n,threads,seconds,peak_mb (n, threads > 0 whole numbers, seconds > 0), got ", quote_input(line));
    Measurement m;
    m.tier = "pytorch";
    m.layer = "attention";
    m.impl = "plain";
    m.n = n;
    m.seconds = seconds;
    m.peak_mb = peak_mb;
    rows.push_back(m);
  }
  check(!rows.empty(), "attention_cost", "--pytorch ", path, ": no measurements after the header");
  return rows;
}

// A line of slope `power` on log-log axes (y proportional to n^power) through the last
// point of `through`, over the same n.
Series slope_line(const Series& through, float power, const std::string& fmt, const std::string& label) {
  Series s;
  s.x = through.x;
  for (float x : s.x) s.y.push_back(through.y.back() * std::pow(x / through.x.back(), power));
  s.fmt = fmt;
  s.label = label;
  return s;
}

void draw(const std::vector<Measurement>& all, const std::vector<int64_t>& sizes, bool memory,
          const std::string& path) {
  std::map<std::string, std::pair<std::vector<float>, std::vector<float>>> by_series;
  std::vector<std::string> order;
  for (const Measurement& m : all) {
    const std::string key = m.tier == "pytorch" ? "PyTorch attention plain (best threads, wall clock)"
                                                : m.layer + " " + m.impl + " (" + m.tier + ")";
    if (!by_series.count(key)) order.push_back(key);
    by_series[key].first.push_back(static_cast<float>(m.n));
    const double t = m.cpu_seconds > 0 ? m.cpu_seconds : m.seconds;  // PyTorch's CSV has wall clock only
    by_series[key].second.push_back(static_cast<float>(memory ? std::max(m.peak_mb, 0.1) : t));
  }
  const std::vector<std::string> fmts{"b-o", "r-o", "g--o", "m--o", "c-.", "y-.", "b:", "r:"};
  std::vector<Series> series;
  for (size_t i = 0, ours = 0; i < order.size(); ++i) {
    Series s;
    s.x = by_series[order[i]].first;
    s.y = by_series[order[i]].second;
    s.fmt = order[i].rfind("PyTorch", 0) == 0 ? "k-o" : fmts[ours++ % fmts.size()];
    s.label = order[i];
    series.push_back(s);
  }
  // The n² line through the plain attention layer's largest n; for memory also an n line
  // through the memory-efficient one's.
  for (const Series& s : std::vector<Series>(series))
    if (s.label.rfind("attention plain", 0) == 0) {
      series.push_back(slope_line(s, 2.0f, "k--", "slope 2 (n²)"));
      break;
    }
  if (memory)
    for (const Series& s : std::vector<Series>(series))
      if (s.label.rfind("attention efficient", 0) == 0) {
        series.push_back(slope_line(s, 1.0f, "k:", "slope 1 (n)"));
        break;
      }
  PlotOptions opt;
  opt.xlabel = "sequence length n";
  opt.ylabel = memory ? "peak memory (MB)" : "CPU seconds, all threads (forward + backward)";
  opt.xlog = opt.ylog = true;
  opt.xticks.assign(sizes.begin(), sizes.end());
  opt.figsize = {6.0f, 4.5f};
  opt.fontsize = 8;
  write_figure(path, [&] { plot(series, opt, path); });
}

}  // namespace

int main(int argc, char** argv) {
  CliArgs args("attention_cost",
               "10.7 Transformer, exercises 4 and 5: time and peak memory of one MultiHeadAttention layer and one "
               "EncoderBlock, forward + backward, against the sequence length, plain and memory-efficient "
               "attention; a table, out/attention_cost/time.png and memory.png (log-log).");
  args.add_string("sizes", "64,128,256,512,1024,2048,4096", "sequence lengths n, comma-separated", "N,N,...");
  args.add_choice("layer", {"both", "attention", "encoder"},
                  "attention (one MultiHeadAttention), encoder (one EncoderBlock) or both", "S");
  args.add_int("num-hiddens", 512, "model width d (the heads have d / num-heads each)", 1, 1 << 16);
  args.add_int("num-heads", 8, "attention heads", 1, 1024);
  args.add_int("repeats", 3, "forward+backward runs per measurement, at least (the median is reported)", 1, 1000);
  args.add_float("min-seconds", 0.3,
                 "more runs while a measurement's runs add up to less CPU time than this (small n: tens of runs)", 0,
                 100);
  args.add_string("also", "", "another build of this program (e.g. build-ref/chapters/attention_cost) to measure too",
                  "PATH");
  args.add_int("also-max-n", 1024, "the largest n measured with --also", 1, 1 << 20);
  args.add_string("pytorch", "",
                  "PyTorch's plain attention measured by tools/bench/attention_cost_torch.py --csv: drawn and "
                  "tabled beside ours", "FILE.csv");
  args.add_flag("quick", "n = 32, 64, d 64, 4 heads, one repeat: the test suite's smoke run");
  args.add_string("one", "", "measure LAYER:IMPL:N in this process and print one result line (used by the sweep)",
                  "L:I:N");
  return run_chapter(args, argc, argv, [&](const std::string& out) {
    const std::string one = args.get_string("one");
    if (!one.empty()) {
      const size_t a = one.find(':'), b = one.rfind(':');
      check(a != std::string::npos && b != a, "attention_cost", "--one takes LAYER:IMPL:N, got ", one);
      measure_one(one.substr(0, a), one.substr(a + 1, b - a - 1), parse_int_option("one", one.substr(b + 1), 1, 1 << 20),
                  args.get_int("num-hiddens"), args.get_int("num-heads"), args.get_int("repeats"),
                  args.get_float("min-seconds"));
      return;
    }
    const bool quick = args.get_flag("quick");
    const Settings child{quick ? 64 : args.get_int("num-hiddens"), quick ? 4 : args.get_int("num-heads"),
                         quick ? 1 : args.get_int("repeats"), args.get_int("threads"), args.get_int("max-tensor-mb"),
                         quick ? 0.0 : args.get_float("min-seconds"), out};
    const std::vector<int64_t> sizes = parse_sizes(quick ? "32,64" : args.get_string("sizes"));
    if (quick && args.given("sizes")) parse_sizes(args.get_string("sizes"));  // checked, though --quick replaces it
    // Read first, so that a malformed file stops the run before the long measurements.
    const std::vector<Measurement> pytorch =
        args.get_string("pytorch").empty() ? std::vector<Measurement>{} : read_pytorch_csv(args.get_string("pytorch"));
    const std::string which = args.get_string("layer");
    std::vector<std::string> layers;
    if (which != "encoder") layers.push_back("attention");
    if (which != "attention") layers.push_back("encoder");
    char self[4096] = {};
    check(readlink("/proc/self/exe", self, sizeof self - 1) > 0, "attention_cost", "cannot find this program's path");
    std::vector<std::string> exes{self};
    if (!args.get_string("also").empty()) exes.push_back(args.get_string("also"));
    char more[96] = "";
    if (child.min_seconds > 0)
      std::snprintf(more, sizeof more, " (more until they add up to %.2g CPU s)", child.min_seconds);
    std::printf("batch 1, num_hiddens %lld, %lld heads, forward + backward, median of at least %lld run%s%s after a "
                "warm-up; %lld threads, OMP_WAIT_POLICY=PASSIVE\n",
                static_cast<long long>(child.num_hiddens), static_cast<long long>(child.num_heads),
                static_cast<long long>(child.repeats), child.repeats == 1 ? "" : "s", more,
                static_cast<long long>(child.threads));
    std::printf("%-10s %-10s %-10s %6s %10s %10s %10s %5s %7s\n", "tier", "layer", "attention", "n", "seconds", "CPU s",
                "peak MB", "runs", "others");
    // What other programs used of the machine while a measurement ran, as a share of all
    // cores: all busy CPU time (/proc/stat) minus ours. The "others" column, per row.
    const double cores = static_cast<double>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
    struct Usage {
      double busy = machine_busy_seconds(), ours = children_cpu_seconds();
      std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
    };
    auto others_since = [&](const Usage& u) {
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - u.wall).count();
      // /proc/stat counts in clock ticks (10 ms): over a short measurement the share is coarse,
      // so it is kept within [0, 1].
      const double used = (machine_busy_seconds() - u.busy) - (children_cpu_seconds() - u.ours);
      return std::clamp(used / (wall * cores), 0.0, 1.0);
    };
    const Usage sweep;
    std::vector<Measurement> all;
    for (size_t e = 0; e < exes.size(); ++e)
      for (const std::string& layer : layers)
        for (int64_t n : sizes) {
          if (e > 0 && n > args.get_int("also-max-n")) continue;
          for (const std::string impl : {"plain", "efficient"}) {
            const Usage one;
            const Measurement m = run_child(exes[e], layer, impl, n, child);
            std::printf("%-10s %-10s %-10s %6lld %10.4f %10.4f %10.1f %5lld %6.0f%%\n", m.tier.c_str(), m.layer.c_str(),
                        m.impl.c_str(), static_cast<long long>(m.n), m.seconds, m.cpu_seconds, m.peak_mb,
                        static_cast<long long>(m.runs), 100 * others_since(one));
            std::fflush(stdout);
            all.push_back(m);
          }
        }
    // The seconds column is wall-clock time: a program that waits for a core waits in it. The
    // CPU seconds count only the time our threads ran, so another program's share of the
    // cores hardly moves them (with idle threads asleep and tens of runs at small n, the
    // medians of three sweeps beside two CPU-bound programs on 2 cores stayed within 10% of
    // three sweeps without them, at every n from 128 to 1024); the figure draws them.
    const double others = others_since(sweep);
    std::printf("other programs used %.0f%% of the %.0f cores during the sweep: %s\n", 100 * others, cores,
                others > 0.25 ? "the machine was busy, so the seconds (wall clock) are inflated; the CPU seconds "
                                "(the work, summed over threads) are not, and the figure draws them"
                              : "a quiet machine (the figure draws the CPU seconds, the work summed over threads)");
    // The ratios at the largest n of the first build: what exercise 5 is after.
    for (const std::string& layer : layers) {
      const Measurement *p = nullptr, *f = nullptr;
      for (const Measurement& m : all)
        if (m.layer == layer && m.n == sizes.back() && m.tier == all.front().tier) (m.impl == "plain" ? p : f) = &m;
      if (p && f)
        std::printf("%s at n = %lld: memory-efficient / plain: CPU time %.2fx, peak memory %.1fx smaller\n", layer.c_str(),
                    static_cast<long long>(sizes.back()), f->cpu_seconds / p->cpu_seconds,
                    p->peak_mb / std::max(f->peak_mb, 0.1));
    }
    for (const Measurement& m : pytorch) {
      std::printf("%-10s %-10s %-10s %6lld %10.4f %10s %10.1f\n", m.tier.c_str(), m.layer.c_str(), m.impl.c_str(),
                  static_cast<long long>(m.n), m.seconds, "-", m.peak_mb);
      all.push_back(m);
    }
    for (const Measurement& t : pytorch)
      for (const Measurement& m : all)
        if (m.tier == all.front().tier && m.layer == "attention" && m.n == t.n && t.n == sizes.back())
          std::printf("attention %s at n = %lld against PyTorch's plain attention: wall time %.2fx, peak memory %.2fx\n",
                      m.impl.c_str(), static_cast<long long>(m.n), m.seconds / t.seconds,
                      m.peak_mb / std::max(t.peak_mb, 0.1));
    draw(all, sizes, false, out + "/time.png");
    draw(all, sizes, true, out + "/memory.png");
  }, ChapterDefaults{/*threads=*/2});
}
