// tools/d2l/data/snli_data.cpp — the SNLI readers and loaders of section 15.4
// (sec_natural-language-inference-and-dataset), see snli_data.h.
#include "tools/d2l/data/snli_data.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <iostream>
#include <numeric>

#include "core/shape.h"  // check
#include "core/io/files.h"
#include "core/random.h"
#include "tools/d2l/data/nmt_data.h"
#include "tools/d2l/data/text.h"

namespace d2l {
namespace fs = std::filesystem;

namespace {

constexpr const char* kOp = "read_snli";

// How a file spells the book's labels 0 entailment, 1 contradiction, 2 neutral, and a row
// without an annotator majority.
struct LabelSpelling {
  const char* names[3];
  const char* no_majority;
  const char* expected;  // for the error message
};
constexpr LabelSpelling kOfficialLabels{
    {"entailment", "contradiction", "neutral"}, "-", "entailment, contradiction, neutral or -"};
constexpr LabelSpelling kExportLabels{
    {"0", "2", "1"}, "-1", "0 (entailment), 1 (neutral), 2 (contradiction) or -1"};
constexpr const char* kHint = "run `make data` for SNLI 1.0, or pass --data DIR";

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// The book's extract_text: drop the binary parse's brackets, replace runs of two or more
// whitespace characters (re '\s{2,}') by one space, strip. "( ( A dog ) runs )" leaves
// "A dog runs": the parse's leaves are already tokenised, so nothing else is needed.
std::string extract_text(const std::string& s) {
  std::string no_brackets;
  for (char c : s)
    if (c != '(' && c != ')') no_brackets += c;
  std::string out;
  for (size_t i = 0; i < no_brackets.size();) {
    if (!is_space(no_brackets[i])) {
      out += no_brackets[i++];
      continue;
    }
    size_t j = i;
    while (j < no_brackets.size() && is_space(no_brackets[j])) ++j;
    out += j - i >= 2 ? ' ' : no_brackets[i];  // a single \s stays as it is, as in re.sub
    i = j;
  }
  const size_t b = out.find_first_not_of(" \t\n\r\f\v"), e = out.find_last_not_of(" \t\n\r\f\v");
  return b == std::string::npos ? std::string() : out.substr(b, e - b + 1);
}

// Splits a line of the export on tabs, undoing CSV quoting (the excel-tab dialect that
// pandas/csv write): a field that starts with '"' runs to the next lone '"', and '""'
// inside it stands for one '"'. A '"' inside an unquoted field is an ordinary character.
std::vector<std::string> split_quoted(const std::string& line, const std::string& file,
                                      int64_t lineno) {
  std::vector<std::string> fields;
  size_t i = 0;
  while (true) {
    std::string field;
    if (i < line.size() && line[i] == '"') {
      ++i;
      while (true) {
        check(i < line.size(), kOp, file, ":", lineno, ": unterminated quoted field ",
              fields.size() + 1, " (fields spanning lines are not supported)");
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        field += line[i++];
      }
      check(i == line.size() || line[i] == '\t', kOp, file, ":", lineno,
            ": text after the closing quote of field ", fields.size() + 1);
    } else {
      const size_t tab = line.find('\t', i);
      const size_t end = tab == std::string::npos ? line.size() : tab;
      field = line.substr(i, end - i);
      i = end;
    }
    fields.push_back(std::move(field));
    if (i == line.size()) return fields;
    ++i;  // the tab
  }
}

int64_t column(const std::vector<std::string>& header, const std::string& name) {
  const auto it = std::find(header.begin(), header.end(), name);
  return it == header.end() ? -1 : static_cast<int64_t>(it - header.begin());
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// The file of one split inside a data directory, in the order resolve_snli_data documents;
// "" when the directory holds none of the layouts.
std::string split_file(const fs::path& dir, bool is_train) {
  const char* layouts[][2] = {{"snli_1.0_train.txt", "snli_1.0_test.txt"},
                              {"train.tsv", "test.tsv"},
                              {"validation.tsv", "test.tsv"}};
  for (const auto& names : layouts)
    if (is_file(dir / names[0]) && is_file(dir / names[1]))
      return (dir / names[is_train ? 0 : 1]).string();
  return "";
}

// The length of the clitic ending `word` (n't 's 're 've 'll 'm 'd, any case), or 0. The
// clitic must follow something: "'s" alone is already a token.
size_t clitic_length(const std::string& word) {
  static const char* kClitics[] = {"n't", "'s", "'re", "'ve", "'ll", "'m", "'d"};
  std::string lower = word;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* clitic : kClitics) {
    const size_t n = std::char_traits<char>::length(clitic);
    if (lower.size() > n && lower.compare(lower.size() - n, n, clitic) == 0) return n;
  }
  return 0;
}

}  // namespace

// SNLI's sentences were tokenised by the Stanford parser before the binary parses were
// written, so the book's vocabulary has "airplane" and "." as two tokens. The export holds
// the raw sentences ("...broken down airplane."), and a plain split would make
// "airplane." and "airplane" different words, each rarer than min_freq. So, per
// whitespace-separated chunk, as the parser does for ordinary English:
//  - a chunk without any letter or digit ("...", "--", "''") is one token;
//  - leading  " ( [ {  and trailing  . , ! ? ; : " ' ) ] }  are split off, one token each,
//    except that a run of dots stays together ("wait..." -> "wait" "...");
//  - the clitics n't 's 're 've 'll 'm 'd become their own tokens, as in the parses:
//    "don't" -> "do" "n't", "man's" -> "man" "'s".
// Inner punctuation stays ("3.5", "corn-on-the-cob", "U.S" + "."). Case is kept, as the
// book keeps it. Already tokenised text comes back unchanged, so the bundled set (written
// tokenised) and the book's own sentences go through the same function.
std::string split_punctuation(const std::string& sentence) {
  static const std::string kLeading = "\"([{", kTrailing = ".,!?;:\"')]}";
  std::vector<std::string> out;
  const std::vector<std::string> chunks = tokenize_words({sentence})[0];
  for (const auto& chunk : chunks) {
    if (std::none_of(chunk.begin(), chunk.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)); })) {
      out.push_back(chunk);
      continue;
    }
    size_t b = 0, e = chunk.size();
    for (; kLeading.find(chunk[b]) != std::string::npos; ++b) out.push_back(chunk.substr(b, 1));
    // From the right, repeatedly: trailing punctuation, then a clitic, until neither is
    // left, so punctuation a clitic hid is split too ("boss\"'s" -> boss " 's, as the
    // parser does) and the result is a fixed point (tokenised text comes back unchanged).
    std::vector<std::string> tail;  // collected right to left
    for (size_t n = 1; n > 0;) {
      while (e > b && kTrailing.find(chunk[e - 1]) != std::string::npos) {
        size_t s = e - 1;
        if (chunk[s] == '.')
          while (s > b && chunk[s - 1] == '.') --s;
        tail.push_back(chunk.substr(s, e - s));
        e = s;
      }
      n = clitic_length(chunk.substr(b, e - b));
      if (n > 0) {
        tail.push_back(chunk.substr(e - n, n));
        e -= n;
      }
    }
    if (e > b) out.push_back(chunk.substr(b, e - b));
    out.insert(out.end(), tail.rbegin(), tail.rend());
  }
  std::string joined;
  for (const auto& t : out) joined += (joined.empty() ? "" : " ") + t;
  return joined;
}

