// tools/d2l/data/nmt_data.cpp — 9.5 机器翻译与数据集 (sec_machine_translation), see nmt_data.h.
#include "tools/d2l/data/nmt_data.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <utility>

#include "core/shape.h"  // check
#include "core/random.h"
#include "tools/d2l/data/text.h"

namespace d2l {

namespace {
const char* const kMakeData = "data/fra-eng/fra.txt";
const char* const kBundled = "chapters/data/fra-eng-small.txt";

bool file_exists(const std::string& path) { return static_cast<bool>(std::ifstream(path)); }

std::string candidates() {  // where data_root() looked, for a hint
  std::string tried;
  for (const std::string& d : data_root_candidates()) tried += (tried.empty() ? "" : ", ") + d;
  return tried;
}

// At most ~n bytes of s for an error message, never cutting a UTF-8 character in two.
std::string excerpt(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;  // continuation byte
  return s.substr(0, n) + "...";
}
}  // namespace

DataSource resolve_nmt_data(const std::string& cli_path, const std::string& root) {
  if (!cli_path.empty()) return {cli_path, cli_path + " (--data)"};
  const std::string made = (std::filesystem::path(root) / kMakeData).lexically_normal().string();
  if (file_exists(made)) return {made, made + " (the book's corpus, from `make data`)"};
  const std::string bundled = (std::filesystem::path(root) / kBundled).lexically_normal().string();
  return {bundled, bundled + " (small corpus bundled with the repo; `make data` fetches the book's)"};
}

std::string read_data_nmt(const std::string& path) {
  // The book opens the file with encoding='utf-8' in text mode, which turns "\r\n" into "\n"
  // but keeps a byte-order mark on the first English word; normalize_text drops both, so a
  // file saved by a Windows editor gives the same tokens as the original.
  std::string text = normalize_text(read_text_file(
      path, "read_data_nmt",
      "the bundled corpus is the repository's chapters/data/fra-eng-small.txt, which a program finds from any "
      "directory when it runs where it was built (else set D2L_ROOT to the repository: looked in " +
          candidates() + "); `make data` downloads the book's corpus into data/fra-eng/; or pass --data "
          "PATH/TO/fra.txt (english<TAB>french, one pair a line)"));
  // Python's open(..., encoding='utf-8').read() would fail on the first bad byte; we
  // say which line holds it.
  int64_t line = 1;
  for (size_t start = 0; start <= text.size(); ++line) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    validate_utf8(text.substr(start, end - start), path, line);
    start = end + 1;
  }
  return text;
}

std::string preprocess_nmt(const std::string& raw) {
  // Narrow no-break space (U+202F, fra.txt puts it before '!' and '?') and no-break
  // space (U+00A0) become plain spaces, so "Cours\u202f!" tokenises as "cours !".
  const std::string text =
      lower_utf8(replace_all(replace_all(raw, "\xE2\x80\xAF", " "), "\xC2\xA0", " "));
  // no_space(char, prev_char): insert ' ' before , . ! ? unless one is already there.
  // Working on bytes is exact: ASCII bytes occur in UTF-8 only as ASCII characters, so
  // "the previous byte is ' '" iff "the previous character is ' '".
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool punct = c == ',' || c == '.' || c == '!' || c == '?';
    if (i > 0 && punct && text[i - 1] != ' ') out += ' ';
    out += c;
  }
  return out;
}

TokenizedNmt tokenize_nmt(const std::string& text, int64_t num_examples, const std::string& file) {
  TokenizedNmt out;
  const std::vector<std::string> lines = split(text, '\n');
  int64_t i = 0;
  for (; i < static_cast<int64_t>(lines.size()); ++i) {
    // The book breaks when i > num_examples, not i >= num_examples: it looks at lines
    // 0..num_examples, so num_examples=600 keeps 601 pairs. We match it so that our
    // vocabularies and batches are the book's.
    if (num_examples > 0 && i > num_examples) break;
    const std::string& line = lines[static_cast<size_t>(i)];
    const std::vector<std::string> parts = split(line, '\t');
    // The book silently skips a line without a tab; a non-empty one is almost surely a
    // wrong file (or a wrong separator), so we stop and say where.
    check(parts.size() >= 2 || line.empty(), "tokenize_nmt", file, ":", i + 1,
          ": expected english<TAB>french, found no tab in \"", excerpt(line, 60), "\"");
    // Only lines with exactly two columns count, as in the book (len(parts) == 2).
    if (parts.size() == 2) {
      // The book would keep a side without a word as the one token '' (a file of tabs is a
      // corpus of empty sentences that trains without complaint); no real pair looks like that.
      for (int side = 0; side < 2; ++side)
        check(parts[side].find_first_not_of(' ') != std::string::npos, "tokenize_nmt", file, ":", i + 1,
              ": the ", side == 0 ? "english" : "french", " side of \"", excerpt(line, 60),
              "\" holds no word (english<TAB>french expected)");
      out.source.push_back(split(parts[0], ' '));
      out.target.push_back(split(parts[1], ' '));
    }
  }
  check(!out.source.empty(), "tokenize_nmt", file, ": empty corpus, no line of the form ",
        "english<TAB>french in lines 1..", i);
  return out;
}

