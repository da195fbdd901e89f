// tools/nli_set.cpp — the bundled NLI set's generator, see nli_set.h.
//
// Three kinds of pair, drawn 5 : 2 : 7:
//   people   "<subject> is <activity> <place> ."   a man is playing soccer in the park .
//   animals  the same with animal subjects          a brown dog is chasing a ball on the grass .
//   traits   "<subject> is <adjective> ."           he is very good . / she is rich and tall .
// Each hypothesis follows one of the rules SNLI's annotators mostly used:
//   entailment     a hypernym (a man -> a person), a more general activity (playing soccer
//                  -> playing a sport), a detail dropped (very good -> good, rich and tall
//                  -> tall);
//   neutral        something the premise does not say: an adjective (a tired man), a fact
//                  (is wearing a hat), a purpose or company (to win a prize), another trait
//                  (very good -> rich);
//   contradiction  negation (is not, nobody), an incompatible activity (sleeping), another
//                  subject (a man -> a woman), the opposite adjective (good -> bad).
// Besides the word vectors (below), three choices make the set learnable by the book's model
// in its four epochs, and its answer for the book's example meaningful:
//  - contradicting hypotheses keep the premise's place or length, neutral ones drop the
//    place, entailed ones are the shortest. With <pad> unmasked (the book's model), the
//    number of pads is a feature, and predict_snli feeds sentences without any pad; a model
//    trained where longer hypotheses lean to contradiction carries that to the unpadded
//    "he is bad .". SNLI has such a length bias too (its neutral hypotheses are longer).
//  - among trait pairs, a hypothesis as long as its premise with another adjective is always
//    the opposite one ("she is rich ." -> "she is poor ."); other adjectives come with a
//    shortened hypothesis (neutral "she is very rich ." -> "she is tall .").
//  - subjects never turn into pronouns (the man -> he), so no pair teaches "he" to align
//    with another word.
// Word vectors: each token's 100 numbers are 0.525 * (class code + word code), both random
// ±1 codes: one shared by the token's word class in the lexicon (trait adjective, person,
// animal, activity, place, detail, function word), one its own. Tokens of one class start
// with cosine about 1/2 (good near bad), others near 0, as related words lie close in GloVe.
// Everything is lower case and tokenised as the book's SNLI sentences are: words and the
// final "." separated by single spaces.
#include "tools/programs/nli_set/nli_set.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "core/shape.h"  // check
#include "tools/d2l/data/text.h"

namespace d2l {

namespace {

// splitmix64: a tiny generator of our own, so the files never change when the engine's
// random generator does.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) (the modulo bias is below 1e-17 for these n).
  size_t below(size_t n) { return static_cast<size_t>(next() % n); }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }
  // Index i with probability weights[i] / sum(weights).
  size_t weighted(const std::vector<int>& weights) {
    int total = 0;
    for (int w : weights) total += w;
    int r = static_cast<int>(below(static_cast<size_t>(total)));
    size_t i = 0;
    while ((r -= weights[i]) >= 0) ++i;
    return i;
  }

 private:
  uint64_t state_;
};

// A subject ("a" + "man"), its hypernym, and the subject a contradiction puts in its place.
struct Subject {
  std::string det, noun, hypernym, other;
  bool plural;
  std::string np() const { return det + " " + noun; }
  std::string be() const { return plural ? "are" : "is"; }
  // With an adjective the premise does not give: "a tired man", "two tired men".
  std::string np_with(const std::string& adj) const { return (det == "an" ? "a" : det) + " " + adj + " " + noun; }
};

// An activity, a more general one, one that cannot happen at the same time, and places.
struct Activity {
  std::string phrase, general, incompatible;
  std::vector<std::string> places;
};

// A neutral fact in the singular and the plural.
struct Fact {
  std::string singular, plural;
};

// One kind of scene: its subjects, activities and the neutral additions that suit them.
struct Scene {
  std::vector<Subject> subjects;
  std::vector<Activity> activities;
  std::vector<std::string> adjectives, details;
  std::vector<Fact> facts;
  std::string nobody;
};

