// tools/programs/heatmap/main.cpp — build/tools/heatmap: any matrix a chapter prints, or weights saved
// with NumPy's np.save, as the book's heatmap (d2l.show_heatmaps, 10.1 sec_attention-cues)
// in a PNG or an SVG.
//
// Input, from a file or stdin ("-"): a NumPy .npy file (tools/d2l/figures/npy.h; recognised by
// its magic bytes, or by the name *.npy) in show_heatmaps' layout, 2-D to 4-D, or text in
// either of two forms (read by tools/programs/heatmap/heatmap_text.h):
//   plain text   one matrix row a line, values separated by whitespace or commas; a blank
//                line starts the next matrix, and the matrices become the grid's columns;
//                lines starting with '#' are comments.
//   a tensor     as printed by PyTorch or our core formatter, "tensor([[0.1, 0.2], ...])":
//                2-D is one matrix, 3-D (k, h, w) k columns, 4-D (rows, cols, h, w) the grid.
// Exit status: 0 on success, 2 for a usage error (with the usage text), 1 for anything else;
// errors go to stderr as "error: ..." naming the file and line.
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/io/files.h"
#include "core/io/standard_streams.h"
#include "tools/d2l/cli/cli_args.h"
#include "tools/d2l/figures/figures.h"
#include "tools/programs/heatmap/heatmap_text.h"
#include "tools/d2l/figures/npy.h"
#include "tools/d2l/figures/surface.h"
#include "tools/d2l/data/text.h"

