// tests/test_tools_nmt_data.cpp — the fra-eng pipeline of 9.5 (sec_machine_translation), Vocab
// (sec_text_preprocessing) and bleu (sec_seq2seq). Expected values are hand-computed or
// come from a separate Python re-implementation of the book's code run on the same file.
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include "core/random.h"
#include "tests/test_util.h"
#include "tools/d2l/data/bleu.h"
#include "tools/d2l/data/nmt_data.h"
#include "tools/d2l/data/text.h"
#include "tools/d2l/data/vocab.h"

namespace fs = std::filesystem;
using d2l_test::message_has;

namespace utf = boost::unit_test;
namespace tt = boost::test_tools;
using d2l::TokenLines;

namespace {

using d2l_test::kBundledFra;
using d2l_test::kFixtureRoot;
using d2l_test::kMadeFra;
using d2l_test::kRealFra;

// A file in the temp directory holding `text`, removed when the test ends.
struct TempFile {
  d2l_test::TempDir dir{"nmt"};
  std::string path;
  explicit TempFile(const std::string& text, const std::string& name = "fra") : path(dir.write(name + ".txt", text)) {}
};

tt::assertion_result real_fra_present(utf::test_unit_id) { return d2l_test::file_present(kRealFra); }
tt::assertion_result made_fra_present(utf::test_unit_id) { return d2l_test::file_present(kMadeFra); }

std::vector<int64_t> row(const d2l::NmtArray& a, int64_t r) {
  return {a.array.begin() + r * a.num_steps, a.array.begin() + (r + 1) * a.num_steps};
}

// FNV-1a 64: a fingerprint of a whole preprocessed file, to compare with Python's.
uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tools_nmt_data)

BOOST_AUTO_TEST_CASE(book_first_lines) {
  // The first lines of fra.txt, with the narrow no-break space (U+202F) before '!'.
  const std::string raw = "Go.\tVa !\nHi.\tSalut !\nRun!\tCours\u202f!\n";
  const std::string text = d2l::preprocess_nmt(raw);
  BOOST_TEST(text == "go .\tva !\nhi .\tsalut !\nrun !\tcours !\n");
  const auto tok = d2l::tokenize_nmt(text);
  BOOST_TEST((tok.source == TokenLines{{"go", "."}, {"hi", "."}, {"run", "!"}}));
  BOOST_TEST((tok.target == TokenLines{{"va", "!"}, {"salut", "!"}, {"cours", "!"}}));
}

BOOST_AUTO_TEST_CASE(preprocess_spaces_and_case) {
  BOOST_TEST(d2l::preprocess_nmt("Ça alors\u202f!") == "ça alors !");  // U+202F -> ' '
  BOOST_TEST(d2l::preprocess_nmt("A\u00a0B") == "a b");                 // U+00A0 -> ' '
  BOOST_TEST(d2l::preprocess_nmt("Wow!?") == "wow ! ?");  // each mark after a non-space
  BOOST_TEST(d2l::preprocess_nmt("a ,b") == "a ,b");      // already spaced: unchanged
  BOOST_TEST(d2l::preprocess_nmt(".a") == ".a");          // i = 0 never gets a space
  BOOST_TEST(d2l::preprocess_nmt("3.5") == "3 .5");       // the book's rule, literally
  BOOST_TEST(d2l::preprocess_nmt("é.") == "é .");         // after a 2-byte character
  // Python's str.lower lowers non-ASCII capitals too (values from python3).
  BOOST_TEST(d2l::lower_utf8("ÉCOLE À ÇA ÊTRE Ô ŒUVRE Ÿ ĹĽ Ž") == "école à ça être ô œuvre ÿ ĺľ ž");
  BOOST_TEST(d2l::lower_utf8("× ß ĸ ŉ ſ") == "× ß ĸ ŉ ſ");  // no lowercase mapping
  BOOST_TEST(d2l::lower_utf8("İ") == "i\u0307");          // one code point becomes two
  BOOST_TEST(d2l::lower_utf8("ЁЖИК") == "ёжик");
}

