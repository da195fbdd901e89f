// tests/test_tools_snli_data.cpp — tools/d2l/data/snli_data, glove and nli_set: the SNLI
// readers of 15.4 (sec_natural-language-inference-and-dataset) and the book's TokenEmbedding
// (sec_synonyms).
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/random.h"
#include "tests/test_util.h"
#include "tools/d2l/data/glove.h"
#include "tools/programs/nli_set/nli_set.h"
#include "tools/d2l/data/snli_data.h"

using d2l_test::message_has;
using d2l_test::TempDir;

namespace fs = std::filesystem;
using d2l::SNLIData;

namespace {

// Runs f with std::cout captured, returns what it printed.
template <class F>
std::string captured(F f) {
  std::ostringstream os;
  std::streambuf* old = std::cout.rdbuf(os.rdbuf());
  try {
    f();
  } catch (...) {
    std::cout.rdbuf(old);
    throw;
  }
  std::cout.rdbuf(old);
  return os.str();
}

// One row of the official format: 14 columns, the ones read_snli ignores filled in the way
// the real file fills them (parses with POS tags, the raw sentences, IDs, five labels).
std::string official_row(const std::string& gold, const std::string& bp1, const std::string& bp2,
                         const std::string& s1, const std::string& s2) {
  return gold + "\t" + bp1 + "\t" + bp2 + "\t(ROOT (S ...))\t(ROOT (S ...))\t" + s1 + "\t" + s2 +
         "\t3416050480.jpg#4\t3416050480.jpg#4r1n\t" + gold + "\tneutral\t\t\t\n";
}
const char* kOfficialHeader =
    "gold_label\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\tsentence2_parse\t"
    "sentence1\tsentence2\tcaptionID\tpairID\tlabel1\tlabel2\tlabel3\tlabel4\tlabel5\n";

std::string official_snippet() {
  return std::string(kOfficialHeader) +
         official_row("neutral",
                      "( ( ( A person ) ( on ( a horse ) ) ) ( ( jumps ( over ( a ( broken ( down "
                      "airplane ) ) ) ) ) . ) )",
                      "( ( A person ) ( ( is ( ( training ( his horse ) ) ( for ( a competition ) "
                      ") ) ) . ) )",
                      "A person on a horse jumps over a broken down airplane.",
                      "A person is training his horse for a competition.") +
         official_row("contradiction",
                      "( ( ( A person ) ( on ( a horse ) ) ) ( ( jumps ( over ( a ( broken ( down "
                      "airplane ) ) ) ) ) . ) )",
                      "( ( A person ) ( ( ( ( is ( at ( a diner ) ) ) , ) ( ordering ( an omelette "
                      ") ) ) . ) )",
                      "A person on a horse jumps over a broken down airplane.",
                      "A person is at a diner, ordering an omelette.") +
         official_row("-", "( ( A dog ) runs )", "( ( A cat ) sleeps )", "A dog runs.",
                      "A cat sleeps.") +
         official_row("entailment", "( ( The ( ( man 's ) dog ) ) ( ( does n't ) sleep ) )",
                      "( ( The man ) ( is ( awake . ) ) )", "The man's dog doesn't sleep",
                      "The man is awake.");
}

// The same pairs in the export: raw sentences, 0 entailment / 1 neutral / 2 contradiction.
std::string export_snippet() {
  return "premise\thypothesis\tlabel\n"
         "A person on a horse jumps over a broken down airplane.\tA person is training his horse "
         "for a competition.\t1\n"
         "A person on a horse jumps over a broken down airplane.\tA person is at a diner, ordering "
         "an omelette.\t2\n"
         "A dog runs.\tA cat sleeps.\t-1\n"
         "The man's dog doesn't sleep\tThe man is awake.\t0\n";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tools_snli_data)

BOOST_AUTO_TEST_CASE(split_punctuation_matches_the_parser_tokens) {
  using d2l::split_punctuation;
  BOOST_TEST(split_punctuation("A person on a horse jumps over a broken down airplane.") ==
             "A person on a horse jumps over a broken down airplane .");
  BOOST_TEST(split_punctuation("The man's dog doesn't bark... (really)!") ==
             "The man 's dog does n't bark ... ( really ) !");
  BOOST_TEST(split_punctuation("the words \"HELP ME\" on it.\"") ==
             "the words \" HELP ME \" on it . \"");
  BOOST_TEST(split_punctuation("I'm sure they'll see 3.5 corn-on-the-cob carts; dogs' bowls?") ==
             "I 'm sure they 'll see 3.5 corn-on-the-cob carts ; dogs ' bowls ?");
  BOOST_TEST(split_punctuation("  two   spaces\tand a tab ") == "two spaces and a tab");
  // Tokenised text, as in the bundled set and the book's example, comes back unchanged.
  for (const char* s :
       {"he is good .", "he is bad .", "The man 's dog does n't bark ... ''", "-- ?"})
    BOOST_TEST(split_punctuation(s) == s);
  BOOST_TEST(split_punctuation("") == "");
}

BOOST_AUTO_TEST_CASE(tokenize_words_is_python_split) {
  const auto t = d2l::tokenize_words({"A man  is\tthere .", "", "  x  "});
  BOOST_TEST(t.size() == 3u);
  BOOST_TEST((t[0] == std::vector<std::string>{"A", "man", "is", "there", "."}));
  BOOST_TEST(t[1].empty());
  BOOST_TEST((t[2] == std::vector<std::string>{"x"}));
}

BOOST_AUTO_TEST_CASE(both_formats_parse_to_the_same_examples) {
  TempDir tmp("snli");
  const std::string exported = export_snippet();
  const SNLIData a = d2l::read_snli(tmp.write("official.txt", official_snippet()), true);
  const SNLIData b = d2l::read_snli(tmp.write("export.tsv", exported), true);
  const std::vector<std::string> premises = {
      "A person on a horse jumps over a broken down airplane .",
      "A person on a horse jumps over a broken down airplane .", "The man 's dog does n't sleep"};
  const std::vector<std::string> hypotheses = {"A person is training his horse for a competition .",
                                               "A person is at a diner , ordering an omelette .",
                                               "The man is awake ."};
  // The book's numbering: entailment 0, contradiction 1, neutral 2; the '-' / -1 row dropped.
  const std::vector<int64_t> labels = {2, 1, 0};
  for (const SNLIData* d : {&a, &b}) {
    BOOST_TEST(d->premises == premises, boost::test_tools::per_element());
    BOOST_TEST(d->hypotheses == hypotheses, boost::test_tools::per_element());
    BOOST_TEST(d->labels == labels, boost::test_tools::per_element());
  }
}

BOOST_AUTO_TEST_CASE(reader_follows_the_header_not_the_file_name) {
  TempDir tmp("snli");
  // An official-format file named like the export and vice versa; CRLF endings and a BOM.
  const SNLIData a = d2l::read_snli(tmp.write("test.tsv", official_snippet()), false);
  std::string exported = "\xEF\xBB\xBF" + export_snippet();
  for (size_t p = exported.find('\n'); p != std::string::npos; p = exported.find('\n', p + 2))
    exported.insert(p, "\r");
  const SNLIData b = d2l::read_snli(tmp.write("snli_1.0_test.txt", exported), false);
  BOOST_TEST(a.labels.size() == 3u);
  BOOST_TEST(b.labels.size() == 3u);
  BOOST_TEST(b.hypotheses[2] == "The man is awake .");
  // A directory in the book's layout: is_train picks snli_1.0_train.txt or _test.txt.
  TempDir dir("snli");
  dir.write("snli_1.0_train.txt", official_snippet());
  dir.write("snli_1.0_test.txt",
            std::string(kOfficialHeader) +
                official_row("entailment", "( a b )", "( c d )", "a b", "c d"));
  BOOST_TEST(d2l::read_snli(dir.path.string(), true).labels.size() == 3u);
  const SNLIData t = d2l::read_snli(dir.path.string(), false);
  BOOST_TEST(t.premises == std::vector<std::string>{"a b"}, boost::test_tools::per_element());
}

// Both formats saved by a Windows editor (byte-order mark, "\r\n") read to exactly the
// examples of the plain files: no '\r' on the last column, no mark on the header's first name.
BOOST_AUTO_TEST_CASE(crlf_and_byte_order_mark_in_both_formats) {
  TempDir tmp("snli");
  auto windows = [](const std::string& text) {
    std::string out = "\xEF\xBB\xBF";
    for (char c : text) out += c == '\n' ? std::string("\r\n") : std::string(1, c);
    return out;
  };
  for (const std::string& text : {official_snippet(), export_snippet()}) {
    const SNLIData want = d2l::read_snli(tmp.write("plain.txt", text), true);
    const SNLIData got = d2l::read_snli(tmp.write("windows.txt", windows(text)), true);
    BOOST_TEST(got.premises == want.premises, boost::test_tools::per_element());
    BOOST_TEST(got.hypotheses == want.hypotheses, boost::test_tools::per_element());
    BOOST_TEST(got.labels == want.labels, boost::test_tools::per_element());
  }
}

BOOST_AUTO_TEST_CASE(export_label_mapping) {
  TempDir tmp("snli");
  const SNLIData d = d2l::read_snli(
      tmp.write(
          "x.tsv",
          "premise\thypothesis\tlabel\na .\tb .\t0\na .\tb .\t1\na .\tb .\t2\na .\tb .\t-1\n"),
      true);
  // 0 entailment -> 0, 1 neutral -> 2, 2 contradiction -> 1; -1 (no gold label) dropped.
  BOOST_TEST(d.labels == (std::vector<int64_t>{0, 2, 1}), boost::test_tools::per_element());
  // Columns are found by name, so another order reads the same.
  const SNLIData e =
      d2l::read_snli(tmp.write("y.tsv", "label\thypothesis\tpremise\n2\tb .\ta .\n"), true);
  BOOST_TEST(e.premises[0] == "a .");
  BOOST_TEST(e.hypotheses[0] == "b .");
  BOOST_TEST(e.labels[0] == 1);
}

BOOST_AUTO_TEST_CASE(csv_quoted_fields_are_unquoted) {
  TempDir tmp("snli");
  const SNLIData d = d2l::read_snli(
      tmp.write(
          "q.tsv",
          "premise\thypothesis\tlabel\n"
          "A man reads.\t\"The man is reading a spoon with the words \"\"HELP ME\"\" on it.\"\t2\n"
          "\"A cyclist passes a banner reading \"\"Lotos.\"\"\"\t\"A cyclist rides.\"\t0\n"
          "A 5\" tall toy.\tA toy.\t0\n"),
      true);
  BOOST_TEST(d.hypotheses[0] == "The man is reading a spoon with the words \" HELP ME \" on it .");
  BOOST_TEST(d.labels[0] == 1);
  BOOST_TEST(d.premises[1] == "A cyclist passes a banner reading \" Lotos . \"");
  BOOST_TEST(d.hypotheses[1] == "A cyclist rides .");
  // A '"' inside an unquoted field is an ordinary character (as Python's csv reads it).
  BOOST_TEST(d.premises[2] == "A 5 \" tall toy .");
}

BOOST_AUTO_TEST_CASE(every_error_names_file_and_line) {
  TempDir tmp("snli");
  const std::string H = "premise\thypothesis\tlabel\n";
  struct Case {
    std::string name, text;
    std::vector<std::string> parts;
  };
  const std::vector<Case> cases = {
      {"cols.tsv", H + "a .\tb .\t0\na .\tb .\n", {"cols.tsv:3:", "expected 3", "got 2"}},
      {"cols_off.txt",
       std::string(kOfficialHeader) + "neutral\t( a )\t( b )\n",
       {"cols_off.txt:2:", "expected 14"}},
      {"label.tsv", H + "a .\tb .\t3\n", {"label.tsv:2:", "unknown label '3'"}},
      {"gold.txt",
       std::string(kOfficialHeader) + official_row("Entailment", "( a )", "( b )", "a", "b"),
       {"gold.txt:2:", "unknown gold_label 'Entailment'"}},
      {"utf8.tsv", H + "a .\tb .\t0\ncaf\xC3 .\tb .\t0\n", {"[validate_utf8]", "utf8.tsv:3"}},
      {"quote.tsv", H + "\"a .\tb .\t0\n", {"quote.tsv:2:", "unterminated quoted field 1"}},
      {"after.tsv",
       H + "a .\t\"b\" .\t0\n",
       {"after.tsv:2:", "after the closing quote of field 2"}},
      {"header.tsv", "sentence1\tsentence2\tgold\na\tb\t0\n", {"header.tsv:1:", "unknown header"}},
      {"empty.tsv", H, {"[read_snli]", "empty.tsv", "no labelled examples"}},
      {"dashes.txt",
       std::string(kOfficialHeader) + official_row("-", "( a )", "( b )", "a", "b"),
       {"dashes.txt", "no labelled examples", "1 rows without a gold label"}},
      {"nothing.tsv", "", {"nothing.tsv", "empty file"}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      const std::string path = tmp.write(c.name, c.text);
      BOOST_CHECK_EXCEPTION(d2l::read_snli(path, true), std::invalid_argument,
                            message_has(c.parts));
    }
  }
  BOOST_CHECK_EXCEPTION(d2l::read_snli((tmp.path / "missing.tsv").string(), true),
                        std::invalid_argument,
                        message_has({"[read_snli]", "cannot open", "missing.tsv", "make data"}));
  BOOST_CHECK_EXCEPTION(d2l::read_snli(tmp.path.string(), true), std::invalid_argument,
                        message_has({"[read_snli]", "holds neither"}));
}

BOOST_AUTO_TEST_CASE(dataset_vocab_min_freq_and_truncate_pad) {
  // "dog" occurs 5 times over premises and hypotheses (kept: min_freq is 5), "cat" 4 times
  // (cut to '<unk>'), "." 7 times.
  SNLIData d;
  d.premises = {"a dog .", "dog dog cat .", "cat .", "x y z w v u t dog"};
  d.hypotheses = {"dog .", "cat .", "cat .", "."};
  d.labels = {0, 1, 2, 0};
  std::unique_ptr<d2l::SNLIDataset> ds;
  const std::string out = captured([&] { ds = std::make_unique<d2l::SNLIDataset>(d, 4); });
  BOOST_TEST(out == "read 4 examples\n");
  const d2l::Vocab& v = ds->vocab;
  BOOST_TEST(v.size() == 4);  // <unk>, <pad>, '.' (7), dog (5)
  BOOST_TEST(v["<unk>"] == 0);
  BOOST_TEST(v["<pad>"] == 1);
  BOOST_TEST(v["."] == 2);  // most frequent first
  BOOST_TEST(v["dog"] == 3);
  BOOST_TEST(v["cat"] == 0);
  BOOST_TEST(v["a"] == 0);
  // (4, num_steps = 4): truncated after 4 tokens, padded with <pad> = 1.
  const std::vector<int64_t> premises = {0, 3, 2, 1, 3, 3, 0, 2, 0, 2, 1, 1, 0, 0, 0, 0};
  const std::vector<int64_t> hypotheses = {3, 2, 1, 1, 0, 2, 1, 1, 0, 2, 1, 1, 2, 1, 1, 1};
  BOOST_TEST(ds->premises == premises, boost::test_tools::per_element());
  BOOST_TEST(ds->hypotheses == hypotheses, boost::test_tools::per_element());
  // A test split reuses the given vocabulary instead of building its own.
  SNLIData t;
  t.premises = {"cat cat cat cat cat dog"};
  t.hypotheses = {"bird"};
  t.labels = {2};
  d2l::SNLIDataset* ts = nullptr;
  captured([&] { ts = new d2l::SNLIDataset(t, 3, &v); });
  std::unique_ptr<d2l::SNLIDataset> owned(ts);
  BOOST_TEST(ts->vocab.size() == 4);
  BOOST_TEST(ts->premises == (std::vector<int64_t>{0, 0, 0}), boost::test_tools::per_element());
  BOOST_TEST(ts->hypotheses == (std::vector<int64_t>{0, 1, 1}), boost::test_tools::per_element());
  // Bad arguments.
  SNLIData bad = t;
  bad.labels = {3};
  BOOST_CHECK_EXCEPTION(d2l::SNLIDataset(bad, 3, &v), std::invalid_argument,
                        message_has({"[SNLIDataset]", "label 0 is 3"}));
  bad.labels = {0, 1};
  BOOST_CHECK_EXCEPTION(d2l::SNLIDataset(bad, 3, &v), std::invalid_argument,
                        message_has({"[SNLIDataset]", "labels (2)"}));
  BOOST_CHECK_EXCEPTION(d2l::SNLIDataset(t, 0, &v), std::invalid_argument,
                        message_has({"[SNLIDataset]", "num_steps"}));
}

BOOST_AUTO_TEST_CASE(loader_batches_and_seeded_shuffle) {
  SNLIData d;
  for (int i = 0; i < 10; ++i) {
    d.premises.push_back("p" + std::to_string(i));
    d.hypotheses.push_back("h");
    d.labels.push_back(i % 3);
  }
  std::shared_ptr<const d2l::SNLIDataset> ds;
  captured([&] { ds = std::make_shared<const d2l::SNLIDataset>(d, 2); });
  // In order: batches of 4, 4, 2 in file order.
  d2l::SNLIDataLoader test_iter(ds, 4, false);
  test_iter.start_epoch();
  BOOST_TEST(test_iter.num_batches() == 3);
  const d2l::SNLIBatch last = test_iter.batch(2);
  BOOST_TEST(last.batch_size == 2);
  BOOST_TEST(last.num_steps == 2);
  BOOST_TEST(last.labels == (std::vector<int64_t>{2, 0}), boost::test_tools::per_element());
  BOOST_TEST(last.premises.size() == 4u);
  BOOST_CHECK_EXCEPTION(test_iter.batch(3), std::invalid_argument,
                        message_has({"[SNLIDataLoader::batch]", "index 3"}));
  // Shuffled: a permutation, reproducible from d2l::manual_seed, new each epoch.
  d2l::SNLIDataLoader train_iter(ds, 4, true);
  d2l::manual_seed(42);
  train_iter.start_epoch();
  const std::vector<int64_t> first = train_iter.order();
  train_iter.start_epoch();
  const std::vector<int64_t> second = train_iter.order();
  d2l::manual_seed(42);
  train_iter.start_epoch();
  BOOST_TEST(train_iter.order() == first, boost::test_tools::per_element());
  BOOST_TEST(std::set<int64_t>(first.begin(), first.end()).size() == 10u);
  BOOST_TEST(first != second);
  // Batch k holds examples order[4k .. 4k+3]: labels follow the permutation.
  std::vector<int64_t> labels;
  for (int64_t b = 0; b < train_iter.num_batches(); ++b) {
    const auto batch = train_iter.batch(b);
    labels.insert(labels.end(), batch.labels.begin(), batch.labels.end());
  }
  for (size_t k = 0; k < 10; ++k) BOOST_TEST(labels[k] == first[k] % 3);
  // A given generator is used instead of d2l::random_int: always 0 rotates left by one.
  d2l::SNLIDataLoader fixed(ds, 4, true, [](int64_t) { return int64_t{0}; });
  fixed.start_epoch();
  BOOST_TEST(fixed.order() == (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 0}),
             boost::test_tools::per_element());
  BOOST_CHECK_EXCEPTION(d2l::SNLIDataLoader(ds, 0, true), std::invalid_argument,
                        message_has({"[SNLIDataLoader]", "batch_size"}));
}

