// tools/d2l/figures/raster/canvas_text.cpp — text for the figures: DejaVu Sans through stb_truetype, or
// stb_easy_font's segment font when no font file can be read (tools/d2l/figures/raster/canvas.h).
#include <stb/stb_easy_font.h>
#include <stb/stb_truetype.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <fstream>
#include <iterator>

#include "core/io/files.h"
#include "core/io/json.h"  // quote_input
#include "core/io/utf8.h"
#include "tools/d2l/figures/raster/canvas.h"

namespace d2l {

const char* kDefaultFontPath() { return "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"; }

namespace {

struct Font {
  bool chosen = false;        // a font (or the built-in one) has been picked
  bool truetype = false;
  std::vector<unsigned char> bytes;
  stbtt_fontinfo info{};
  float ascent_em = 0, descent_em = 0;   // 'l' height and 'p' depth, in em
  float line_ascent_em = 0, line_descent_em = 0;  // the font's own (taller) line box
};

Font& font() {
  static Font f;
  return f;
}

uint32_t be16(const std::vector<unsigned char>& b, size_t at) { return (uint32_t{b[at]} << 8) | b[at + 1]; }
uint32_t be32(const std::vector<unsigned char>& b, size_t at) { return (be16(b, at) << 16) | be16(b, at + 2); }

// stb_truetype trusts the file: every offset it follows is read without a bounds check, so a
// truncated or damaged font would make it read outside the bytes (a segfault in the first
// figure). The offsets it follows are checked here first against the file's size: the table
// directory, the tables it uses, the cmap's subtables, hmtx's metrics and loca's glyph
// offsets into glyf. Returns "" for a usable font, else what is wrong.
std::string font_problem(const std::vector<unsigned char>& b) {
  const uint64_t size = b.size();
  if (size < 12) return "it is " + std::to_string(size) + " bytes, shorter than a font's header";
  const uint32_t version = be32(b, 0);
  if (version != 0x00010000 && version != 0x74727565 /* 'true' */ && version != 0x4F54544F /* 'OTTO' */)
    return "it does not start as a TrueType or OpenType font";
  const uint32_t num_tables = be16(b, 4);
  if (12 + 16ull * num_tables > size) return "its table directory runs past the end of the file (truncated?)";
  struct Table { uint64_t offset = 0, length = 0; bool found = false; };
  auto table = [&](const char* tag) {
    Table t;
    for (uint32_t i = 0; i < num_tables; ++i) {
      const size_t at = 12 + 16 * size_t{i};
      if (std::memcmp(&b[at], tag, 4) == 0) t = {be32(b, at + 8), be32(b, at + 12), true};
    }
    return t;
  };
  for (uint32_t i = 0; i < num_tables; ++i) {
    const size_t at = 12 + 16 * size_t{i};
    if (uint64_t{be32(b, at + 8)} + be32(b, at + 12) > size)
      return "its table '" + std::string(reinterpret_cast<const char*>(&b[at]), 4) +
             "' runs past the end of the file (truncated?)";
  }
  for (const char* tag : {"cmap", "head", "hhea", "hmtx", "maxp"})
    if (!table(tag).found) return std::string("it has no '") + tag + "' table";
  const Table head = table("head"), hhea = table("hhea"), hmtx = table("hmtx"), maxp = table("maxp"), cmap = table("cmap");
  if (head.length < 54 || hhea.length < 36 || maxp.length < 6 || cmap.length < 4) return "a table is too short";
  const uint64_t num_glyphs = be16(b, maxp.offset + 4), num_metrics = be16(b, hhea.offset + 34);
  if (num_metrics == 0 || 4 * num_metrics > hmtx.length) return "its 'hmtx' table is shorter than 'hhea' says";
  const uint64_t subtables = be16(b, cmap.offset + 2);
  if (4 + 8 * subtables > cmap.length) return "its 'cmap' table is shorter than its subtable list";
  for (uint64_t i = 0; i < subtables; ++i) {
    const uint64_t sub = cmap.offset + be32(b, cmap.offset + 4 + 8 * i + 4);
    if (sub + 4 > cmap.offset + cmap.length) return "a 'cmap' subtable lies outside the table";
    const uint32_t format = be16(b, sub);
    const uint64_t length = format >= 8 ? (sub + 8 <= size ? be32(b, sub + 4) : size) : be16(b, sub + 2);
    if (sub + length > cmap.offset + cmap.length) return "a 'cmap' subtable runs past the end of the table";
  }
  const Table loca = table("loca"), glyf = table("glyf");
  if (glyf.found) {
    if (!loca.found) return "it has 'glyf' but no 'loca' table";
    const bool long_offsets = be16(b, head.offset + 50) != 0;
    const uint64_t entry = long_offsets ? 4 : 2;
    if (entry * (num_glyphs + 1) > loca.length) return "its 'loca' table is shorter than its glyph count";
    for (uint64_t g = 0; g <= num_glyphs; ++g) {
      const uint64_t at = loca.offset + entry * g;
      const uint64_t off = long_offsets ? be32(b, at) : 2 * uint64_t{be16(b, at)};
      if (off > glyf.length) return "a glyph's offset lies outside the 'glyf' table";
    }
  } else if (!table("CFF ").found) {
    return "it has neither 'glyf' nor 'CFF ' outlines";
  }
  return "";
}

// A font file is at most this big (DejaVu Sans: 0.7 MB; the largest CJK fonts: ~20 MB).
constexpr uint64_t kMaxFontBytes = uint64_t{64} << 20;

// Loads the font at `path`; returns "" or why it cannot be used.
std::string load_truetype(Font& f, const std::string& path) {
  std::vector<unsigned char> bytes;
  try {
    RegularFileReader in(path, "font");  // refuses a FIFO (without waiting), a device, a directory
    if (in.size() > kMaxFontBytes) return "it is larger than a font file (" + std::to_string(in.size() >> 20) + " MiB)";
    const std::string data = in.read(in.size(), "the font");
    bytes.assign(data.begin(), data.end());
  } catch (const std::runtime_error& e) {
    const std::string what = e.what(), prefix = "[font] " + path + ": ";
    return what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
  }
  if (std::string why = font_problem(bytes); !why.empty()) return why;
  stbtt_fontinfo info;
  const int offset = stbtt_GetFontOffsetForIndex(bytes.data(), 0);
  if (offset < 0) return "stb_truetype finds no font in it";
  f.bytes = std::move(bytes);  // stb_truetype keeps pointers into the bytes: init after the move
  if (!stbtt_InitFont(&info, f.bytes.data(), offset)) return "stb_truetype cannot read it";
  f.info = info;
  const float em = stbtt_ScaleForMappingEmToPixels(&f.info, 1.0f);
  int x0, y0, x1, y1, asc, desc, gap;
  stbtt_GetCodepointBox(&f.info, 'l', &x0, &y0, &x1, &y1);
  f.ascent_em = y1 * em;
  stbtt_GetCodepointBox(&f.info, 'p', &x0, &y0, &x1, &y1);
  f.descent_em = -y0 * em;
  stbtt_GetFontVMetrics(&f.info, &asc, &desc, &gap);
  f.line_ascent_em = asc * em;
  f.line_descent_em = -desc * em;
  return "";
}

// Picks the font at `path` ("" or "builtin": the segment font); returns why a named font
// cannot be used ("" when it can).
std::string choose_font(Font& f, const std::string& path) {
  f.chosen = true;
  f.truetype = false;
  if (path.empty() || path == "builtin") return "";
  std::string why = load_truetype(f, path);
  f.truetype = why.empty();
  return why;
}

Font& current_font() {
  Font& f = font();
  if (f.chosen) return f;
  const char* env = std::getenv("D2L_FONT");
  const std::string path = env ? env : kDefaultFontPath();
  if (const std::string why = choose_font(f, path); !why.empty())
    std::fprintf(stderr,
                 "warning: cannot use the font %s%s: %s; figures use the built-in segment font "
                 "(apt-get install fonts-dejavu-core, or set D2L_FONT to a .ttf file)\n",
                 quote_input(path, 200, '\'').c_str(), env ? " (D2L_FONT)" : "", quote_input(why, 300, '\0').c_str());
  return f;
}

// UTF-8 to code points; a malformed byte becomes U+FFFD rather than an error, since a
// figure label should never stop a training run.
std::vector<uint32_t> decode_utf8(const std::string& s) {
  std::vector<uint32_t> out;
  for (size_t i = 0, n; i < s.size(); i += n ? n : 1) {
    uint32_t cp;
    n = utf8_decode(s, i, &cp);
    out.push_back(n ? cp : 0xFFFD);
  }
  return out;
}

// --- the built-in font: stb_easy_font draws ASCII as unit squares on a grid ---------------
// Its glyphs are 7 units from cap top to baseline; DejaVu's cap height is 0.729 em, so one
// unit is 0.729/7 em and the two fonts' text comes out about the same size.
constexpr float kUnitEm = 0.729f / 7.0f;
constexpr float kEasyBaseline = 7.0f, kEasyAscent = 7.0f, kEasyDescent = 2.0f;  // in units

std::string easy_ascii(const std::string& s) {
  std::string out;
  for (uint32_t cp : decode_utf8(s)) out += cp == 0x2212 ? '-' : (cp >= 32 && cp < 127) ? static_cast<char>(cp) : '?';
  return out;
}

// A horizontal line of text as coverage, with the pen's start (ox) and baseline (by).
struct TextImage {
  Mask mask;
  int ox = 0, by = 0;
};

TextImage render_easy(const std::string& s, float px) {
  std::string ascii = easy_ascii(s);
  const float unit = kUnitEm * px;
  const int pad = 2;
  TextImage t;
  t.ox = pad;
  t.by = pad + static_cast<int>(std::ceil(kEasyAscent * unit + unit));
  const int w = static_cast<int>(std::ceil(stb_easy_font_width(&ascii[0]) * unit)) + 2 * pad;
  t.mask = Mask(0, 0, w, t.by + static_cast<int>(std::ceil((kEasyDescent + 2) * unit)) + pad);
  std::vector<char> verts(ascii.size() * 300 + 64);  // the header asks for ~270 bytes a glyph
  const int quads = stb_easy_font_print(0, 0, &ascii[0], nullptr, verts.data(), static_cast<int>(verts.size()));
  for (int q = 0; q < quads; ++q) {
    const float* v0 = reinterpret_cast<const float*>(&verts[q * 64]);       // top-left corner
    const float* v2 = reinterpret_cast<const float*>(&verts[q * 64 + 32]);  // bottom-right
    add_rect(t.mask, {t.ox + v0[0] * unit, t.by + (v0[1] - kEasyBaseline) * unit, t.ox + v2[0] * unit,
                      t.by + (v2[1] - kEasyBaseline) * unit});
  }
  return t;
}

// Pen positions of each glyph (advance widths plus kerning), and the total advance.
struct GlyphRun {
  std::vector<int> glyphs;
  std::vector<float> x;
  float width = 0;
};

GlyphRun layout_truetype(const Font& f, const std::string& s, float scale) {
  GlyphRun run;
  float pen = 0;
  int prev = 0;
  for (uint32_t cp : decode_utf8(s)) {
    int g = stbtt_FindGlyphIndex(&f.info, static_cast<int>(cp));
    if (g == 0) g = stbtt_FindGlyphIndex(&f.info, '?');
    if (prev) pen += scale * stbtt_GetGlyphKernAdvance(&f.info, prev, g);
    int advance, lsb;
    stbtt_GetGlyphHMetrics(&f.info, g, &advance, &lsb);
    run.glyphs.push_back(g);
    run.x.push_back(pen);
    pen += scale * advance;
    prev = g;
  }
  run.width = pen;
  return run;
}

TextImage render_truetype(const Font& f, const std::string& s, float px) {
  const float scale = stbtt_ScaleForMappingEmToPixels(&f.info, px);
  const GlyphRun run = layout_truetype(f, s, scale);
  const int pad = 2 + static_cast<int>(std::ceil(0.2f * px));  // glyphs may overhang their advance
  TextImage t;
  t.ox = pad;
  t.by = pad + static_cast<int>(std::ceil(f.line_ascent_em * px));
  t.mask = Mask(0, 0, static_cast<int>(std::ceil(run.width)) + 2 * pad,
                t.by + static_cast<int>(std::ceil(f.line_descent_em * px)) + pad);
  std::vector<unsigned char> bitmap;
  for (size_t i = 0; i < run.glyphs.size(); ++i) {
    const float pen = t.ox + run.x[i], shift = pen - std::floor(pen);  // sub-pixel pen position
    int x0, y0, x1, y1;
    stbtt_GetGlyphBitmapBoxSubpixel(&f.info, run.glyphs[i], scale, scale, shift, 0, &x0, &y0, &x1, &y1);
    const int gw = x1 - x0, gh = y1 - y0;
    if (gw <= 0 || gh <= 0) continue;  // a space
    bitmap.assign(static_cast<size_t>(gw) * gh, 0);
    stbtt_MakeGlyphBitmapSubpixel(&f.info, bitmap.data(), gw, gh, gw, scale, scale, shift, 0, run.glyphs[i]);
    for (int y = 0; y < gh; ++y)
      for (int x = 0; x < gw; ++x) {
        const int mx = static_cast<int>(std::floor(pen)) + x0 + x, my = t.by + y0 + y;
        if (!t.mask.contains(mx, my)) continue;
        float& a = t.mask.at(mx, my);
        a = std::min(1.0f, a + bitmap[static_cast<size_t>(y) * gw + x] / 255.0f);
      }
  }
  return t;
}

// Where a text of size `ts` anchored at (x, y) goes: its box, pen start and baseline.
struct Placement {
  Box box;
  int pen = 0, baseline = 0;  // horizontal: pen x and baseline y; vertical: baseline x, start y
};

Placement place(const TextSize& ts, float x, float y, HAlign ha, VAlign va, bool vertical) {
  const float w = vertical ? ts.height() : ts.width, h = vertical ? ts.width : ts.height();
  const float left = ha == HAlign::kLeft ? x : ha == HAlign::kCenter ? x - 0.5f * w : x - w;
  // Baseline alignment only means something for horizontal text; for turned text it is
  // the same as bottom (the string's start).
  const float top = va == VAlign::kTop      ? y
                    : va == VAlign::kCenter ? y - 0.5f * h
                    : va == VAlign::kBottom ? y - h
                    : vertical              ? y - h
                                            : y - ts.ascent;
  Placement p;
  p.pen = static_cast<int>(std::lround(vertical ? left + ts.ascent : left));
  p.baseline = static_cast<int>(std::lround(vertical ? top + ts.width : top + ts.ascent));
  p.box = vertical ? Box{p.pen - ts.ascent, p.baseline - ts.width, p.pen + ts.descent, static_cast<float>(p.baseline)}
                   : Box{static_cast<float>(p.pen), p.baseline - ts.ascent, p.pen + ts.width, p.baseline + ts.descent};
  return p;
}

}  // namespace

bool set_font(const std::string& path) {
  choose_font(font(), path);
  return font().truetype;
}

bool truetype_font_loaded() { return current_font().truetype; }

TextSize measure_text(const std::string& utf8, float px) {
  const Font& f = current_font();
  TextSize ts;
  if (f.truetype) {
    ts.width = layout_truetype(f, utf8, stbtt_ScaleForMappingEmToPixels(&f.info, px)).width;
    ts.ascent = f.ascent_em * px;
    ts.descent = f.descent_em * px;
  } else {
    std::string ascii = easy_ascii(utf8);
    const float unit = kUnitEm * px;
    ts.width = stb_easy_font_width(&ascii[0]) * unit;
    ts.ascent = kEasyAscent * unit;
    ts.descent = kEasyDescent * unit;
  }
  return ts;
}

Box text_box(const std::string& utf8, float px, float x, float y, HAlign ha, VAlign va, bool vertical) {
  return place(measure_text(utf8, px), x, y, ha, va, vertical).box;
}

Box draw_text(Canvas& c, const std::string& utf8, float px, float x, float y, HAlign ha, VAlign va, Rgb color,
              bool vertical) {
  const Font& f = current_font();
  const Placement p = place(measure_text(utf8, px), x, y, ha, va, vertical);
  TextImage t = f.truetype ? render_truetype(f, utf8, px) : render_easy(utf8, px);
  if (!vertical) {
    t.mask.x0 = p.pen - t.ox;
    t.mask.y0 = p.baseline - t.by;
    c.composite(t.mask, color);
    return p.box;
  }
  // Turn 90° counter-clockwise: text x (along the string) runs up from the start at
  // p.baseline, text y (down from the baseline) runs right from the baseline at p.pen.
  const Mask& m = t.mask;
  Mask r(p.pen - t.by, p.baseline + t.ox - m.width, m.height, m.width);
  for (int my = 0; my < m.height; ++my)
    for (int mx = 0; mx < m.width; ++mx) r.a[static_cast<size_t>(m.width - 1 - mx) * r.width + my] = m.at(mx, my);
  c.composite(r, color);
  return p.box;
}

}  // namespace d2l