BOOST_AUTO_TEST_CASE(split_like_python) {
  BOOST_TEST((d2l::split("a  b", ' ') == std::vector<std::string>{"a", "", "b"}));
  BOOST_TEST((d2l::split("", ' ') == std::vector<std::string>{""}));
  BOOST_TEST((d2l::split("x\t", '\t') == std::vector<std::string>{"x", ""}));
}

BOOST_AUTO_TEST_CASE(vocab_order_min_freq_reserved) {
  // counts b:1 a:2 c:2 d:1 e:1, first seen b, a, c, d, e.
  const TokenLines tokens = {{"b", "a", "c"}, {"a", "c", "d"}, {"e"}};
  const d2l::Vocab all(tokens, 0, {"<pad>", "<bos>"});
  BOOST_TEST((all.idx_to_token() ==
              std::vector<std::string>{"<unk>", "<pad>", "<bos>", "a", "c", "b", "d", "e"}));
  BOOST_TEST(all.size() == 8);
  BOOST_TEST(all["c"] == 4);
  BOOST_TEST(all["zzz"] == 0);
  BOOST_TEST(all.unk() == 0);
  BOOST_TEST((all[std::vector<std::string>{"e", "?", "a"}] == std::vector<int64_t>{7, 0, 3}));
  BOOST_TEST((all.to_tokens(std::vector<int64_t>{3, 5}) == std::vector<std::string>{"a", "b"}));
  // token_row: predict_snli's torch.tensor(vocab[tokens]).reshape((1, -1)).
  const d2l::Tensor row = d2l::token_row(all, {"e", "?", "a"});
  BOOST_TEST((row.shape() == d2l::Shape{1, 3}));
  BOOST_TEST((row.to_vector() == std::vector<float>{7, 0, 3}));
  BOOST_TEST(all.token_freqs().front().first == "a");
  BOOST_TEST(all.token_freqs().back().second == 1);

  const d2l::Vocab cut(tokens, 2, {"<pad>"});  // b, d, e occur once: cut, mapped to <unk>
  BOOST_TEST((cut.idx_to_token() == std::vector<std::string>{"<unk>", "<pad>", "a", "c"}));
  BOOST_TEST(cut["b"] == 0);

  // A reserved token met in the corpus keeps its reserved index and is not added twice.
  const d2l::Vocab res(TokenLines{{"x", "<eos>", "<eos>"}}, 0, {"<eos>"});
  BOOST_TEST((res.idx_to_token() == std::vector<std::string>{"<unk>", "<eos>", "x"}));

  BOOST_CHECK_EXCEPTION(d2l::Vocab(tokens, 0, {"<pad>", "<pad>"}), std::invalid_argument,
                        message_has({"[Vocab]", "<pad>"}));
  BOOST_CHECK_EXCEPTION(all.to_tokens(int64_t{8}), std::invalid_argument,
                        message_has({"[Vocab::to_tokens]", "8"}));
}

BOOST_AUTO_TEST_CASE(truncate_pad_cases) {
  BOOST_TEST((d2l::truncate_pad({5, 6, 7}, 5, 1) == std::vector<int64_t>{5, 6, 7, 1, 1}));
  BOOST_TEST((d2l::truncate_pad({5, 6, 7}, 2, 1) == std::vector<int64_t>{5, 6}));
  BOOST_TEST((d2l::truncate_pad({5, 6, 7}, 3, 1) == std::vector<int64_t>{5, 6, 7}));
}

BOOST_AUTO_TEST_CASE(build_array_valid_len) {
  const TokenLines lines = {{"a", "b"}, {"a", "b", "c", "d", "e"}, {}};
  const d2l::Vocab v(lines, 0, {"<pad>", "<bos>", "<eos>"});  // <unk>=0 pad=1 bos=2 eos=3 a=4 b=5
  const d2l::NmtArray arr = d2l::build_array_nmt(lines, v, 4);
  BOOST_TEST(arr.rows() == 3);
  BOOST_TEST((row(arr, 0) == std::vector<int64_t>{4, 5, 3, 1}));  // a b <eos> <pad>
  BOOST_TEST((row(arr, 1) == std::vector<int64_t>{4, 5, 6, 7}));  // truncated: <eos> lost
  BOOST_TEST((row(arr, 2) == std::vector<int64_t>{3, 1, 1, 1}));
  BOOST_TEST((arr.valid_len == std::vector<int64_t>{3, 4, 1}));
  BOOST_CHECK_EXCEPTION(d2l::build_array_nmt(lines, v, 0), std::invalid_argument,
                        message_has({"[build_array_nmt]", "num_steps", "0"}));
}

