// layers/natural_language_inference_attention.h — 15.5 自然语言推断：使用注意力 / Natural
// Language Inference: Using Attention (sec_natural-language-inference-attention).
//
// The decomposable attention model (Parikh et al., 2016): no recurrent or convolutional layer,
// only MLPs applied to each token on its own and a soft alignment between the two sentences.
//   attend    e_ij = f(a_i)ᵀ f(b_j)  (eq_nli_e); β_i = Σ_j softmax_j(e_ij) b_j,
//             α_j = Σ_i softmax_i(e_ij) a_i
//   compare   v_A,i = g([a_i, β_i]),  v_B,j = g([b_j, α_j])  (eq_nli_v_ab)
//   aggregate ŷ = h([Σ_i v_A,i, Σ_j v_B,j]), then a Linear to the 3 classes
// Applying f to a_i and b_j separately (the "decomposition") costs m + n MLP evaluations
// instead of m·n.
//
// <pad>: the book feeds sentences padded to num_steps = 50 and masks nothing, so every pad
// token takes part in the softmax over the other sentence and in the sums over positions.
// Attend and Aggregate take optional true lengths for a model that masks them
// (layers/exercises/natural_language_inference_attention.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/nn/basic.h"
#include "core/nn/container.h"
#include "core/nn/layer.h"
#include "tools/d2l/data/vocab.h"

namespace d2l {

// The book's mlp(num_inputs, num_hiddens, flatten): Dropout(0.2), Linear(num_inputs,
// num_hiddens), ReLU, Dropout(0.2), Linear(num_hiddens, num_hiddens), ReLU. With flatten, an
// nn.Flatten(start_dim=1) follows each ReLU (Aggregate's h; a no-op on its 2-D input).
//   x (..., num_inputs) -> (..., num_hiddens); flatten: (batch_size, ...) -> (batch_size, -1)
// Every layer is registered under its nn.Sequential index (the Linears "1" and "4", or "1"
// and "5" with flatten), so parameter names match the PyTorch model's state_dict and the
// model prints as the book's nn.Sequential.
class mlp : public Layer<mlp, Sequential> {
 public:
  static constexpr const char* section = "15.5 mlp";
  mlp(int64_t num_inputs, int64_t num_hiddens, bool flatten);
  std::string type_name() const override { return "Sequential"; }  // the book returns nn.Sequential

  bool flatten;
  Linear *linear1, *linear2;  // (num_hiddens, num_inputs), (num_hiddens, num_hiddens)
};

// Step 1, attending: soft alignment of each sentence to every token of the other.
//   A (batch_size, m, embed_size) premises; B (batch_size, n, embed_size) hypotheses
//   valid_lens_A/_B: undefined (the book: nothing masked) or (batch_size,) true lengths
//   -> beta (batch_size, m, embed_size): B softly aligned to each token of A
//      alpha (batch_size, n, embed_size): A softly aligned to each token of B
class Attend : public Layer<Attend> {
 public:
  static constexpr const char* section = "15.5 Attend";
  Attend(int64_t num_inputs, int64_t num_hiddens);
  struct Output {
    Tensor beta, alpha;
  };
  Output forward(const Tensor& A, const Tensor& B, const Tensor& valid_lens_A = Tensor(),
                 const Tensor& valid_lens_B = Tensor());

  mlp& f;
  // The last forward's alignment weights, for heatmaps (their graph is freed by backward):
  Tensor beta_weights;   // softmax over j of e: (batch_size, m, n); row i sums to 1
  Tensor alpha_weights;  // softmax over i of e, stored transposed: (batch_size, n, m)
};

// Step 2, comparing: each token beside what it was aligned with, through the MLP g.
//   A (batch_size, m, embed_size), beta (batch_size, m, embed_size)
//   B (batch_size, n, embed_size), alpha (batch_size, n, embed_size)
//   -> V_A (batch_size, m, num_hiddens), V_B (batch_size, n, num_hiddens)
class Compare : public Layer<Compare> {
 public:
  static constexpr const char* section = "15.5 Compare";
  Compare(int64_t num_inputs, int64_t num_hiddens);  // num_inputs = 2 * embed_size
  struct Output {
    Tensor V_A, V_B;
  };
  Output forward(const Tensor& A, const Tensor& B, const Tensor& beta, const Tensor& alpha) const;

  mlp& g;
};

// Step 3, aggregating: sum each set of comparison vectors over its positions, concatenate,
// classify with the MLP h and a Linear.
//   V_A (batch_size, m, num_hiddens), V_B (batch_size, n, num_hiddens)
//   valid_lens_A/_B: undefined (sum every position, the book) or (batch_size,): sum only
//   positions < length   -> Y_hat (batch_size, num_outputs), unnormalised scores
class Aggregate : public Layer<Aggregate> {
 public:
  static constexpr const char* section = "15.5 Aggregate";
  Aggregate(int64_t num_inputs, int64_t num_hiddens, int64_t num_outputs);  // num_inputs = 2 * num_hiddens
  Tensor forward(const Tensor& V_A, const Tensor& V_B, const Tensor& valid_lens_A = Tensor(),
                 const Tensor& valid_lens_B = Tensor()) const;

  mlp& h;
  Linear& linear;  // (num_outputs, num_hiddens)
};

// The whole model. premises (batch_size, m), hypotheses (batch_size, n): token indices (as
// floats, like every index tensor here) -> Y_hat (batch_size, 3): entailment, contradiction,
// neutral. The book passes the vocabulary and reads len(vocab); here the caller passes
// vocab_size = len(vocab) (the data side, Vocab and GloVe, stays in tools/).
class DecomposableAttention : public Layer<DecomposableAttention> {
 public:
  static constexpr const char* section = "15.5 DecomposableAttention";
  // num_outputs: the book's 3 classes; exercise 3's DecomposableSimilarity asks for 1.
  DecomposableAttention(int64_t vocab_size, int64_t embed_size, int64_t num_hiddens, int64_t num_inputs_attend = 100,
                        int64_t num_inputs_compare = 200, int64_t num_inputs_agg = 400, int64_t num_outputs = 3);
  virtual Tensor forward(const Tensor& premises, const Tensor& hypotheses);  // a variant may mask the pads
  // premises (batch_size, m) and hypotheses (batch_size, n) of ids, or an error naming both.
  static void check_inputs(const Tensor& premises, const Tensor& hypotheses);

  Embedding& embedding;
  Attend& attend;
  Compare& compare;
  Aggregate& aggregate;
};

// The book's predict_snli: eval mode (as the book, the net stays in it), no graph; premise
// and hypothesis are tokens, unpadded, mapped to ids by the vocabulary
// (tools/d2l/data/vocab.h) before the model sees them. Returns "entailment", "contradiction"
// or "neutral".
std::string predict_snli(DecomposableAttention& net, const Vocab& vocab, const std::vector<std::string>& premise,
                         const std::vector<std::string>& hypothesis);

// Label ids in the book's order: 0 entailment, 1 contradiction, 2 neutral.
const std::string& snli_label_name(int64_t label);

}  // namespace d2l