BOOST_AUTO_TEST_CASE(resolve_snli_data_order) {
  TempDir exp("snli");
  exp.write("validation.tsv", export_snippet());
  exp.write("test.tsv", export_snippet());
  const d2l::SNLISource s = d2l::resolve_snli_data(exp.path.string());
  BOOST_TEST(s.train_path == (exp.path / "validation.tsv").string());
  BOOST_TEST(s.test_path == (exp.path / "test.tsv").string());
  BOOST_TEST(s.description.find("training on validation.tsv") != std::string::npos);
  BOOST_TEST(s.description.find("not available offline") != std::string::npos);
  // train.tsv wins over validation.tsv, the official files over both.
  exp.write("train.tsv", export_snippet());
  BOOST_TEST(d2l::resolve_snli_data(exp.path.string()).train_path ==
             (exp.path / "train.tsv").string());
  exp.write("snli_1.0_train.txt", official_snippet());
  exp.write("snli_1.0_test.txt", official_snippet());
  BOOST_TEST(d2l::resolve_snli_data(exp.path.string()).test_path ==
             (exp.path / "snli_1.0_test.txt").string());
  TempDir empty("snli");
  BOOST_CHECK_EXCEPTION(d2l::resolve_snli_data(empty.path.string()), std::invalid_argument,
                        message_has({"[resolve_snli_data]", "holds neither"}));
  BOOST_CHECK_EXCEPTION(d2l::resolve_snli_data((empty.path / "nope").string()),
                        std::invalid_argument,
                        message_has({"[resolve_snli_data]", "not a directory"}));
  // Without --data: <root>/data/snli_1.0 first, then the bundled set.
  BOOST_CHECK_EXCEPTION(d2l::resolve_snli_data("", empty.path.string()), std::invalid_argument,
                        message_has({"[resolve_snli_data]", "no SNLI data", "make data"}));
  fs::create_directories(empty.path / "chapters/data/snli-small");
  empty.write("chapters/data/snli-small/train.tsv", export_snippet());
  empty.write("chapters/data/snli-small/test.tsv", export_snippet());
  BOOST_TEST(d2l::resolve_snli_data("", empty.path.string()).description.find("bundled") !=
             std::string::npos);
  // The bundled set's word vectors go with it when they are there, and only with it.
  BOOST_TEST(d2l::resolve_snli_data("", empty.path.string()).embeddings.empty());
  empty.write("chapters/data/snli-small/vectors.txt", "a 1 2\n");
  BOOST_TEST(d2l::resolve_snli_data("", empty.path.string()).embeddings ==
             (empty.path / "chapters/data/snli-small/vectors.txt").lexically_normal().string());
  BOOST_TEST(d2l::resolve_snli_data((empty.path / "chapters/data/snli-small").string()).embeddings.empty());
  fs::create_directories(empty.path / "data/snli_1.0");
  empty.write("data/snli_1.0/snli_1.0_train.txt", official_snippet());
  empty.write("data/snli_1.0/snli_1.0_test.txt", official_snippet());
  BOOST_TEST(d2l::resolve_snli_data("", empty.path.string()).train_path ==
             (empty.path / "data/snli_1.0/snli_1.0_train.txt").string());
}