BOOST_AUTO_TEST_CASE(tokenize_keeps_num_examples_plus_one) {
  std::string text;
  for (int i = 0; i < 10; ++i) text += "e" + std::to_string(i) + "\tf" + std::to_string(i) + "\n";
  // The book stops when i > num_examples: lines 0..3, four pairs for num_examples = 3.
  const auto tok = d2l::tokenize_nmt(text, 3);
  BOOST_TEST(tok.source.size() == 4u);
  BOOST_TEST(tok.source.back().front() == "e3");
  BOOST_TEST(d2l::tokenize_nmt(text, 0).source.size() == 10u);  // 0: every line
  // A line with three columns is skipped (the book's len(parts) == 2) but still counted.
  const auto three = d2l::tokenize_nmt("a\tb\tc\nd\te\nf\tg\n", 1);
  BOOST_TEST((three.source == TokenLines{{"d"}}));
  BOOST_TEST((three.target == TokenLines{{"e"}}));
}

BOOST_AUTO_TEST_CASE(bleu_book_vectors) {
  // Hand: p1 = 3/4, p2 = 1/3 -> (3/4)^(1/2) (1/3)^(1/4) = 0.658; "je suis en retard ?":
  // p1 = 2/5, p2 = 1/4 -> 0.447; "... debout .": p1 = 5/6, p2 = 3/5 -> 0.803;
  // "A B B C D": exp(1 - 6/5) (4/5)^(1/2) (3/4)^(1/4) = 0.681.
  BOOST_TEST(d2l::bleu("va !", "va !", 2) == 1.0, tt::tolerance(1e-12));
  BOOST_TEST(d2l::bleu("il est riche .", "il est calme .", 2) == 0.6580370064762462, tt::tolerance(1e-12));
  BOOST_TEST(d2l::bleu("je suis en retard ?", "je suis chez moi .", 2) == 0.447213595499958, tt::tolerance(1e-12));
  BOOST_TEST(d2l::bleu("je suis chez moi debout .", "je suis chez moi .", 2) == 0.8034284189446518, tt::tolerance(1e-12));
  BOOST_TEST(d2l::bleu("A B B C D", "A B C D E F", 2) == 0.6814773296495302, tt::tolerance(1e-12));
  // The book's brevity example: label A..F, prediction A B: p1 = p2 = 1, exp(1 - 6/2).
  BOOST_TEST(d2l::bleu("A B", "A B C D E F", 2) == 0.1353352832366127, tt::tolerance(1e-12));
  BOOST_TEST(d2l::bleu("va", "va !", 2) == 0.0);  // shorter than k: 0, not a division by 0
  BOOST_TEST(d2l::bleu("x y", "a b", 1) == 0.0);
  BOOST_CHECK_EXCEPTION(d2l::bleu("a", "a", 0), std::invalid_argument, message_has({"[bleu]", "k"}));
}

BOOST_AUTO_TEST_CASE(error_missing_file) {
  const std::string path = "/tmp/d2l_test_nmt_no_such_dir/fra.txt";
  BOOST_CHECK_EXCEPTION(d2l::read_data_nmt(path), std::invalid_argument,
                        message_has({"[read_data_nmt]", path, "make data", "--data"}));
  BOOST_CHECK_EXCEPTION(d2l::load_data_nmt(2, 8, 600, path), std::invalid_argument,
                        message_has({"[read_data_nmt]", path}));
  // A directory given for the file (--data data/fra-eng): named as such, not "empty corpus".
  const d2l_test::TempDir dir("nmt_dir");
  BOOST_CHECK_EXCEPTION(d2l::read_data_nmt(dir.path.string()), std::invalid_argument,
                        message_has({"[read_data_nmt] '" + dir.path.string() + "' is a directory, not a file", "--data"}));
}

