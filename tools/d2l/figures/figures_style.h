// tools/d2l/figures/figures_style.h — sizes shared by the heatmap and plot code (internal to tools/),
// matplotlib's defaults in points converted to pixels at the figure's dpi.
#pragma once
#include <string>
#include <utility>

namespace d2l {

struct FigureStyle {
  float pt;                    // pixels per point: dpi / 72
  float font, title_font, tick_font;
  float spine, tick_len, tick_width, tick_pad, label_pad, title_pad, border;
  FigureStyle(int dpi, float fontsize, float tick_fontsize)
      : pt(dpi / 72.0f),
        font(fontsize * pt),
        title_font(1.2f * fontsize * pt),  // axes.titlesize 'large'
        tick_font(tick_fontsize * pt),
        spine(0.8f * pt),                  // axes.linewidth
        tick_len(3.5f * pt),               // xtick.major.size
        tick_width(0.8f * pt),
        tick_pad(3.5f * pt),               // xtick.major.pad
        label_pad(4.0f * pt),              // axes.labelpad
        title_pad(6.0f * pt),              // axes.titlepad
        border(5.0f * pt) {}               // blank margin around the cropped figure
};

// matplotlib's tick space for nbins='auto': one tick per 3 font sizes along x, per 2 along
// y (Axis.get_tick_space), clipped to [1, 9].
int auto_nbins(float length_px, float font_px, bool x_axis);

// Checks figsize and dpi and returns the canvas size figsize × dpi in pixels.
std::pair<int, int> figure_pixels(std::pair<float, float> figsize, int dpi, float fontsize, const char* op);

}  // namespace d2l
