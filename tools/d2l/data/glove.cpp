// tools/d2l/data/glove.cpp — the book's TokenEmbedding (sec_synonyms), see glove.h.
#include "tools/d2l/data/glove.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <utility>

#include "core/shape.h"  // check
#include "core/io/files.h"
#include "core/io/json.h"  // quote_input
#include "core/io/utf8.h"
#include "tools/d2l/data/text.h"

namespace d2l {

namespace {

// glove.840B.300d, the largest of GloVe's tables, is 5.6 GB.
constexpr uint64_t kMaxEmbeddingBytes = uint64_t{8} << 30;

constexpr const char* kOp = "TokenEmbedding";

bool is_uint(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

TokenEmbedding::TokenEmbedding(const std::string& path) {
  // open_input_stream: a FIFO with no writer or /dev/zero is refused, naming the file.
  std::unique_ptr<std::istream> stream;
  try {
    stream = open_input_stream(path, kOp, kMaxEmbeddingBytes);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(std::string(e.what()) +
                             ". HINT: `make data` fetches the book's glove.6B.100d.zip; --embeddings FILE takes any "
                             "GloVe text file (word v1 ... vd per line)");
  }
  std::istream& in = *stream;
  // Row 0 is '<unk>'; its zero vector is filled in once dim_ is known.
  idx_to_token.push_back("<unk>");
  std::string line;
  std::vector<std::pair<size_t, size_t>> fields;  // [begin, end) of each value on the line
  int64_t lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    // A byte-order mark (Windows editors write one) would stick to the first word: drop it
    // from the start of every line up to the first vector. That is the start of the file, and
    // also the first vector line after a fastText "count dim" header or blank lines: a header
    // prepended to a GloVe file saved with a mark (`cat header.txt glove.txt`) puts the mark
    // there, and the user means the word "the", not an invisible character before it. Later
    // lines keep the bytes: U+FEFF inside a vocabulary is a character like any other, and the
    // book's reader keeps it too.
    if (idx_to_token.size() == 1) strip_utf8_bom(line);
    // The book's line.rstrip().split(' '): trailing spaces, '\r' and '\n' go, and single
    // spaces separate the fields (two spaces in a row make an empty, non-numeric field).
    const size_t end = line.find_last_not_of(" \t\r\n\f\v");
    if (end == std::string::npos) continue;  // a blank line
    line.resize(end + 1);
    // A '\r' left inside the line is a lone carriage return (old Mac line ends): it would
    // glue two lines into one word or value.
    check(line.find('\r') == std::string::npos, kOp, path, ":", lineno,
          ": a carriage return inside the line (save the file with \\n or \\r\\n line ends)");
    // Fields are parsed in place: a 400k-line glove.6B file has 40M values, and a string
    // per field would cost more than the parsing.
    const size_t token_end = line.find(' ');
    const std::string token = line.substr(0, token_end);
    // A token is text: bytes that are not UTF-8 would reach the figures' labels and messages.
    check(first_invalid_utf8(token) < 0, kOp, path, ":", lineno, ": the token ", quote_input(token, 40, '\''),
          " is not valid UTF-8 (byte ", first_invalid_utf8(token), "); a GloVe file is UTF-8 text");
    for (unsigned char c : token)
      check(c >= 0x20 && c != 0x7F, kOp, path, ":", lineno, ": the token ", quote_input(token, 40, '\''),
            " holds a control character; a GloVe file is text");
    fields.clear();
    for (size_t i = token_end; i != std::string::npos;) {
      const size_t sp = line.find(' ', i + 1);
      fields.emplace_back(i + 1, sp == std::string::npos ? line.size() : sp);
      i = sp;
    }
    const int64_t d = static_cast<int64_t>(fields.size());
    auto field = [&](int64_t k) {
      return line.substr(fields[k].first, fields[k].second - fields[k].first);
    };
    // fastText's .vec files open with "count dim"; the book skips every line with fewer
    // than two values, which would also hide a truncated line, so we skip only this one.
    if (lineno == 1 && d == 1 && is_uint(token) && is_uint(field(0))) continue;
    check(d >= 1, kOp, path, ":", lineno, ": token ", quote_input(token, 40, '\''), " has no vector");
    if (dim_ == 0) {
      dim_ = d;
      idx_to_vec.assign(static_cast<size_t>(dim_), 0.0f);
    }
    check(d == dim_, kOp, path, ":", lineno, ": token ", quote_input(token, 40, '\''), " has ", d,
          " values, but the first vector has ", dim_);
    for (int64_t k = 0; k < d; ++k) {
      const char* b = line.data() + fields[k].first;
      const char* e = line.data() + fields[k].second;
      float v = 0.0f;
      const auto r = std::from_chars(b, e, v);
      check(r.ec == std::errc() && r.ptr == e && std::isfinite(v), kOp, path, ":", lineno,
            ": value ", k + 1, " of token ", quote_input(token, 40, '\''), " is not a finite number: ",
            quote_input(field(k), 40, '\''));
      idx_to_vec.push_back(v);
    }
    idx_to_token.push_back(token);
  }
  check(!in.bad(), kOp, "error while reading '", path, "'");
  check(dim_ > 0, kOp, path, ": no vectors (", lineno, " lines)");
  // The book's {token: idx for idx, token in enumerate(idx_to_token)}: if a token is
  // listed twice, the later index wins.
  token_to_idx.reserve(idx_to_token.size());
  for (int64_t i = 0; i < size(); ++i) token_to_idx[idx_to_token[static_cast<size_t>(i)]] = i;
}

std::vector<float> TokenEmbedding::lookup(const std::vector<std::string>& tokens) const {
  std::vector<float> vecs;
  vecs.reserve(tokens.size() * static_cast<size_t>(dim_));
  for (const auto& token : tokens) {
    const auto it = token_to_idx.find(token);
    const int64_t idx = it == token_to_idx.end() ? unknown_idx : it->second;
    const auto row = idx_to_vec.begin() + idx * dim_;
    vecs.insert(vecs.end(), row, row + dim_);
  }
  return vecs;
}

}  // namespace d2l