BOOST_AUTO_TEST_CASE(error_line_without_tab) {
  TempFile f("Go.\tVa !\nHi.\tSalut !\nRun! Cours !\n", "notab");
  BOOST_CHECK_EXCEPTION(d2l::load_data_nmt(2, 8, 600, f.path), std::invalid_argument,
                        message_has({"[tokenize_nmt]", f.path + ":3:", "no tab", "run ! cours !"}));
  // Lines past num_examples are never looked at, as in the book.
  BOOST_TEST(d2l::load_data_nmt(2, 8, 1, f.path).src.rows() == 2);
}

BOOST_AUTO_TEST_CASE(error_invalid_utf8) {
  TempFile f("Go.\tVa !\nHi.\tSal\xC3(ut !\n", "utf8");  // C3 must be followed by 80..BF
  BOOST_CHECK_EXCEPTION(d2l::read_data_nmt(f.path), std::invalid_argument,
                        message_has({"[validate_utf8]", f.path + ":2:", "byte 8", "0xc3"}));
  BOOST_CHECK_EXCEPTION(d2l::validate_utf8("\xED\xA0\x80", "s", 7), std::invalid_argument,
                        message_has({"s:7:"}));  // a UTF-16 surrogate
  BOOST_CHECK_EXCEPTION(d2l::validate_utf8("\xC0\xAF", "s", 1), std::invalid_argument,
                        message_has({"s:1:"}));  // overlong '/'
  BOOST_CHECK_NO_THROW(d2l::validate_utf8("ça\u202f! \U0001F600", "s", 1));
}

BOOST_AUTO_TEST_CASE(error_empty_corpus) {
  TempFile f("\n\n", "empty");
  BOOST_CHECK_EXCEPTION(d2l::load_data_nmt(2, 8, 600, f.path), std::invalid_argument,
                        message_has({"[tokenize_nmt]", f.path, "empty corpus", "lines 1..3"}));
  TempFile g("", "empty0");
  BOOST_CHECK_EXCEPTION(d2l::load_data_nmt(2, 8, 600, g.path), std::invalid_argument,
                        message_has({"[tokenize_nmt]", g.path, "empty corpus"}));
}

// A file saved by a Windows editor: a byte-order mark first and "\r\n" line ends. Before
// read_data_nmt normalised them, '\r' stuck to every French sentence's last token ("!\r") and
// the mark to the first English word, so vocabularies, translations and BLEU changed.
BOOST_AUTO_TEST_CASE(crlf_and_byte_order_mark_do_not_stick_to_tokens) {
  const std::string lf = "Go.\tVa !\nGo!\tVa !\nHi.\tSalut !\nRun!\tCours\u202f!\nRun.\tCours.\n";
  std::string crlf = "\xEF\xBB\xBF";
  for (char c : lf) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  std::string cr = lf;  // old Mac line ends: a lone '\r', which Python's text mode also splits on
  for (char& c : cr) if (c == '\n') c = '\r';
  TempFile plain(lf, "lf"), windows(crlf, "crlf"), mac(cr, "cr");
  BOOST_TEST(d2l::read_data_nmt(windows.path) == lf);
  BOOST_TEST(d2l::read_data_nmt(mac.path) == lf);
  // Two marks in a row (found by fuzz_nmt): both go.
  TempFile twice("\xEF\xBB\xBF\xEF\xBB\xBF" + lf, "twice");
  BOOST_TEST(d2l::read_data_nmt(twice.path) == lf);
  const d2l::NmtData want = d2l::load_data_nmt(2, 6, 600, plain.path);
  for (const std::string& path : {windows.path, mac.path}) {
    BOOST_TEST_CONTEXT(path) {
      const d2l::NmtData got = d2l::load_data_nmt(2, 6, 600, path);
      BOOST_TEST(got.src_vocab.idx_to_token() == want.src_vocab.idx_to_token(), tt::per_element());
      BOOST_TEST(got.tgt_vocab.idx_to_token() == want.tgt_vocab.idx_to_token(), tt::per_element());
      BOOST_TEST(got.src.array == want.src.array, tt::per_element());
      BOOST_TEST(got.tgt.array == want.tgt.array, tt::per_element());
    }
  }
  // The unit itself: a mark only at the very start is dropped; "\r\n" and lone "\r" end lines.
  BOOST_TEST(d2l::normalize_text("\xEF\xBB\xBF" "a\r\nb\rc\n\r\n") == "a\nb\nc\n\n");
  BOOST_TEST(d2l::normalize_text("a\xEF\xBB\xBF") == "a\xEF\xBB\xBF");
}