// The bundled set as the chapters read it. The generator's rules are checked on its output
// here; that the files are its output is checked below.
BOOST_AUTO_TEST_CASE(bundled_set_is_balanced_and_covers_the_example) {
  const std::string dir = "chapters/data/snli-small";
  SNLIData train, test;
  BOOST_REQUIRE_NO_THROW(train = d2l::read_snli(dir + "/train.tsv", true));
  BOOST_REQUIRE_NO_THROW(test = d2l::read_snli(dir + "/test.tsv", false));
  BOOST_TEST(train.labels.size() == 6000u);
  BOOST_TEST(test.labels.size() == 450u);
  for (int64_t y = 0; y < 3; ++y) {
    BOOST_TEST(std::count(train.labels.begin(), train.labels.end(), y) == 2000);
    BOOST_TEST(std::count(test.labels.begin(), test.labels.end(), y) == 150);
  }
  std::set<std::pair<std::string, std::string>> pairs;
  for (size_t i = 0; i < train.labels.size(); ++i)
    pairs.emplace(train.premises[i], train.hypotheses[i]);
  BOOST_TEST(pairs.size() == train.labels.size());  // no pair twice
  for (size_t i = 0; i < test.labels.size(); ++i)
    BOOST_TEST(pairs.count({test.premises[i], test.hypotheses[i]}) == 0u);  // nor in both splits
  BOOST_TEST(pairs.count({"he is good .", "he is bad ."}) == 0u);  // the book's example is new
  std::unique_ptr<d2l::SNLIDataset> ds;
  captured([&] { ds = std::make_unique<d2l::SNLIDataset>(train, 50); });
  for (const char* w : {"he", "is", "good", "bad", "."}) BOOST_TEST(ds->vocab[w] != 0, w);
  // Every token of both splits has a 100-d vector; <pad> and <unk> have none, so they start
  // at zero as GloVe leaves them.
  const d2l::TokenEmbedding vectors(dir + "/vectors.txt");
  BOOST_TEST(vectors.dim() == 100);
  for (const SNLIData* d : {&train, &test})
    for (const auto& lines : {d->premises, d->hypotheses})
      for (const auto& tokens : d2l::tokenize_words(lines))
        for (const std::string& t : tokens) BOOST_TEST(vectors.token_to_idx.count(t) == 1u, t);
  BOOST_TEST(vectors.token_to_idx.count("<pad>") == 0u);
  // Same word class, cosine about 1/2; different classes, about 0.
  const auto cosine = [&](const std::string& a, const std::string& b) {
    const std::vector<float> v = vectors.lookup({a, b});
    double ab = 0, aa = 0, bb = 0;
    for (int k = 0; k < 100; ++k) ab += v[k] * v[100 + k], aa += v[k] * v[k], bb += v[100 + k] * v[100 + k];
    return ab / std::sqrt(aa * bb);
  };
  BOOST_TEST(cosine("good", "bad") > 0.3);
  BOOST_TEST(std::abs(cosine("good", "he")) < 0.3);
}