std::vector<std::vector<std::string>> tokenize_words(const std::vector<std::string>& lines) {
  std::vector<std::vector<std::string>> tokens;
  tokens.reserve(lines.size());
  for (const auto& line : lines) tokens.push_back(split(line));
  return tokens;
}

SNLIData read_snli(const std::string& path_or_dir, bool is_train) {
  std::string file = path_or_dir;
  std::error_code ec;
  if (fs::is_directory(path_or_dir, ec)) {
    file = split_file(path_or_dir, is_train);
    check(!file.empty(), kOp, "'", path_or_dir,
          "' holds neither snli_1.0_train.txt + snli_1.0_test.txt",
          " nor train.tsv + test.tsv nor validation.tsv + test.tsv. HINT: ", kHint);
  }
  std::unique_ptr<std::istream> stream;  // a FIFO with no writer or /dev/zero is refused
  try {
    stream = open_input_stream(file, kOp, kMaxTextInputBytes);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(std::string(e.what()) + ". HINT: " + kHint);
  }
  std::istream& in = *stream;

  std::string line;
  int64_t lineno = 0;
  auto next_line = [&]() {
    if (!std::getline(in, line)) return false;
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // "\r\n" line ends
    validate_utf8(line, file, lineno);
    return true;
  };
  check(next_line(), kOp, file, ": empty file, expected a header row");
  strip_utf8_bom(line);  // a byte-order mark would hide the first column's name

  // Pick the format by the header row. The official file is never CSV-quoted (its
  // sentence1 column holds raw '"'), so only the export goes through split_quoted.
  std::vector<std::string> header = split(line, '\t');
  const bool official = column(header, "gold_label") >= 0;
  if (!official) header = split_quoted(line, file, lineno);
  const int64_t c_label = official ? column(header, "gold_label") : column(header, "label");
  const int64_t c_premise = column(header, official ? "sentence1_binary_parse" : "premise");
  const int64_t c_hypothesis = column(header, official ? "sentence2_binary_parse" : "hypothesis");
  check(c_label >= 0 && c_premise >= 0 && c_hypothesis >= 0, kOp, file,
        ":1: unknown header; expected the SNLI 1.0 columns gold_label, sentence1_binary_parse, ",
        "sentence2_binary_parse, ... or the export's premise<TAB>hypothesis<TAB>label");

  SNLIData data;
  int64_t dropped = 0;
  while (next_line()) {
    if (line.empty()) continue;  // a blank line (e.g. at the end) is not a row
    const std::vector<std::string> row =
        official ? split(line, '\t') : split_quoted(line, file, lineno);
    check(row.size() == header.size(), kOp, file, ":", lineno, ": expected ", header.size(),
          " tab-separated columns as in the header, got ", row.size());
    const std::string& label = row[static_cast<size_t>(c_label)];
    // The official file names the label (label_set = {'entailment': 0, 'contradiction': 1,
    // 'neutral': 2}); the export numbers 0 entailment, 1 neutral, 2 contradiction, so 1 and 2
    // swap to give the book's numbering. '-' (the export's -1) means the five annotators had
    // no majority, and the book drops such rows.
    const LabelSpelling& spelling = official ? kOfficialLabels : kExportLabels;
    int64_t y = -1;
    for (int64_t k = 0; k < 3; ++k)
      if (label == spelling.names[k]) y = k;
    check(y >= 0 || label == spelling.no_majority, kOp, file, ":", lineno, ": unknown ",
          official ? "gold_label" : "label", " '", label, "', expected ", spelling.expected);
    if (y < 0) {
      ++dropped;
      continue;
    }
    const std::string& p = row[static_cast<size_t>(c_premise)];
    const std::string& h = row[static_cast<size_t>(c_hypothesis)];
    data.premises.push_back(official ? extract_text(p) : split_punctuation(p));
    data.hypotheses.push_back(official ? extract_text(h) : split_punctuation(h));
    data.labels.push_back(y);
  }
  check(!in.bad(), kOp, "error while reading '", file, "'");
  check(!data.labels.empty(), kOp, file, ": no labelled examples (", lineno, " lines, ", dropped,
        " rows without a gold label)");
  return data;
}