const Scene& people() {
  static const Scene s = {
      {{"a", "man", "a person", "a woman", false},
       {"a", "woman", "a person", "a man", false},
       {"a", "boy", "a child", "a girl", false},
       {"a", "girl", "a child", "a boy", false},
       {"an", "old man", "a man", "a young woman", false},
       {"a", "young woman", "a woman", "an old man", false},
       {"a", "little boy", "a boy", "a little girl", false},
       {"a", "little girl", "a girl", "a little boy", false},
       {"two", "men", "two people", "two women", true},
       {"two", "women", "two people", "two men", true},
       {"three", "children", "some children", "three adults", true}},
      {{"playing soccer", "playing a sport", "sleeping", {"in the park", "on a field", "on the beach"}},
       {"playing tennis", "playing a sport", "sleeping", {"in the park", "on a field"}},
       {"riding a bike", "riding", "sitting on a chair", {"in the street", "in the park", "on a mountain"}},
       {"running a race", "running", "sleeping", {"in the street", "in the park", "on the beach"}},
       {"climbing a rock", "climbing", "sleeping", {"on a mountain", "in the park"}},
       {"eating pizza", "eating", "sleeping", {"in a restaurant", "in the kitchen", "in the park"}},
       {"cooking dinner", "making food", "sleeping", {"in the kitchen", "in the house"}},
       {"reading a book", "reading", "playing soccer", {"in a library", "in the park", "on the couch"}},
       {"playing the guitar", "playing music", "sleeping", {"in the street", "in a small room", "in the park"}},
       {"drinking coffee", "drinking", "sleeping", {"in a cafe", "in the kitchen", "in a restaurant"}},
       {"throwing a ball", "playing", "sleeping", {"in the park", "on the beach", "on the grass"}},
       {"building a snowman", "playing", "sleeping", {"in the snow"}}},
      {"tired", "happy", "tall", "young", "famous"},
      {"with a friend", "with friends", "for fun", "for the first time", "before dinner", "to win a prize"},
      {{"is wearing a hat", "are wearing hats"},
       {"is waiting for a friend", "are waiting for a friend"},
       {"is talking on the phone", "are talking on the phone"},
       {"is very tired", "are very tired"}},
      "nobody",
  };
  return s;
}

const Scene& animals() {
  static const Scene s = {
      {{"a", "dog", "an animal", "a cat", false},
       {"a", "brown dog", "a dog", "a black cat", false},
       {"a", "cat", "an animal", "a dog", false},
       {"a", "black cat", "a cat", "a brown dog", false},
       {"a", "white horse", "a horse", "a brown dog", false},
       {"a", "puppy", "a dog", "a cat", false},
       {"two", "dogs", "two animals", "two cats", true}},
      {{"chasing a ball", "playing", "sleeping", {"on the grass", "in the park", "on the beach"}},
       {"sleeping", "resting", "running", {"on the couch", "in the house", "on the grass"}},
       {"jumping over a fence", "jumping", "sleeping", {"in the park", "on a field"}},
       {"eating from a bowl", "eating", "sleeping", {"in the kitchen", "in the house"}},
       {"running", "moving", "sleeping", {"in the snow", "on the beach", "on a field"}}},
      {"happy", "tired", "small", "big"},
      {"for fun", "in the morning", "with its owner", "after a walk"},
      {{"is very old", "are very old"}, {"is hungry", "are hungry"}, {"is wet", "are wet"}, {"is very big", "are very big"}},
      "no animal",
  };
  return s;
}

// Opposite adjectives of the traits pairs, and the subjects they describe.
const std::vector<std::pair<std::string, std::string>> kOpposites = {
    {"good", "bad"},  {"happy", "sad"},  {"tall", "short"}, {"young", "old"},
    {"rich", "poor"}, {"strong", "weak"}, {"fast", "slow"}, {"clean", "dirty"}};
const std::vector<std::string> kTraitSubjects = {"he",      "she",       "the man",   "the woman",  "the boy",
                                                 "the girl", "my friend", "the child", "the teacher", "the driver"};

struct Pair {
  std::string premise, hypothesis;
};