// A file of tabs used to be a corpus of empty sentences (the book keeps '' as a token) that
// trained without complaint; a side without a word is now an error naming the line.
BOOST_AUTO_TEST_CASE(error_file_of_only_tabs) {
  TempFile tabs("\t\n\t\n\t\n", "tabs");
  BOOST_CHECK_EXCEPTION(d2l::load_data_nmt(2, 8, 600, tabs.path), std::invalid_argument,
                        message_has({"[tokenize_nmt]", tabs.path + ":1:", "english side", "holds no word"}));
  TempFile half("Go.\tVa !\nHi.\t  \n", "half");
  BOOST_CHECK_EXCEPTION(d2l::load_data_nmt(2, 8, 600, half.path), std::invalid_argument,
                        message_has({"[tokenize_nmt]", half.path + ":2:", "french side", "holds no word"}));
}

BOOST_AUTO_TEST_CASE(error_num_steps_and_batch_size) {
  TempFile f("Go.\tVa !\n", "steps");
  BOOST_CHECK_EXCEPTION(d2l::load_data_nmt(2, 0, 600, f.path), std::invalid_argument,
                        message_has({"[load_data_nmt]", "num_steps", "0"}));
  BOOST_CHECK_EXCEPTION(d2l::load_data_nmt(0, 8, 600, f.path), std::invalid_argument,
                        message_has({"[load_data_nmt]", "batch_size", "0"}));
}

BOOST_AUTO_TEST_CASE(load_and_batches) {
  // Seven pairs; "go" and "va" occur twice, everything else is cut by min_freq 2.
  TempFile f("Go.\tVa !\nGo!\tVa !\nHi.\tSalut !\nRun!\tCours\u202f!\nRun.\tCours.\n"
             "Who?\tQui ?\nWow!\tÇa alors !\n", "load");
  const d2l::NmtData d = d2l::load_data_nmt(3, 4, 600, f.path);
  // src counts: . 3, ! 3 (. seen first), go 2, run 2, then once-only tokens;
  // tgt: ! 5, va 2, cours 2, then once-only tokens.
  BOOST_TEST((d.src_vocab.idx_to_token() ==
              std::vector<std::string>{"<unk>", "<pad>", "<bos>", "<eos>", ".", "!", "go", "run"}));
  BOOST_TEST((d.tgt_vocab.idx_to_token() ==
              std::vector<std::string>{"<unk>", "<pad>", "<bos>", "<eos>", "!", "va", "cours"}));
  BOOST_TEST((row(d.src, 0) == std::vector<int64_t>{6, 4, 3, 1}));  // go . <eos> <pad>
  BOOST_TEST((row(d.tgt, 6) == std::vector<int64_t>{0, 0, 4, 3}));  // ça alors ! <eos>
  BOOST_TEST((d.tgt.valid_len == std::vector<int64_t>{3, 3, 3, 3, 3, 3, 4}));

  // A source that always returns n - 1 makes every Fisher–Yates swap a no-op.
  const auto same = d.epoch_batches([](int64_t n) { return n - 1; });
  BOOST_TEST(same.size() == 3u);  // 3 + 3 + 1: the last, smaller batch is kept
  BOOST_TEST(same[2].batch_size == 1);
  BOOST_TEST((same[0].X == std::vector<int64_t>{6, 4, 3, 1, 6, 5, 3, 1, 0, 4, 3, 1}));
  BOOST_TEST((same[2].Y_valid_len == std::vector<int64_t>{4}));

  // The seeded generator: same seed, same batches; every pair exactly once per epoch.
  d2l::manual_seed(42);
  const auto e1 = d.epoch_batches();
  d2l::manual_seed(42);
  const auto e2 = d.epoch_batches();
  std::multiset<std::vector<int64_t>> seen, all;
  for (size_t b = 0; b < e1.size(); ++b) {
    BOOST_TEST(e1[b].X == e2[b].X);
    for (int64_t r = 0; r < e1[b].batch_size; ++r)
      seen.insert({e1[b].X.begin() + r * 4, e1[b].X.begin() + (r + 1) * 4});
  }
  for (int64_t r = 0; r < d.src.rows(); ++r) all.insert(row(d.src, r));
  BOOST_TEST((seen == all));
  BOOST_CHECK_EXCEPTION(d.epoch_batches([](int64_t n) { return n; }), std::invalid_argument,
                        message_has({"[NmtData::epoch_batches]", "random_int(7) returned 7"}));
}