SNLIDataset::SNLIDataset(const SNLIData& dataset, int64_t num_steps, const Vocab* vocab)
    : num_steps(num_steps) {
  const size_t n = dataset.labels.size();
  check(dataset.premises.size() == n && dataset.hypotheses.size() == n, "SNLIDataset", "premises (",
        dataset.premises.size(), "), hypotheses (", dataset.hypotheses.size(), ") and labels (", n,
        ") differ in length");
  check(num_steps > 0, "SNLIDataset", "num_steps must be positive, got ", num_steps);
  for (size_t i = 0; i < n; ++i)
    check(dataset.labels[i] >= 0 && dataset.labels[i] < 3, "SNLIDataset", "label ", i, " is ",
          dataset.labels[i], ", expected 0, 1 or 2");
  const auto all_premise_tokens = tokenize_words(dataset.premises);
  const auto all_hypothesis_tokens = tokenize_words(dataset.hypotheses);
  if (vocab == nullptr) {
    auto all_tokens = all_premise_tokens;
    all_tokens.insert(all_tokens.end(), all_hypothesis_tokens.begin(), all_hypothesis_tokens.end());
    this->vocab = Vocab(all_tokens, 5, {"<pad>"});
  } else {
    this->vocab = *vocab;
  }
  const int64_t pad = this->vocab["<pad>"];
  auto pad_all = [&](const std::vector<std::vector<std::string>>& lines,
                     std::vector<int64_t>& out) {
    out.reserve(lines.size() * static_cast<size_t>(num_steps));
    for (const auto& line : lines) {
      const std::vector<int64_t> row = truncate_pad(this->vocab[line], num_steps, pad);
      out.insert(out.end(), row.begin(), row.end());
    }
  };
  pad_all(all_premise_tokens, premises);
  pad_all(all_hypothesis_tokens, hypotheses);
  labels = dataset.labels;
  std::cout << "read " << size() << " examples" << std::endl;
}

