// tools/programs/book/catalog.cpp — the sections and exercises the pages accompany (catalog.h).
// The exercises come from the programs (--list-exercises); the questions here are the book's
// exercises said in one line each; the data notes say what the small corpora bundled in
// chapters/data/ (chapters/data/README.md) can and cannot show.
#include "tools/programs/book/catalog.h"

#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>

namespace d2l::book {

namespace fs = std::filesystem;

namespace {
const char* const kZh = "https://zh.d2l.ai/chapter_attention-mechanisms/";

// The bundled fra-eng corpus, for the exercises that train a translation model on it.
const char* const kFraEng =
    "Trained on the small fra-eng corpus bundled in chapters/data/ (short sentences written so that the "
    "book's four test sentences can be learned): it shows whether a variant still learns them and how its "
    "loss and speed compare, not how it generalises; BLEU over the first 100 pairs scores sentences the "
    "model was trained on. For the book's corpus: `make data`, then the same command.";
// The bundled NLI set, for the 15.5 exercises.
const char* const kSnli =
    "Trained on the bundled NLI set (chapters/data/snli-small: sentences made from a small lexicon by fixed "
    "rules, fewer than 150 distinct words). A word outside them, such as \"bites\" or "
    "\"holding\", is read as <unk>, so a sentence built from such words says little to the model; no "
    "training pair has a hypothesis identical to its premise, so the model has never seen that case and its "
    "answer for it is not a finding. For SNLI and GloVe as the book uses them: `make data`, then the same "
    "command.";
}  // namespace

const std::vector<SectionInfo>& sections() {
  static const std::vector<SectionInfo> s = {
      {"attention_cues", "10.1", "\xE6\xB3\xA8\xE6\x84\x8F\xE5\x8A\x9B\xE6\x8F\x90\xE7\xA4\xBA", "Attention Cues",
       std::string(kZh) + "attention-cues.html"},
      {"nadaraya_watson", "10.2",
       "\xE6\xB3\xA8\xE6\x84\x8F\xE5\x8A\x9B\xE6\xB1\x87\xE8\x81\x9A\xEF\xBC\x9A" "Nadaraya-Watson "
       "\xE6\xA0\xB8\xE5\x9B\x9E\xE5\xBD\x92",
       "Attention Pooling: Nadaraya-Watson Kernel Regression", std::string(kZh) + "nadaraya-waston.html"},
      {"attention_scoring_functions", "10.3", "\xE6\xB3\xA8\xE6\x84\x8F\xE5\x8A\x9B\xE8\xAF\x84\xE5\x88\x86\xE5\x87\xBD\xE6\x95\xB0",
       "Attention Scoring Functions", std::string(kZh) + "attention-scoring-functions.html"},
      {"bahdanau_attention", "10.4", "Bahdanau \xE6\xB3\xA8\xE6\x84\x8F\xE5\x8A\x9B", "Bahdanau Attention",
       std::string(kZh) + "bahdanau-attention.html"},
      {"multihead_attention", "10.5", "\xE5\xA4\x9A\xE5\xA4\xB4\xE6\xB3\xA8\xE6\x84\x8F\xE5\x8A\x9B",
       "Multi-Head Attention", std::string(kZh) + "multihead-attention.html"},
      {"self_attention_and_positional_encoding", "10.6",
       "\xE8\x87\xAA\xE6\xB3\xA8\xE6\x84\x8F\xE5\x8A\x9B\xE5\x92\x8C\xE4\xBD\x8D\xE7\xBD\xAE\xE7\xBC\x96\xE7\xA0\x81",
       "Self-Attention and Positional Encoding", std::string(kZh) + "self-attention-and-positional-encoding.html"},
      {"transformer", "10.7", "Transformer", "Transformer", std::string(kZh) + "transformer.html"},
      {"natural_language_inference_attention", "15.5",
       "\xE8\x87\xAA\xE7\x84\xB6\xE8\xAF\xAD\xE8\xA8\x80\xE6\x8E\xA8\xE6\x96\xAD\xEF\xBC\x9A\xE4\xBD\xBF\xE7\x94\xA8"
       "\xE6\xB3\xA8\xE6\x84\x8F\xE5\x8A\x9B",
       "Natural Language Inference: Using Attention",
       "https://zh.d2l.ai/chapter_natural-language-processing-applications/natural-language-inference-attention.html"},
  };
  return s;
}

namespace {

// What the pages add to a registered exercise: the book's question in one line, arguments the
// page's run adds to the program's command, and a note on what the run can show.
struct Annotation {
  std::string section;
  int number;
  std::string question, extra_args, note;
};

const std::vector<Annotation>& annotations() {
  static const std::vector<Annotation> a = {
      {"10.1", 1, "In machine translation, which are the volitional and which the nonvolitional cues?", "", kFraEng},
      {"10.1", 2, "Do the row-wise softmax of a random matrix look like attention weights?", "", ""},
      {"10.2", 1, "What changes with more training points?", "--n-train 500", ""},
      {"10.2", 2, "What w does training learn, and why does it make the attention weights sharper?", "", ""},
      {"10.2", 3, "How would you choose the kernel's width (a hyper-parameter) for non-parametric pooling?", "", ""},
      {"10.2", 4, "Design, train and draw another parametric attention pooling.", "", ""},
      {"10.3", 1, "With keys that are not all equal, do additive and dot-product attention still agree?", "", ""},
      {"10.3", 2, "A score for queries and keys of different lengths, from matrix products alone.", "", ""},
      {"10.3", 3, "When queries and keys have one length, is the sum q + k a good score?", "", ""},
      {"10.4", 1, "Replace the GRU with an LSTM: what changes?", "", kFraEng},
      {"10.4", 2, "Score with scaled dot product instead of additive attention: does it train faster?", "", kFraEng},
      {"10.5", 1, "Draw each head's attention weights: do the heads differ?", "", ""},
      {"10.5", 2, "Which heads of a trained model matter? Mask one head at a time.", "", kFraEng},
      {"10.6", 1, "What goes wrong when self-attention layers with positional encoding are stacked deep?", "", ""},
      {"10.6", 2, "A positional encoding that is learned: what does it learn?", "", kFraEng},
      {"10.7", 1, "Deeper: the Transformer with 4 blocks each side instead of the book's 2.", "", kFraEng},
      {"10.7", 2, "Additive attention instead of scaled dot product in the Transformer.", "", kFraEng},
      {"10.7", 3, "For language modelling, the encoder or the decoder?", "",
       "Trained on the English side of the bundled fra-eng corpus: enough to show what the causal mask does "
       "(compare the two models' perplexities and texts), far too little for fluent text. For the book's "
       "corpus: `make data`, then the same command."},
      {"10.7", 4, "What does self-attention cost as the input grows longer?", "", ""},
      {"10.7", 5, "Attention that needs less memory: how much less, at what speed?", "",
       "The answer is in that run's rows marked `efficient` and its closing \"memory-efficient / plain\" lines: "
       "the same outputs and gradients as the plain layer (the suite checks them), peak memory that grows as n "
       "instead of n\xC2\xB2."},
      {"10.7", 6, "A Transformer for images.", "",
       "Images of four shapes drawn by the program itself (no data set is downloaded): they show that patches, "
       "a class token and the encoder learn to classify, not how a ViT does on real photographs."},
      {"15.5", 1, "Other hyper-parameters: what test accuracy do they give?", "", kSnli},
      {"15.5", 2, "What is the model's main drawback?", "", kSnli},
      {"15.5", 3, "How would you get a graded similarity between 0 and 1 for any two sentences?", "", kSnli},
  };
  return a;
}

// s for a POSIX shell, as one word: in single quotes, each ' written as '\''.
std::string shell_word(const std::string& s) {
  std::string w = "'";
  for (char c : s) w += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return w + "'";
}

// `program --list-exercises`: "N<TAB>what<TAB>command" lines (tools/d2l/cli/exercises.h); a
// program without an exercise file refuses the option, and has none.
std::vector<std::vector<std::string>> listed_exercises(const std::string& path) {
  const std::string cmd = shell_word(path) + " --list-exercises 2>&1 </dev/null";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) throw std::runtime_error("book: cannot run " + cmd);
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  const int status = pclose(pipe);
  if (status != 0 && out.find("unknown option --list-exercises") != std::string::npos) return {};
  if (status != 0)
    throw std::runtime_error("book: `" + cmd + "` failed (status " + std::to_string(status) + "): " +
                             out.substr(0, 300) + " (make chapters builds the programs)");
  std::vector<std::vector<std::string>> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields;
    for (size_t a = 0, b; a <= line.size(); a = b + 1) {
      b = std::min(line.find('\t', a), line.size());
      fields.push_back(line.substr(a, b - a));
    }
    if (fields.size() != 3 || fields[0].empty() || fields[0].find_first_not_of("0123456789") != std::string::npos ||
        fields[2].rfind("build/chapters/", 0) != 0)
      throw std::runtime_error("book: " + path + " --list-exercises printed \"" + line.substr(0, 200) +
                               "\", not \"N<TAB>question<TAB>build/chapters/<program> ...\"");
    lines.push_back(std::move(fields));
  }
  return lines;
}

}  // namespace

