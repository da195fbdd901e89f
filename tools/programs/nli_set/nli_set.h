// tools/nli_set.h — the generator of the small NLI set bundled in chapters/data/snli-small/,
// which sections 15.4 and 15.5 (sec_natural-language-inference-and-dataset,
// sec_natural-language-inference-attention) read when the SNLI corpus is not there.
//
// SNLI's premises describe a scene ("a man is playing soccer in the park ."), its hypotheses
// follow from it (entailment), contradict it, or add what it does not say (neutral). The
// generator writes sentences of that kind from a small hand-written lexicon and fixed rules
// (see nli_set.cpp), and 100-d word vectors for them in GloVe's text format, which the
// chapter loads as the book loads GloVe. Integer arithmetic only, with its own random
// generator: the same options give the same bytes on every machine, so the committed files
// can be checked against it.
#pragma once
#include <cstdint>
#include <string>

namespace d2l {

struct NliSetOptions {
  int64_t train_per_label = 2000;  // pairs per label in train.tsv
  int64_t test_per_label = 150;    // pairs per label in test.tsv
  uint64_t seed = 15;              // the section number, nothing more
};

// train_tsv / test_tsv: the simple SNLI export's layout (header
// premise<TAB>hypothesis<TAB>label; labels 0 entailment, 1 neutral, 2 contradiction), each
// split exactly balanced, no premise-hypothesis pair in both splits, and the book's example
// ("he is good ." / "he is bad .") in neither.
// vectors_txt: one line "token v1 ... v100" for every token of both splits, sorted.
struct NliSetFiles {
  std::string train_tsv, test_tsv, vectors_txt;
};
NliSetFiles generate_nli_set(const NliSetOptions& options = {});

}  // namespace d2l