BOOST_AUTO_TEST_CASE(data_source_order) {
  const d2l::DataSource cli = d2l::resolve_nmt_data("my/fra.txt");
  BOOST_TEST(cli.path == "my/fra.txt");
  BOOST_TEST(cli.description.find("--data") != std::string::npos);
  const d2l::DataSource def = d2l::resolve_nmt_data();
  const bool made = static_cast<bool>(std::ifstream("data/fra-eng/fra.txt"));
  BOOST_TEST(def.path == (made ? "data/fra-eng/fra.txt" : kBundledFra));
}

// The book's layout on a fixture: tests/fixtures/data/fra-eng/fra.txt is found under its root
// as `make data`'s data/fra-eng/fra.txt is, and read as the book reads fra.txt. Its six pairs
// (tests/fixtures/README.md) numbered by hand: with min_freq 2, source tokens
// . (4) go (3) run (3) ! (2) we (2) and target tokens ! (3) . (3) va (2) cours (2) nous (2)
// follow '<unk>' '<pad>' '<bos>' '<eos>', equal counts in order of first appearance;
// "courons" and "allons" occur once and become '<unk>' (0).
BOOST_AUTO_TEST_CASE(book_layout_fixture) {
  const d2l::DataSource s = d2l::resolve_nmt_data("", kFixtureRoot);
  BOOST_TEST(s.path == "tests/fixtures/data/fra-eng/fra.txt");
  BOOST_TEST(s.description.find("from `make data`") != std::string::npos);
  // Without data/ under the root: the bundled corpus under the same root.
  BOOST_TEST(d2l::resolve_nmt_data("", "tests").path == "tests/chapters/data/fra-eng-small.txt");
  // U+202F before '!' and U+00A0 inside "Nous allons." are spaces after preprocessing.
  const auto tok = d2l::tokenize_nmt(d2l::preprocess_nmt(d2l::read_data_nmt(s.path)), 0, s.path);
  BOOST_REQUIRE_EQUAL(tok.source.size(), 6u);
  BOOST_TEST((tok.target[0] == std::vector<std::string>{"va", "!"}));
  BOOST_TEST((tok.source[3] == std::vector<std::string>{"we", "run", "."}));
  BOOST_TEST((tok.target[4] == std::vector<std::string>{"nous", "allons", "."}));
  const d2l::NmtData d = d2l::load_data_nmt(2, 5, 600, s.path);
  BOOST_TEST((d.src_vocab.idx_to_token() ==
              std::vector<std::string>{"<unk>", "<pad>", "<bos>", "<eos>", ".", "go", "run", "!", "we"}));
  BOOST_TEST((d.tgt_vocab.idx_to_token() ==
              std::vector<std::string>{"<unk>", "<pad>", "<bos>", "<eos>", "!", ".", "va", "cours", "nous"}));
  BOOST_REQUIRE_EQUAL(d.src.rows(), 6);
  BOOST_TEST((row(d.src, 0) == std::vector<int64_t>{5, 4, 3, 1, 1}));  // go . <eos> <pad> <pad>
  BOOST_TEST((row(d.tgt, 0) == std::vector<int64_t>{6, 4, 3, 1, 1}));  // va ! <eos>
  BOOST_TEST((row(d.src, 3) == std::vector<int64_t>{8, 6, 4, 3, 1}));  // we run . <eos>
  BOOST_TEST((row(d.tgt, 3) == std::vector<int64_t>{8, 0, 5, 3, 1}));  // nous <unk> . <eos>
  BOOST_TEST((d.src.valid_len == std::vector<int64_t>{3, 3, 3, 4, 4, 3}));
  BOOST_TEST((d.tgt.valid_len == std::vector<int64_t>{3, 3, 3, 4, 4, 3}));
}