// The committed files are the generator's output for its default options, byte for byte,
// and the generator is deterministic.
BOOST_AUTO_TEST_CASE(bundled_set_is_the_generators_output) {
  const auto read = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
  };
  const d2l::NliSetFiles files = d2l::generate_nli_set();
  const std::string dir = "chapters/data/snli-small/";
  BOOST_TEST((files.train_tsv == read(dir + "train.tsv")), "train.tsv differs: run `make nli-set`");
  BOOST_TEST((files.test_tsv == read(dir + "test.tsv")), "test.tsv differs: run `make nli-set`");
  BOOST_TEST((files.vectors_txt == read(dir + "vectors.txt")), "vectors.txt differs: run `make nli-set`");
  // Other options give other files, each split balanced.
  d2l::NliSetOptions small;
  small.train_per_label = 4, small.test_per_label = 2, small.seed = 7;
  const d2l::NliSetFiles a = d2l::generate_nli_set(small), b = d2l::generate_nli_set(small);
  BOOST_TEST((a.train_tsv == b.train_tsv && a.test_tsv == b.test_tsv && a.vectors_txt == b.vectors_txt));
  BOOST_TEST(std::count(a.train_tsv.begin(), a.train_tsv.end(), '\n') == 13);  // header + 12
  BOOST_TEST(std::count(a.test_tsv.begin(), a.test_tsv.end(), '\n') == 7);
  BOOST_TEST(a.train_tsv != files.train_tsv.substr(0, a.train_tsv.size()));
  small.test_per_label = 0;
  BOOST_CHECK_EXCEPTION(d2l::generate_nli_set(small), std::invalid_argument,
                        message_has({"[generate_nli_set]", "positive"}));
}