SNLIDataLoader::SNLIDataLoader(std::shared_ptr<const SNLIDataset> dataset, int64_t batch_size,
                               bool shuffle, RandomInt random_int)
    : dataset_(std::move(dataset)),
      batch_size_(batch_size),
      shuffle_(shuffle),
      random_int_(random_int ? std::move(random_int) : RandomInt(d2l::random_int)) {
  check(dataset_ != nullptr, "SNLIDataLoader", "dataset is null");
  check(batch_size > 0, "SNLIDataLoader", "batch_size must be positive, got ", batch_size);
  order_.resize(static_cast<size_t>(dataset_->size()));
  std::iota(order_.begin(), order_.end(), int64_t{0});
}

void SNLIDataLoader::start_epoch() {
  if (!shuffle_) return;
  // A fresh permutation each epoch, as torch's RandomSampler draws randperm(n): start from
  // the identity so the order depends only on the generator's state. Fisher–Yates.
  std::iota(order_.begin(), order_.end(), int64_t{0});
  for (int64_t i = static_cast<int64_t>(order_.size()) - 1; i > 0; --i) {
    const int64_t j = random_int_(i + 1);
    check(j >= 0 && j <= i, "SNLIDataLoader", "random_int(", i + 1, ") returned ", j);
    std::swap(order_[static_cast<size_t>(i)], order_[static_cast<size_t>(j)]);
  }
}

int64_t SNLIDataLoader::num_batches() const {
  return (dataset_->size() + batch_size_ - 1) / batch_size_;
}

SNLIBatch SNLIDataLoader::batch(int64_t i) const {
  check(i >= 0 && i < num_batches(), "SNLIDataLoader::batch", "index ", i, " out of range [0, ",
        num_batches(), ")");
  const SNLIDataset& d = *dataset_;
  SNLIBatch b;
  b.num_steps = d.num_steps;
  const int64_t begin = i * batch_size_, end = std::min(begin + batch_size_, d.size());
  b.batch_size = end - begin;
  for (int64_t k = begin; k < end; ++k) {
    const int64_t e = order_[static_cast<size_t>(k)];
    const auto row = static_cast<size_t>(e * d.num_steps);
    b.premises.insert(b.premises.end(), d.premises.begin() + row,
                      d.premises.begin() + row + d.num_steps);
    b.hypotheses.insert(b.hypotheses.end(), d.hypotheses.begin() + row,
                        d.hypotheses.begin() + row + d.num_steps);
    b.labels.push_back(d.labels[static_cast<size_t>(e)]);
  }
  return b;
}