// From any directory a program finds the repository's data: run from /tmp, the 10.4 program
// trains on the bundled corpus under the repository it was built from (the compiled-in root,
// or the program's own parents). Without the corpus the error names where it looked and how
// to get the data, not only `make data`.
BOOST_AUTO_TEST_CASE(data_found_from_any_directory) {
  const std::string root = fs::current_path().string();
  const std::string exe = fs::absolute(d2l_test::build_dir() + "/chapters/bahdanau_attention").string();
  const d2l_test::TempDir t("data_anywhere");
  const auto [rc, out] = d2l_test::run_capture("cd " + t.path.string() + " && " + exe + " --quick --epochs 1 --out " +
                                                t.path.string() + "/out");
  BOOST_TEST(rc == 0, out);
  BOOST_TEST(out.find("using data: " + root + "/chapters/data/fra-eng-small.txt") != std::string::npos, out);
  BOOST_TEST(d2l::data_root() == ".");  // the suite runs in the repository: paths stay relative
  const std::string missing = d2l::resolve_nmt_data("", t.path.string()).path;
  BOOST_TEST(missing == t.path.string() + "/chapters/data/fra-eng-small.txt");
  BOOST_CHECK_EXCEPTION(d2l::read_data_nmt(missing), std::invalid_argument,
                        message_has({"read_data_nmt", missing, "set D2L_ROOT", "--data PATH/TO/fra.txt", "make data"}));
}

// The book's own fra.txt, when `make data` has fetched it (skipped otherwise): the file the
// book's numbers come from starts with the pair it translates first.
BOOST_AUTO_TEST_CASE(made_fra_eng, *utf::precondition(made_fra_present)) {
  BOOST_TEST(d2l::resolve_nmt_data().path == kMadeFra);
  const d2l::NmtData d = d2l::load_data_nmt(64, 10, 600, kMadeFra);
  BOOST_TEST(d.src.rows() == 601);  // the book's loop keeps line 600 (0-based) as well
  BOOST_TEST((row(d.src, 0) == std::vector<int64_t>{d.src_vocab["go"], d.src_vocab["."], 3, 1, 1, 1, 1, 1, 1, 1}));
  BOOST_TEST((row(d.tgt, 0) == std::vector<int64_t>{d.tgt_vocab["va"], d.tgt_vocab["!"], 3, 1, 1, 1, 1, 1, 1, 1}));
  BOOST_TEST(d.tgt_vocab["va"] != d.tgt_vocab.unk());
}

