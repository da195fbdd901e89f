// tools/d2l/figures/raster/canvas.h — the drawing layer under tools/d2l/figures/figures.h: an RGB image with anti-aliased
// rectangles, strokes, discs and text, saved as PNG (stb_image_write from Debian's libstb).
//
// The book draws its figures with matplotlib; we only need the handful of primitives its
// heatmaps and line plots use. Coordinates are pixels, x to the right and y downwards,
// with pixel (x, y) covering [x, x+1) × [y, y+1), so its centre is (x + 0.5, y + 0.5).
// Shapes are anti-aliased by coverage: each pixel blends by the fraction of it the shape
// covers, which is what makes 1-pixel spines and thin dashes look like matplotlib's.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace d2l {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
};
inline bool operator==(Rgb a, Rgb b) { return a.r == b.r && a.g == b.g && a.b == b.b; }
Rgb rgb_hex(const std::string& hex);  // "#1f77b4"; throws std::invalid_argument otherwise
std::string hex_str(Rgb c);           // "#1f77b4"

// A rectangle in pixels: [x0, x1) × [y0, y1), fractional edges allowed.
struct Box {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  float width() const { return x1 - x0; }
  float height() const { return y1 - y0; }
  float cx() const { return 0.5f * (x0 + x1); }
  float cy() const { return 0.5f * (y0 + y1); }
  bool empty() const { return x1 <= x0 || y1 <= y0; }
};

// Coverage in [0, 1] per pixel over a window [x0, x0+width) × [y0, y0+height) of the
// canvas. A polyline is stroked into one mask (taking the max where segments overlap) and
// composited once, so its joints are not darker than its segments; the window clips.
struct Mask {
  int x0 = 0, y0 = 0, width = 0, height = 0;
  std::vector<float> a;
  Mask() = default;
  Mask(int x0_, int y0_, int w, int h)
      : x0(x0_), y0(y0_), width(w), height(h), a(static_cast<size_t>(w) * h, 0.0f) {}
  Mask(const Box& clip);  // the pixels whose centres lie in `clip`
  float& at(int x, int y) { return a[static_cast<size_t>(y - y0) * width + (x - x0)]; }
  float at(int x, int y) const { return a[static_cast<size_t>(y - y0) * width + (x - x0)]; }
  bool contains(int x, int y) const { return x >= x0 && y >= y0 && x < x0 + width && y < y0 + height; }
};

// --- strokes into a mask -------------------------------------------------------------
enum class Cap { kRound, kButt };
// A straight stroke `width` pixels wide from (xa, ya) to (xb, yb). Round caps and joins
// for solid lines (matplotlib joins solid lines round); butt caps end each dash flat.
void stroke_segment(Mask& m, float xa, float ya, float xb, float yb, float width, Cap cap);
// A polyline; `dashes` alternates on and off lengths in pixels (empty = solid). The dash
// phase runs on across vertices, so a dashed curve looks evenly dashed.
void stroke_polyline(Mask& m, const std::vector<std::pair<float, float>>& points, float width,
                     const std::vector<float>& dashes);
// Exact-area coverage of an axis-aligned rectangle (added, saturating at 1).
void add_rect(Mask& m, const Box& b);

class Canvas {
 public:
  Canvas(int width, int height, Rgb background = {255, 255, 255});
  int width() const { return width_; }
  int height() const { return height_; }
  Rgb pixel(int x, int y) const;
  void set_pixel(int x, int y, Rgb c);
  const std::vector<uint8_t>& rgb() const { return rgb_; }

  void composite(const Mask& m, Rgb c, float alpha = 1.0f);       // blend c by coverage·alpha
  void fill_rect(const Box& b, Rgb c, float alpha = 1.0f);        // anti-aliased edges
  void frame_rect(const Box& b, float line_width, Rgb c);         // outline centred on b's edges
  // A disc, or with r_inner > 0 a ring (matplotlib's marker edge), clipped to `clip`.
  void disc(float cx, float cy, float radius, Rgb c, float alpha, const Box& clip, float r_inner = 0);
  // A filled rounded rectangle with an outline (the legend's frame).
  void rounded_rect(const Box& b, float radius, Rgb fill, float fill_alpha, Rgb edge, float edge_width);

  // Writes a PNG with write_figure_file (below).
  void save_png(const std::string& path, const char* op) const;

 private:
  int width_, height_;
  std::vector<uint8_t> rgb_;
};

// Writes a figure's bytes (PNG or SVG): creates missing parent directories (out/<chapter>/),
// then write_file_atomically (core/io/files.h): a unique `path`.tmp.XXXXXX first, renamed over
// `path`, so a failure never leaves a half-written image, and a target that is a link, FIFO
// or device is refused. Errors are std::runtime_error "[op] cannot write 'path': reason".
void write_figure_file(const std::string& path, const std::string& bytes, const char* op);

// --- text ------------------------------------------------------------------------------
// Text is DejaVu Sans, the font of the book's matplotlib figures, rendered with
// stb_truetype from Debian's fonts-dejavu-core. If that file is missing (or D2L_FONT names
// another font file, or "builtin"), text falls back to stb_easy_font's segment font, so
// figures and tests never depend on a font being installed. A font file is read only when it
// is a plain file, and its tables are checked against its size before stb_truetype (which
// trusts every offset) sees it: a truncated or damaged font, a FIFO, a device or a folder
// gets a warning naming it and the segment font.
bool set_font(const std::string& path);   // "" = the built-in font; false if unreadable
bool truetype_font_loaded();              // loads the default on first use
const char* kDefaultFontPath();           // /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf

// Sizes in pixels for text of em size `px`. ascent is the height of 'l' above the baseline,
// descent the depth of 'p' below it: the line box matplotlib aligns text by.
struct TextSize {
  float width = 0, ascent = 0, descent = 0;
  float height() const { return ascent + descent; }
};
TextSize measure_text(const std::string& utf8, float px);

enum class HAlign { kLeft, kCenter, kRight };
enum class VAlign { kTop, kCenter, kBaseline, kBottom };
// Draws `utf8` anchored at (x, y) by (ha, va) and returns the box it occupies. vertical
// text is turned 90° counter-clockwise (reads bottom to top, like a y label); then ha and
// va align the turned box.
Box draw_text(Canvas& c, const std::string& utf8, float px, float x, float y, HAlign ha, VAlign va,
              Rgb color = {0, 0, 0}, bool vertical = false);
// The box draw_text would occupy, without drawing (for layout).
Box text_box(const std::string& utf8, float px, float x, float y, HAlign ha, VAlign va, bool vertical = false);

}  // namespace d2l