SNLISource resolve_snli_data(const std::string& cli_dir, const std::string& root) {
  // "SNLI export in DIR (--data): training on validation.tsv (...), testing on test.tsv"
  auto from_dir = [](const fs::path& where, const std::string& origin) {
    const fs::path dir = where.lexically_normal();
    const fs::path train = split_file(dir, true), test = split_file(dir, false);
    const std::string name = train.filename().string();
    std::string d = name == "snli_1.0_train.txt" ? "SNLI 1.0"
                    : name == "validation.tsv"   ? "SNLI export"
                                                 : "NLI set";
    d += " in " + dir.string() + " (" + origin + "): training on " + name;
    if (name == "validation.tsv")
      d += " (the SNLI dev split: the 550k-pair train split is not available offline)";
    return SNLISource{train.string(), test.string(),
                      d + ", testing on " + test.filename().string(), ""};
  };
  std::error_code ec;
  if (!cli_dir.empty()) {
    check(fs::is_directory(cli_dir, ec), "resolve_snli_data", "--data '", cli_dir,
          "' is not a directory");
    check(!split_file(cli_dir, true).empty(), "resolve_snli_data", "--data '", cli_dir,
          "' holds neither snli_1.0_train.txt + snli_1.0_test.txt nor train.tsv + test.tsv ",
          "nor validation.tsv + test.tsv");
    return from_dir(cli_dir, "--data");
  }
  const fs::path downloaded = fs::path(root) / "data" / "snli_1.0";
  if (is_file(downloaded / "snli_1.0_train.txt") && is_file(downloaded / "snli_1.0_test.txt")) {
    SNLISource source = from_dir(downloaded, "from `make data`");
    // The book's 15.5 starts the embedding from glove.6B.100d, which `make data` unpacks here.
    const fs::path glove = fs::path(root) / "data" / "glove.6B.100d" / "vec.txt";
    if (is_file(glove)) source.embeddings = glove.lexically_normal().string();
    return source;
  }
  const fs::path bundled = fs::path(root) / "chapters" / "data" / "snli-small";
  std::string tried;
  for (const std::string& d : data_root_candidates()) tried += (tried.empty() ? "" : ", ") + d;
  check(is_file(bundled / "train.tsv") && is_file(bundled / "test.tsv"), "resolve_snli_data",
        "no SNLI data: neither ", downloaded.string(), " nor ", bundled.string(),
        " found. HINT: the bundled set lives in the repository's chapters/data/; run the program from the "
        "repository or set D2L_ROOT to it (looked for chapters/data/ in: ", tried, "), or ", kHint);
  SNLISource source =
      from_dir(bundled, "the small set bundled with the repo; `make data` or --data DIR for SNLI");
  if (is_file(bundled / "vectors.txt"))
    source.embeddings = (bundled / "vectors.txt").lexically_normal().string();
  return source;
}

SNLILoaders load_data_snli(int64_t batch_size, int64_t num_steps, const SNLISource& source,
                           RandomInt random_int) {
  const SNLIData train_data = read_snli(source.train_path, true);
  const SNLIData test_data = read_snli(source.test_path, false);
  auto train_set = std::make_shared<const SNLIDataset>(train_data, num_steps);
  // The test split must use the training vocabulary: a model trained on the training
  // split knows no other tokens (the book's remark under load_data_snli).
  auto test_set = std::make_shared<const SNLIDataset>(test_data, num_steps, &train_set->vocab);
  return SNLILoaders{SNLIDataLoader(train_set, batch_size, true, std::move(random_int)),
                     SNLIDataLoader(test_set, batch_size, false), train_set->vocab};
}

}  // namespace d2l