std::string default_programs_dir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("build/chapters") : (self.parent_path().parent_path() / "chapters").string();
}

std::vector<ExerciseInfo> exercises(const std::string& programs) {
  std::vector<ExerciseInfo> all;
  std::set<std::pair<std::string, int>> described;
  for (const SectionInfo& s : sections())
    for (const std::vector<std::string>& f : listed_exercises((fs::path(programs) / s.program).string())) {
      const int number = std::stoi(f[0]);
      // "build/chapters/<program> <args>": the program and its arguments.
      const std::string command = f[2].substr(std::string("build/chapters/").size());
      const size_t space = command.find(' ');
      const std::string program = command.substr(0, space);
      std::string args = space == std::string::npos ? "" : command.substr(space + 1);
      std::string question = f[1], note;
      for (const Annotation& a : annotations())
        if (a.section == s.number && a.number == number) {
          question = a.question;
          note = a.note;
          if (!a.extra_args.empty()) args += (args.empty() ? "" : " ") + a.extra_args;
          described.insert({a.section, a.number});
        }
      int same = 0;  // an earlier exercise of the section with the same command answers this one too
      for (const ExerciseInfo& e : all)
        if (!same && e.section == s.number && e.program == program && e.args == args && e.same_run_as == 0)
          same = e.number;
      all.emplace_back(s.number, number, question, program, args, same, note);
    }
  for (const Annotation& a : annotations())
    if (!described.count({a.section, a.number}))
      throw std::runtime_error("book: tools/programs/book/catalog.cpp describes exercise " + std::to_string(a.number) +
                               " of " + a.section + ", which no section's program lists (--list-exercises in " +
                               programs + ")");
  return all;
}

}  // namespace d2l::book