namespace {

const char* kUsage =
    "usage: heatmap [options] FILE|-\n"
    "Draws the matrices in FILE (or stdin for -) as a heatmap PNG or SVG, like the book's d2l.show_heatmaps.\n"
    "  FILE is a NumPy .npy file (np.save; float32 or float64, 2-D (queries, keys), 3-D (cols, queries,\n"
    "  keys) or 4-D (rows, cols, queries, keys)), or text: plain rows (whitespace or comma separated;\n"
    "  a blank line starts the next matrix, which becomes the next column of the grid) or a printed\n"
    "  tensor: tensor([[...], ...]).\n"
    "options:\n"
    "  --xlabel TEXT        label under the bottom row (the book: Keys)\n"
    "  --ylabel TEXT        label left of the first column (the book: Queries)\n"
    "  --title TEXT         a column title; repeat once per column (Head 1, Head 2, ...)\n"
    "  --cmap NAME          Reds (default) or Blues\n"
    "  --format png|svg     the file format (default: by --out's extension, else png)\n"
    "  --out PATH           the file to write, .png or .svg (default out/heatmap.png or .svg)\n"
    "  --figsize W,H        inches, each in [0.01, 100] (default 2.5,2.5)\n"
    "  --dpi N              pixels per inch, in [10, 1200] (default 200)\n"
    "  --rows R             arrange the matrices in R rows, in [1, 100000] (default 1, or a 4-D\n"
    "                       tensor's rows)\n"
    "  --xticklabels WORDS  space-separated words for the columns of each matrix\n"
    "  --yticklabels WORDS  space-separated words for the rows of each matrix\n"
    "  --xnames WORDS       what each column (key) stands for, e.g. tokens, in an SVG's cell\n"
    "  --ynames WORDS       tooltips only (not drawn); default: the tick words. Each cell of an SVG\n"
    "                       carries a tooltip: title, query, key and weight ('Head 1: Queries 2\n"
    "                       'va', Keys 0 'go': 0.9213'), which a browser shows on hover.\n"
    "  --help               this text\n"
    "example: build/tools/heatmap --xlabel Keys --ylabel Queries --out out/eye.png weights.txt\n"
    "         build/tools/heatmap --xlabel Keys --ylabel Queries --format svg attention_weights.npy\n";

using d2l::UsageError;

// The input's bytes: through read_input_file, so a FIFO with no writer is refused within a
// second and /dev/zero after a bound, each naming the file. 128 MiB of matrices (32 million
// float32 values in a .npy) is far beyond what a figure can show.
constexpr uint64_t kMaxInputBytes = uint64_t{128} << 20;

std::string read_input(const std::string& path) {
  if (path == "-") {  // standard input, bounded as a named file is (< /dev/zero ends)
    std::string bytes;
    char buf[1 << 16];
    while (std::cin.read(buf, sizeof buf) || std::cin.gcount() > 0) {
      bytes.append(buf, static_cast<size_t>(std::cin.gcount()));
      if (bytes.size() > kMaxInputBytes)
        throw std::runtime_error("[heatmap] <stdin>: more than the " + std::to_string(kMaxInputBytes >> 20) +
                                 " MiB this reader accepts (an endless device such as /dev/zero?); refusing to read on");
    }
    return bytes;
  }
  if (::access(path.c_str(), R_OK) != 0) throw std::runtime_error("cannot open '" + path + "': " + std::strerror(errno));
  return d2l::read_input_file(path, "heatmap", kMaxInputBytes);
}

// The ranges show_heatmaps accepts (figure_pixels in tools/d2l/figures/figures.cpp), checked
// here already so a value is refused with the option's name before any work: a dpi of
// 4294967496 used to wrap around to 200 in a 32-bit int and draw at 200 dpi.
constexpr int64_t kMinDpi = 10, kMaxDpi = 1200, kMaxRows = 100000;
constexpr double kMinInches = 0.01, kMaxInches = 100;

// --out and --format together: the default out/heatmap.<format>, and a format that agrees
// with the file's extension (the figure code picks the format by extension).
std::string output_path(const std::string& out, const std::string& format) {
  if (!format.empty() && format != "png" && format != "svg")
    throw UsageError("--format must be png or svg, got '" + format + "'");
  if (out.empty()) return "out/heatmap." + (format.empty() ? std::string("png") : format);
  d2l::FigureFormat by_name;
  try {
    by_name = d2l::figure_format(out, "heatmap");
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--out: ") + e.what());
  }
  const std::string named = by_name == d2l::FigureFormat::kSvg ? "svg" : "png";
  if (!format.empty() && format != named)
    throw UsageError("--format " + format + " but --out '" + out + "' names a " + named + " file");
  return out;
}

bool ends_with_npy(const std::string& path) {
  if (path.size() < 4) return false;
  std::string ext = path.substr(path.size() - 4);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".npy";
}

// A *.npy file is read as NumPy's format (header first, so a wrong file fails before its
// data is read); other input is read whole and is .npy if it starts with NumPy's magic.
d2l::HeatmapGrid read_grid(const std::string& input) {
  const std::string name = input == "-" ? "<stdin>" : input;
  struct stat st;
  const bool regular = input != "-" && ::stat(input.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  if (regular && ends_with_npy(input)) {
    d2l::NpyArray a = d2l::read_npy_file(input);
    return d2l::heatmap_grid(a.shape, std::move(a.values), name);
  }
  const std::string bytes = read_input(input);
  if (!d2l::is_npy(bytes)) return d2l::parse_heatmap_text(bytes, name);
  std::istringstream in(bytes);
  d2l::NpyArray a = d2l::read_npy(in, name);
  return d2l::heatmap_grid(a.shape, std::move(a.values), name);
}

int run(int argc, char** argv) {
  d2l::HeatmapOptions opt;
  std::string out, format, input;
  int64_t rows = 0;
  bool have_input = false;
  for (int k = 1; k < argc; ++k) {
    std::string arg = argv[k], value;
    if (arg == "--help" || arg == "-h") { std::fputs(kUsage, stdout); return 0; }
    if (arg.rfind("--", 0) == 0) {
      const size_t eq = arg.find('=');
      if (eq != std::string::npos) value = arg.substr(eq + 1), arg = arg.substr(0, eq);
      else if (k + 1 < argc) value = argv[++k];
      else throw UsageError(arg + " needs a value");
      if (arg == "--xlabel") opt.xlabel = value;
      else if (arg == "--ylabel") opt.ylabel = value;
      else if (arg == "--title") opt.titles.push_back(value);
      else if (arg == "--cmap") opt.cmap = value;
      else if (arg == "--out") out = value;
      else if (arg == "--format") format = value;
      else if (arg == "--dpi") opt.dpi = static_cast<int>(d2l::parse_int_option("dpi", value, kMinDpi, kMaxDpi));
      else if (arg == "--rows") rows = d2l::parse_int_option("rows", value, 1, kMaxRows);
      else if (arg == "--xticklabels") opt.xticklabels = d2l::split(value);
      else if (arg == "--yticklabels") opt.yticklabels = d2l::split(value);
      else if (arg == "--xnames") opt.xnames = d2l::split(value);
      else if (arg == "--ynames") opt.ynames = d2l::split(value);
      else if (arg == "--figsize") {
        const size_t comma = value.find(',');
        if (comma == std::string::npos)
          throw UsageError("[--figsize] needs W,H in inches, e.g. 2.5,2.5; got '" + value + "'");
        opt.figsize = {static_cast<float>(d2l::parse_float_option("figsize", value.substr(0, comma), kMinInches, kMaxInches)),
                       static_cast<float>(d2l::parse_float_option("figsize", value.substr(comma + 1), kMinInches, kMaxInches))};
      } else {
        throw UsageError("unknown option " + arg);
      }
    } else if (!have_input) {
      input = arg;
      have_input = true;
    } else {
      throw UsageError("more than one input file: '" + input + "' and '" + arg + "'");
    }
  }
  if (!have_input) throw UsageError("no input file (use - for stdin)");
  out = output_path(out, format);
  if (input != "-" && d2l::same_file(out, input))
    throw UsageError("--out '" + out + "' is the input file itself: the figure would replace the data");

  d2l::HeatmapGrid grid = read_grid(input);
  if (rows > 0) {
    const int64_t total = grid.rows * grid.cols;
    if (total % rows != 0)
      throw UsageError("--rows " + std::to_string(rows) + " does not divide the " + std::to_string(total) + " matrices");
    grid.rows = rows;
    grid.cols = total / rows;
  }
  // Tooltip names beyond the matrices' columns or rows would be dropped without a word.
  if (static_cast<int64_t>(opt.xnames.size()) > grid.width || static_cast<int64_t>(opt.ynames.size()) > grid.height)
    throw UsageError("--xnames/--ynames: got " + std::to_string(opt.xnames.size()) + " x and " +
                     std::to_string(opt.ynames.size()) + " y names for matrices of " + std::to_string(grid.height) +
                     " rows and " + std::to_string(grid.width) + " columns (at most one per column and per row)");
  d2l::show_heatmaps(grid, opt, out);
  std::printf("saved %s (%lld x %lld grid of %lld x %lld matrices)\n", out.c_str(), static_cast<long long>(grid.rows),
              static_cast<long long>(grid.cols), static_cast<long long>(grid.height),
              static_cast<long long>(grid.width));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  d2l::check_standard_output_at_exit("heatmap");
  try {
    return run(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "error: %s\n%s", e.what(), kUsage);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