// The book's layout on fixtures: tests/fixtures/data/ holds snli_1.0/snli_1.0_{train,test}.txt
// and glove.6B.100d/vec.txt as `make data` unpacks the book's archives (tests/fixtures/README.md).
// Found under the root as data/ is, read as the book reads them; counts by hand.
BOOST_AUTO_TEST_CASE(book_layout_fixture) {
  const d2l::SNLISource src = d2l::resolve_snli_data("", d2l_test::kFixtureRoot);
  BOOST_TEST(src.train_path == "tests/fixtures/data/snli_1.0/snli_1.0_train.txt");
  BOOST_TEST(src.test_path == "tests/fixtures/data/snli_1.0/snli_1.0_test.txt");
  BOOST_TEST(src.description.find("SNLI 1.0 in tests/fixtures/data/snli_1.0 (from `make data`)") != std::string::npos);
  // The book's full setting: the GloVe vectors `make data` unpacks go with its SNLI.
  BOOST_TEST(src.embeddings == "tests/fixtures/data/glove.6B.100d/vec.txt");
  // 7 rows, the one with gold label '-' dropped; sentences from the binary parses.
  const SNLIData train = d2l::read_snli("tests/fixtures/data/snli_1.0", true);
  BOOST_TEST((train.labels == std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
  BOOST_TEST(train.premises[0] == "A girl reads a book .");
  BOOST_TEST(train.hypotheses[2] == "A girl reads a long book .");
  BOOST_TEST(train.hypotheses[5] == "Two dogs chase a ball .");  // after the '-' row
  const SNLIData test = d2l::read_snli("tests/fixtures/data/snli_1.0", false);
  BOOST_TEST((test.labels == std::vector<int64_t>{0, 1, 2}));
  BOOST_TEST(test.hypotheses[1] == "A man is sleeping .");
  // load_data_snli: min_freq 5 over the training premises and hypotheses keeps . (12), a (8),
  // A (6), girl (6), Two (5), dogs (5), ties in order of first appearance.
  std::unique_ptr<d2l::SNLILoaders> data;
  const std::string out = captured([&] { data = std::make_unique<d2l::SNLILoaders>(d2l::load_data_snli(4, 6, src)); });
  BOOST_TEST(out == "read 6 examples\nread 3 examples\n");
  BOOST_TEST((data->vocab.idx_to_token() == std::vector<std::string>{"<unk>", "<pad>", ".", "a", "A", "girl", "Two", "dogs"}));
  // "A man rides a bike ." in the test split: A, <unk>, <unk>, a, <unk>, ., then <pad>.
  const auto b = data->test_iter.batch(0);
  BOOST_TEST((std::vector<int64_t>(b.premises.begin(), b.premises.begin() + 6) == std::vector<int64_t>{4, 0, 0, 3, 0, 2}));
  // GloVe's layout: word k (0-based) has (k + 1) * ((j mod 7) - 3) / 100 in dimension j.
  const d2l::TokenEmbedding glove(src.embeddings);
  BOOST_TEST(glove.dim() == 100);
  BOOST_TEST(glove.size() == 10);  // 9 words + '<unk>'
  const std::vector<float> girl = glove.lookup({"girl"});  // word 3 of the file
  BOOST_TEST(girl[0] == -0.12f);
  BOOST_TEST(girl[6] == 0.12f);
  BOOST_TEST(girl[99] == 4 * ((99 % 7) - 3) / 100.0f);
  BOOST_TEST(glove.lookup({"dog"}) == std::vector<float>(100, 0.0f), boost::test_tools::per_element());
}

// The book's data from `make data` (skipped when absent): the counts the book prints in 15.4,
// "read 549367 examples", "read 9824 examples", its label counts per split
// [183416, 183187, 182764] and [3368, 3237, 3219] (entailment, contradiction, neutral), and
// its vocabulary of 18678 tokens; then the book's GloVe: 400000 words + '<unk>', 100-d, with
// "beautiful" at index 3367 as the book's 14.7 shows for glove.6b.50d (same word list).
boost::test_tools::assertion_result made_snli_present(boost::unit_test::test_unit_id) {
  return d2l_test::file_present("data/snli_1.0/snli_1.0_train.txt");
}
boost::test_tools::assertion_result made_glove_present(boost::unit_test::test_unit_id) {
  return d2l_test::file_present("data/glove.6B.100d/vec.txt");
}

BOOST_AUTO_TEST_CASE(made_snli_counts, *boost::unit_test::precondition(made_snli_present)) {
  const d2l::SNLISource src = d2l::resolve_snli_data("");
  BOOST_TEST(src.train_path == "data/snli_1.0/snli_1.0_train.txt");
  std::unique_ptr<d2l::SNLILoaders> data;
  const std::string out = captured([&] { data = std::make_unique<d2l::SNLILoaders>(d2l::load_data_snli(256, 50, src)); });
  BOOST_TEST(out == "read 549367 examples\nread 9824 examples\n");
  const auto count = [](const std::vector<int64_t>& labels, int64_t label) {
    return std::count(labels.begin(), labels.end(), label);
  };
  const auto& train = data->train_iter.dataset().labels;
  const auto& test = data->test_iter.dataset().labels;
  BOOST_TEST(count(train, 0) == 183416);
  BOOST_TEST(count(train, 1) == 183187);
  BOOST_TEST(count(train, 2) == 182764);
  BOOST_TEST(count(test, 0) == 3368);
  BOOST_TEST(count(test, 1) == 3237);
  BOOST_TEST(count(test, 2) == 3219);
  BOOST_TEST(data->vocab.size() == 18678);
}

BOOST_AUTO_TEST_CASE(made_glove, *boost::unit_test::precondition(made_glove_present)) {
  const d2l::TokenEmbedding glove("data/glove.6B.100d/vec.txt");
  BOOST_TEST(glove.size() == 400001);
  BOOST_TEST(glove.dim() == 100);
  BOOST_TEST(glove.token_to_idx.at("beautiful") == 3367);
  BOOST_TEST(glove.idx_to_token[3367] == "beautiful");
}

// The shared export (read-only, never copied into the repo): skipped when absent.
const char* kSharedSnli = "../shared/data/snli";
boost::test_tools::assertion_result shared_snli_present(boost::unit_test::test_unit_id) {
  const std::string dir = kSharedSnli;
  boost::test_tools::assertion_result present =
      fs::exists(dir + "/validation.tsv") && fs::exists(dir + "/test.tsv");
  present.message() << dir << "/{validation,test}.tsv not found";
  return present;
}

BOOST_AUTO_TEST_CASE(shared_snli_export_counts,
                     *boost::unit_test::precondition(shared_snli_present)) {
  const std::string dir = kSharedSnli;
  d2l::SNLISource src = d2l::resolve_snli_data(dir);
  std::unique_ptr<d2l::SNLILoaders> data;
  const std::string out = captured(
      [&] { data = std::make_unique<d2l::SNLILoaders>(d2l::load_data_snli(256, 50, src)); });
  // Counted independently with Python's csv module (all labels are 0..2, none -1).
  BOOST_TEST(out == "read 9842 examples\nread 9824 examples\n");
  const auto& train = data->train_iter.dataset();
  const auto& test = data->test_iter.dataset();
  BOOST_TEST(std::count(train.labels.begin(), train.labels.end(), 0) == 3329);  // entailment
  BOOST_TEST(std::count(train.labels.begin(), train.labels.end(), 1) == 3278);  // contradiction
  BOOST_TEST(std::count(train.labels.begin(), train.labels.end(), 2) == 3235);  // neutral
  BOOST_TEST(std::count(test.labels.begin(), test.labels.end(), 0) == 3368);
  // A Python re-implementation of split_punctuation + Vocab(min_freq=5, ['<pad>']) on
  // validation.tsv gives this size.
  BOOST_TEST(data->vocab.size() == 2763);
  BOOST_TEST(data->train_iter.num_batches() == 39);  // ceil(9842 / 256)
  const auto b = data->test_iter.batch(0);
  BOOST_TEST(b.premises.size() == 256u * 50u);
  BOOST_TEST(b.labels.size() == 256u);
}

BOOST_AUTO_TEST_CASE(glove_reader_and_unknown_zeros) {
  TempDir tmp("snli");
  const std::string path =
      tmp.write("vec.txt", "the 0.5 -1 2e-1\nman 1 2 3 \r\n\ngood -0.25 0 4\n");
  const d2l::TokenEmbedding e(path);
  BOOST_TEST(e.dim() == 3);
  BOOST_TEST(e.size() == 4);  // '<unk>' + 3 tokens, as the book's len()
  BOOST_TEST(e.idx_to_token[0] == "<unk>");
  BOOST_TEST(e.token_to_idx.at("good") == 3);
  const std::vector<float> v = e.lookup({"good", "zebra", "the"});
  const std::vector<float> expect = {-0.25f, 0.0f, 4.0f, 0.0f, 0.0f, 0.0f, 0.5f, -1.0f, 0.2f};
  BOOST_TEST(v == expect, boost::test_tools::per_element());
  BOOST_TEST(e.lookup({}).empty());
  // fastText's "count dim" first line is skipped, as the book skips it.
  const d2l::TokenEmbedding f(tmp.write("ft.vec", "2 2\na 1 2\nb 3 4\n"));
  BOOST_TEST(f.size() == 3);
  BOOST_TEST(f.lookup({"b"}) == (std::vector<float>{3.0f, 4.0f}), boost::test_tools::per_element());
}

// A GloVe file with a byte-order mark and "\r\n" line ends: before the reader dropped the
// mark, the first word was "\xEF\xBB\xBFthe" and "the" looked up the '<unk>' zeros.
BOOST_AUTO_TEST_CASE(glove_byte_order_mark_and_crlf) {
  TempDir tmp("snli");
  const d2l::TokenEmbedding e(tmp.write("bom.txt", "\xEF\xBB\xBFthe 1 2\r\nman 3 4\r\n"));
  BOOST_TEST(e.idx_to_token == (std::vector<std::string>{"<unk>", "the", "man"}), boost::test_tools::per_element());
  BOOST_TEST(e.lookup({"the", "man"}) == (std::vector<float>{1, 2, 3, 4}), boost::test_tools::per_element());
  // A "count dim" header prepended to a file with a mark, or blank lines before it: the mark
  // opens the first vector line (it stuck to "the", which then looked up the zeros).
  const d2l::TokenEmbedding h(tmp.write("header.vec", "2 3\n\xEF\xBB\xBFthe 0e3 1 2\nman 3 4 5\n"));
  BOOST_TEST(h.idx_to_token == (std::vector<std::string>{"<unk>", "the", "man"}), boost::test_tools::per_element());
  BOOST_TEST(h.lookup({"the"}) == (std::vector<float>{0, 1, 2}), boost::test_tools::per_element());
  const d2l::TokenEmbedding b(tmp.write("blank.txt", "\n\xEF\xBB\xBF\n\xEF\xBB\xBFthe 1\n"));
  BOOST_TEST(b.idx_to_token == (std::vector<std::string>{"<unk>", "the"}), boost::test_tools::per_element());
  // Two marks in a row (found by fuzz_glove): both go.
  const d2l::TokenEmbedding twice(tmp.write("twice.txt", "\xEF\xBB\xBF\xEF\xBB\xBFthe 1 2\r\nman 0 2\r\n"));
  BOOST_TEST(twice.idx_to_token == (std::vector<std::string>{"<unk>", "the", "man"}), boost::test_tools::per_element());
  // Past the first vector, U+FEFF is part of a word, as in the book's reader.
  const d2l::TokenEmbedding later(tmp.write("later.txt", "a 1\n\xEF\xBB\xBF" "b 2\n"));
  BOOST_TEST(later.token_to_idx.count("\xEF\xBB\xBF" "b") == 1u);
  // A file of tabs holds no vectors: an error, not an empty table.
  BOOST_CHECK_EXCEPTION(d2l::TokenEmbedding(tmp.write("tabs.txt", "\t\t\n\t\n")), std::invalid_argument,
                        message_has({"[TokenEmbedding]", "tabs.txt", "no vectors"}));
}

BOOST_AUTO_TEST_CASE(glove_errors_name_file_and_line) {
  TempDir tmp("snli");
  struct Case {
    std::string name, text;
    std::vector<std::string> parts;
  };
  const std::vector<Case> cases = {
      {"dim.txt",
       "a 1 2 3\nb 1 2 3\nc 1 2\n",
       {"[TokenEmbedding]", "dim.txt:3:", "token 'c' has 2 values", "has 3"}},
      {"nan.txt", "a 1 2\nb 1 x2\n", {"nan.txt:2:", "value 2 of token 'b'", "'x2'"}},
      {"inf.txt", "a 1 inf\n", {"inf.txt:1:", "not a finite number"}},
      {"double.txt", "a 1  2\n", {"double.txt:1:", "not a finite number: ''"}},
      {"novec.txt", "a 1\nb\n", {"novec.txt:2:", "token 'b' has no vector"}},
      {"empty.txt", "\n\n", {"[TokenEmbedding]", "empty.txt", "no vectors"}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      BOOST_CHECK_EXCEPTION(d2l::TokenEmbedding(tmp.write(c.name, c.text)), std::invalid_argument,
                            message_has(c.parts));
    }
  }
  BOOST_CHECK_EXCEPTION(
      d2l::TokenEmbedding((tmp.path / "none.txt").string()), std::invalid_argument,
      message_has({"[TokenEmbedding]", "cannot open", "none.txt", "glove.6B.100d.zip"}));
}

BOOST_AUTO_TEST_SUITE_END()
