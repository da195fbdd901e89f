// tools/programs/heatmap/heatmap_text.h — reading a heatmap's matrices from text, for
// build/tools/heatmap (main.cpp beside it) and its fuzz target: plain rows or a printed tensor.
#pragma once
#include <string>

#include "tools/d2l/figures/figures.h"

namespace d2l {

// Reads `text` (named `name` in errors) in either form:
//   plain text   one matrix row a line, values separated by whitespace or commas; a blank
//                line starts the next matrix, and the matrices become the grid's columns;
//                lines starting with '#' are comments.
//   a tensor     as printed by PyTorch or our core formatter, "tensor([[0.1, 0.2], ...])":
//                2-D is one matrix, 3-D (k, h, w) k columns, 4-D (rows, cols, h, w) the grid.
// A UTF-8 byte-order mark and "\r\n" or "\r" line ends are accepted (tools/d2l/data/text.h's
// normalize_text). Bad input throws std::runtime_error "NAME:LINE: ..." (empty input, no numbers, a word
// that is not a number, ragged rows, matrices of different shapes, unclosed or too deeply
// nested brackets).
HeatmapGrid parse_heatmap_text(const std::string& text, const std::string& name);

}  // namespace d2l