std::vector<int64_t> truncate_pad(const std::vector<int64_t>& line, int64_t num_steps,
                                  int64_t padding_token) {
  check(num_steps >= 0, "truncate_pad", "num_steps must be >= 0, got ", num_steps);
  std::vector<int64_t> out(line.begin(), line.begin() + std::min<int64_t>(num_steps, line.size()));
  out.resize(static_cast<size_t>(num_steps), padding_token);  // pads only if it was shorter
  return out;
}

NmtArray build_array_nmt(const TokenLines& lines, const Vocab& vocab, int64_t num_steps) {
  check(num_steps >= 1, "build_array_nmt", "num_steps must be >= 1, got ", num_steps);
  const int64_t pad = vocab["<pad>"], eos = vocab["<eos>"];
  NmtArray out;
  out.num_steps = num_steps;
  out.array.reserve(lines.size() * static_cast<size_t>(num_steps));
  for (const auto& line : lines) {
    std::vector<int64_t> ids = vocab[line];
    ids.push_back(eos);  // '<eos>' before truncation: a long line loses its '<eos>'
    const std::vector<int64_t> row = truncate_pad(ids, num_steps, pad);
    int64_t valid = 0;
    for (int64_t id : row) valid += (id != pad);
    out.array.insert(out.array.end(), row.begin(), row.end());
    out.valid_len.push_back(valid);
  }
  return out;
}

NmtBatch NmtData::gather(const std::vector<int64_t>& order, int64_t begin, int64_t count) const {
  check(begin >= 0 && count >= 0 && begin + count <= static_cast<int64_t>(order.size()),
        "NmtData::gather", "rows [", begin, ", ", begin + count, ") outside an order of ",
        order.size());
  NmtBatch b;
  b.batch_size = count;
  b.num_steps = src.num_steps;
  const auto T = static_cast<size_t>(src.num_steps);
  for (int64_t k = begin; k < begin + count; ++k) {
    const int64_t r = order[static_cast<size_t>(k)];
    check(r >= 0 && r < src.rows(), "NmtData::gather", "row ", r, " outside [0, ", src.rows(), ")");
    const auto ru = static_cast<size_t>(r);
    b.X.insert(b.X.end(), src.array.begin() + ru * T, src.array.begin() + (ru + 1) * T);
    b.Y.insert(b.Y.end(), tgt.array.begin() + ru * T, tgt.array.begin() + (ru + 1) * T);
    b.X_valid_len.push_back(src.valid_len[ru]);
    b.Y_valid_len.push_back(tgt.valid_len[ru]);
  }
  return b;
}

std::vector<NmtBatch> NmtData::epoch_batches(const RandomInt& random_int) const {
  const RandomInt draw = random_int ? random_int : RandomInt(d2l::random_int);
  const int64_t n = src.rows();
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
  // Fisher–Yates: every permutation equally likely, one draw per position.
  for (int64_t i = n - 1; i > 0; --i) {
    const int64_t j = draw(i + 1);
    check(j >= 0 && j <= i, "NmtData::epoch_batches", "random_int(", i + 1, ") returned ", j);
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
  }
  std::vector<NmtBatch> batches;
  for (int64_t begin = 0; begin < n; begin += batch_size)
    batches.push_back(gather(order, begin, std::min(batch_size, n - begin)));
  return batches;
}

namespace {
std::function<std::string()>& default_path_in_run() {
  static std::function<std::string()> f;
  return f;
}
}  // namespace

void set_default_nmt_path(std::function<std::string()> default_path) { default_path_in_run() = std::move(default_path); }

NmtData load_data_nmt(int64_t batch_size, int64_t num_steps, int64_t num_examples,
                      const std::string& given_path) {
  check(batch_size >= 1, "load_data_nmt", "batch_size must be >= 1, got ", batch_size);
  check(num_steps >= 1, "load_data_nmt", "num_steps must be >= 1, got ", num_steps);
  const std::string path = !given_path.empty()        ? given_path
                           : default_path_in_run()    ? default_path_in_run()()
                                                      : resolve_nmt_data().path;
  const TokenizedNmt tok = tokenize_nmt(preprocess_nmt(read_data_nmt(path)), num_examples, path);
  const std::vector<std::string> reserved = {"<pad>", "<bos>", "<eos>"};
  NmtData data;
  data.src_vocab = Vocab(tok.source, 2, reserved);
  data.tgt_vocab = Vocab(tok.target, 2, reserved);
  data.src = build_array_nmt(tok.source, data.src_vocab, num_steps);
  data.tgt = build_array_nmt(tok.target, data.tgt_vocab, num_steps);
  data.batch_size = batch_size;
  data.path = path;
  return data;
}

}  // namespace d2l
