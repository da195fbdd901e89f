// tools/programs/book/catalog.cpp — the sections and exercises the pages accompany (catalog.h).
// The questions are the book's exercises said in one line each; the data notes say what the
// small corpora bundled in chapters/data/ (chapters/data/README.md) can and cannot show.
#include "tools/programs/book/catalog.h"

namespace d2l::book {

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

const std::vector<ExerciseInfo>& exercises() {
  static const std::vector<ExerciseInfo> e = {
      {"10.1", 1, "In machine translation, which are the volitional and which the nonvolitional cues?",
       "bahdanau_attention", "--cues", 0, kFraEng},
      {"10.1", 2, "Do the row-wise softmax of a random matrix look like attention weights?", "attention_cues",
       "--ex 2"},
      {"10.2", 1, "What changes with more training points?", "nadaraya_watson", "--ex 1 --n-train 500"},
      {"10.2", 2, "What w does training learn, and why does it make the attention weights sharper?",
       "nadaraya_watson", "--ex 2"},
      {"10.2", 3, "How would you choose the kernel's width (a hyper-parameter) for non-parametric pooling?",
       "nadaraya_watson", "--ex 3"},
      {"10.2", 4, "Design, train and draw another parametric attention pooling.", "nadaraya_watson", "--ex 4"},
      {"10.3", 1, "With keys that are not all equal, do additive and dot-product attention still agree?",
       "attention_scoring_functions", "--ex 1"},
      {"10.3", 2, "A score for queries and keys of different lengths, from matrix products alone.",
       "attention_scoring_functions", "--ex 2"},
      {"10.3", 3, "When queries and keys have one length, is the sum q + k a good score?",
       "attention_scoring_functions", "--ex 3"},
      {"10.4", 1, "Replace the GRU with an LSTM: what changes?", "bahdanau_attention", "--rnn lstm", 0, kFraEng},
      {"10.4", 2, "Score with scaled dot product instead of additive attention: does it train faster?",
       "bahdanau_attention", "--scoring dot", 0, kFraEng},
      {"10.5", 1, "Draw each head's attention weights: do the heads differ?", "multihead_attention", "--ex 1"},
      {"10.5", 2, "Which heads of a trained model matter? Mask one head at a time.", "transformer",
       "--head-importance", 0, kFraEng},
      {"10.6", 1, "What goes wrong when self-attention layers with positional encoding are stacked deep?",
       "self_attention_and_positional_encoding", "--ex 1"},
      {"10.6", 2, "A positional encoding that is learned: what does it learn?", "transformer", "--pe learned", 0,
       kFraEng},
      {"10.7", 1, "Deeper: the Transformer with 4 blocks each side instead of the book's 2.", "transformer",
       "--num-layers 4", 0, kFraEng},
      {"10.7", 2, "Additive attention instead of scaled dot product in the Transformer.", "transformer",
       "--scoring additive", 0, kFraEng},
      {"10.7", 3, "For language modelling, the encoder or the decoder?", "transformer_lm", "", 0,
       "Trained on the English side of the bundled fra-eng corpus: enough to show what the causal mask does "
       "(compare the two models' perplexities and texts), far too little for fluent text. For the book's "
       "corpus: `make data`, then the same command."},
      {"10.7", 4, "What does self-attention cost as the input grows longer?", "attention_cost", ""},
      {"10.7", 5, "Attention that needs less memory: how much less, at what speed?", "attention_cost", "", 4,
       "The answer is in that run's rows marked `efficient` and its closing \"memory-efficient / plain\" lines: "
       "the same outputs and gradients as the plain layer (the suite checks them), peak memory that grows as n "
       "instead of n\xC2\xB2."},
      {"10.7", 6, "A Transformer for images.", "vision_transformer", "", 0,
       "Images of four shapes drawn by the program itself (no data set is downloaded): they show that patches, "
       "a class token and the encoder learn to classify, not how a ViT does on real photographs."},
      {"15.5", 1, "Other hyper-parameters: what test accuracy do they give?", "natural_language_inference_attention",
       "--grid", 0, kSnli},
      {"15.5", 2, "What is the model's main drawback?", "natural_language_inference_attention", "--ex 2", 0, kSnli},
      {"15.5", 3, "How would you get a graded similarity between 0 and 1 for any two sentences?",
       "natural_language_inference_attention", "--ex 3", 0, kSnli},
  };
  return e;
}

}  // namespace d2l::book