// A people or animal scene and a hypothesis with `label` (0 entailment, 1 neutral,
// 2 contradiction). An empty pair means "draw again".
Pair scene(Rng& rng, const Scene& scene, int label) {
  const Subject& s = rng.pick(scene.subjects);
  const Activity& a = rng.pick(scene.activities);
  const std::string& place = rng.pick(a.places);
  const std::string be = " " + s.be() + " ";
  const std::string premise = s.np() + be + a.phrase + " " + place;
  std::string h;
  if (label == 0) {
    switch (rng.weighted({3, 3, 2})) {
      case 0: h = s.hypernym + be + a.phrase; break;
      case 1: h = s.np() + be + a.general; break;
      default: h = s.hypernym + be + a.general; break;
    }
  } else if (label == 1) {
    switch (rng.weighted({3, 2, 2})) {
      case 0: {
        const std::string& adj = rng.pick(scene.adjectives);
        if (s.noun.find(adj) != std::string::npos) return {};  // no "a young young woman"
        h = s.np_with(adj) + be + a.phrase;
        break;
      }
      case 1: {
        const Fact& f = rng.pick(scene.facts);
        h = s.np() + " " + (s.plural ? f.plural : f.singular);
        break;
      }
      default: h = s.np() + be + a.phrase + " " + rng.pick(scene.details); break;
    }
  } else {
    switch (rng.weighted({3, 2, 2, 2})) {
      case 0: h = s.np() + be + "not " + a.phrase + " " + place; break;
      case 1: h = scene.nobody + " is " + a.phrase + " " + place; break;
      case 2: h = s.np() + be + a.incompatible + " " + place; break;
      default: h = s.other + " " + s.be() + " " + a.phrase + " " + place; break;
    }
  }
  return {premise + " .", h + " ."};
}

// "he is very good ." and its relatives.
Pair traits(Rng& rng, int label) {
  const std::string s = rng.pick(kTraitSubjects) + " is ";
  const size_t i = rng.below(kOpposites.size());
  const bool flip = rng.below(2) == 1;
  const std::string& adj = flip ? kOpposites[i].second : kOpposites[i].first;
  const std::string& opposite = flip ? kOpposites[i].first : kOpposites[i].second;
  // Adjectives of two other pairs: neither implied nor excluded by adj, nor by each other.
  std::vector<size_t> rest;
  for (size_t x = 0; x < kOpposites.size(); ++x)
    if (x != i) rest.push_back(x);
  const size_t k = rest[rng.below(rest.size())];
  rest.erase(std::find(rest.begin(), rest.end(), k));
  const size_t j = rest[rng.below(rest.size())];
  const std::string& other = rng.below(2) ? kOpposites[k].first : kOpposites[k].second;
  const std::string& third = rng.below(2) ? kOpposites[j].first : kOpposites[j].second;
  std::string premise, h;
  if (label == 0) {
    if (rng.below(2)) premise = s + "very " + adj, h = s + adj;
    else premise = s + adj + " and " + other, h = s + (rng.below(2) ? adj : other);
  } else if (label == 1) {
    if (rng.below(2)) premise = s + "very " + adj, h = s + other;
    else premise = s + adj + " and " + other, h = s + third;
  } else {
    switch (rng.weighted({1, 2, 2, 1})) {
      case 0: premise = s + adj, h = s + opposite; break;
      case 1: premise = s + adj, h = s + "not " + adj; break;
      case 2: premise = s + adj, h = s + "very " + opposite; break;
      default: premise = s + "very " + adj, h = s + "very " + opposite; break;
    }
  }
  return {premise + " .", h + " ."};
}