// The corpus in the repo (never skipped: it is part of the source tree).
BOOST_AUTO_TEST_CASE(bundled_corpus) {
  const std::string raw = d2l::read_data_nmt(kBundledFra);
  const auto all = d2l::tokenize_nmt(d2l::preprocess_nmt(raw), 0, kBundledFra);
  BOOST_TEST(all.source.size() >= 650u);  // longer than the 601 pairs the book reads
  // Shortest first, as in fra.txt: English lengths (in bytes) never decrease.
  size_t prev = 0, n = 0;
  for (const auto& line : d2l::split(raw, '\n')) {
    if (line.empty()) continue;
    const size_t len = line.find('\t');
    BOOST_TEST(len >= prev, "line " << n + 1 << " is shorter than the one before");
    prev = len, ++n;
  }
  // The book's four test sentences with their references, among the pairs it trains on
  // (load_data_nmt's first 601), and each of their tokens in its vocabulary (min_freq 2):
  // a token seen once would translate as <unk> and score bleu 0.
  const d2l::NmtData d = d2l::load_data_nmt(64, 10, 600, kBundledFra);
  const auto book = d2l::tokenize_nmt(d2l::preprocess_nmt(raw), 600, kBundledFra);
  BOOST_TEST(d.src.rows() == 601);
  BOOST_TEST(book.source.size() == 601u);
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"go .", "va !"}, {"i lost .", "j'ai perdu ."}, {"he's calm .", "il est calme ."},
      {"i'm home .", "je suis chez moi ."}};
  for (const auto& [eng, fra] : pairs) {
    const std::vector<std::string> src = d2l::split(eng, ' '), tgt = d2l::split(fra, ' ');
    bool found = false;
    for (size_t i = 0; i < book.source.size() && !found; ++i)
      found = book.source[i] == src && book.target[i] == tgt;
    BOOST_TEST(found, "missing pair in the first 601 lines: " << eng << " => " << fra);
    for (const std::string& w : src) BOOST_TEST(d.src_vocab[w] != d.src_vocab.unk(), "source token " << w);
    for (const std::string& w : tgt) BOOST_TEST(d.tgt_vocab[w] != d.tgt_vocab.unk(), "target token " << w);
  }
  // A missing token is <unk> (0); the check above can fail.
  BOOST_TEST(d.tgt_vocab["déteste"] == d.tgt_vocab.unk());  // once in the first 601 lines
  BOOST_TEST(d.src_vocab.size() == 195);  // from the Python re-implementation, as below
  BOOST_TEST(d.tgt_vocab.size() == 169);
}

// The real file: numbers from an independent Python re-implementation of the book's
// read/preprocess/tokenize/Vocab/build_array code run on the same fra.txt.
BOOST_AUTO_TEST_CASE(real_fra_eng, *utf::precondition(real_fra_present)) {
  const d2l::NmtData d = d2l::load_data_nmt(64, 10, 600, kRealFra);
  BOOST_TEST(d.src.rows() == 601);
  BOOST_TEST(d.src_vocab.size() == 188);
  BOOST_TEST(d.tgt_vocab.size() == 202);
  BOOST_TEST((std::vector<std::string>(d.tgt_vocab.idx_to_token().begin() + 4,
                                       d.tgt_vocab.idx_to_token().begin() + 12) ==
              std::vector<std::string>{".", "!", "je", "suis", "?", "ça", "j'ai", "nous"}));
  BOOST_TEST((row(d.src, 0) == std::vector<int64_t>{9, 4, 3, 1, 1, 1, 1, 1, 1, 1}));
  BOOST_TEST((row(d.tgt, 0) == std::vector<int64_t>{22, 5, 3, 1, 1, 1, 1, 1, 1, 1}));
  BOOST_TEST((row(d.src, 600) == std::vector<int64_t>{7, 0, 4, 3, 1, 1, 1, 1, 1, 1}));
  BOOST_TEST((row(d.tgt, 600) == std::vector<int64_t>{6, 7, 17, 137, 4, 3, 1, 1, 1, 1}));
  int64_t src_valid = 0, tgt_valid = 0;
  for (int64_t r = 0; r < d.src.rows(); ++r) src_valid += d.src.valid_len[r], tgt_valid += d.tgt.valid_len[r];
  BOOST_TEST(src_valid == 2486);
  BOOST_TEST(tgt_valid == 2607);
  BOOST_TEST(d.epoch_batches().size() == 10u);  // 9 x 64 + 25
  // The whole file preprocessed byte for byte as Python does (717351 bytes, FNV-1a 64).
  const std::string text = d2l::preprocess_nmt(d2l::read_data_nmt(kRealFra));
  BOOST_TEST(text.size() == 717351u);
  BOOST_TEST(fnv1a(text) == 0xbdaf59bae851c612ULL);
}

BOOST_AUTO_TEST_SUITE_END()