// Word class of every token the lexicon can produce: the first class whose phrases hold it.
std::map<std::string, int> word_classes() {
  std::vector<std::vector<std::string>> classes(7);
  classes[0] = {"a", "an", "the", "is", "are", ".", "not", "nobody", "no", "very", "and", "with", "for",
                "to", "in", "on", "at", "from", "over", "before", "after", "its", "my", "two", "three", "some"};
  for (const auto& [x, y] : kOpposites) classes[1].insert(classes[1].end(), {x, y});
  classes[2] = kTraitSubjects;
  for (int c = 2; c <= 3; ++c)
    for (const Subject& s : (c == 2 ? people() : animals()).subjects)
      classes[c].insert(classes[c].end(), {s.noun, s.hypernym, s.other});
  for (const Scene* sc : {&people(), &animals()}) {
    for (const Activity& a : sc->activities) {
      classes[4].insert(classes[4].end(), {a.phrase, a.general, a.incompatible});
      classes[5].insert(classes[5].end(), a.places.begin(), a.places.end());
    }
    classes[6].insert(classes[6].end(), sc->adjectives.begin(), sc->adjectives.end());
    classes[6].insert(classes[6].end(), sc->details.begin(), sc->details.end());
    for (const Fact& f : sc->facts) classes[6].insert(classes[6].end(), {f.singular, f.plural});
  }
  std::map<std::string, int> cls;
  for (int c = 0; c < static_cast<int>(classes.size()); ++c)
    for (const std::string& phrase : classes[c])
      for (const std::string& w : split(phrase)) cls.emplace(w, c);  // keeps the first class
  return cls;
}

// "token v1 ... v100" for each token, v_k = 0.525 * (class code_k + word code_k), written
// from integers: each value is -1.05, 0.00 or 1.05.
std::string word_vectors(const std::set<std::string>& tokens, Rng& rng) {
  const int64_t dim = 100;
  auto code = [&] {
    std::vector<int> c(dim);
    for (int& x : c) x = rng.below(2) ? 1 : -1;
    return c;
  };
  std::vector<std::vector<int>> class_code(7);
  for (auto& c : class_code) c = code();
  const std::map<std::string, int> cls = word_classes();
  std::string out;
  for (const std::string& t : tokens) {
    const auto it = cls.find(t);
    check(it != cls.end(), "generate_nli_set", "token '", t, "' has no word class in the lexicon");
    const std::vector<int> own = code();
    out += t;
    for (int64_t k = 0; k < dim; ++k) {
      const int v = class_code[static_cast<size_t>(it->second)][static_cast<size_t>(k)] + own[static_cast<size_t>(k)];
      out += v > 0 ? " 1.05" : v < 0 ? " -1.05" : " 0.00";
    }
    out += "\n";
  }
  return out;
}

}  // namespace

NliSetFiles generate_nli_set(const NliSetOptions& options) {
  check(options.train_per_label > 0 && options.test_per_label > 0, "generate_nli_set",
        "pairs per label must be positive, got ", options.train_per_label, " and ", options.test_per_label);
  Rng rng(options.seed);
  std::set<std::pair<std::string, std::string>> seen;
  // The book's own example stays out of both splits, so predicting it is a real test.
  seen.insert({"he is good .", "he is bad ."});
  std::set<std::string> tokens;
  auto make_split = [&](int64_t per_label) {
    std::vector<std::pair<Pair, int>> rows;
    for (int64_t n = 0; n < per_label; ++n)
      for (int label = 0; label < 3; ++label)
        for (int attempt = 0;; ++attempt) {
          check(attempt < 100000, "generate_nli_set", "the lexicon cannot give ", per_label,
                " distinct pairs per label");
          const size_t kind = rng.weighted({5, 2, 7});
          const Pair p = kind == 0 ? scene(rng, people(), label)
                         : kind == 1 ? scene(rng, animals(), label)
                                     : traits(rng, label);
          if (p.premise.empty() || p.premise == p.hypothesis || !seen.insert({p.premise, p.hypothesis}).second) continue;
          rows.push_back({p, label});
          break;
        }
    // Fisher-Yates, so the labels do not come in a fixed cycle.
    for (size_t i = rows.size() - 1; i > 0; --i) std::swap(rows[i], rows[rng.below(i + 1)]);
    std::string tsv = "premise\thypothesis\tlabel\n";
    for (const auto& [p, label] : rows) {
      tsv += p.premise + "\t" + p.hypothesis + "\t" + std::to_string(label) + "\n";
      for (const std::string& s : {p.premise, p.hypothesis})
        for (const std::string& w : split(s)) tokens.insert(w);
    }
    return tsv;
  };
  NliSetFiles files;
  files.train_tsv = make_split(options.train_per_label);
  files.test_tsv = make_split(options.test_per_label);
  files.vectors_txt = word_vectors(tokens, rng);
  return files;
}

}  // namespace d2l
