// layers/natural_language_inference_attention.cpp — 15.5 自然语言推断：使用注意力 / Natural
// Language Inference: Using Attention (sec_natural-language-inference-attention): mlp, Attend,
// Compare, Aggregate, DecomposableAttention, predict_snli.
//
// Every layer is a composition of core ops (linear, relu, dropout, bmm, masked_softmax,
// concat, sequence_mask, sum), so the backward passes come from the ops' own (a layer writes
// no backward code).
#include "layers/natural_language_inference_attention.h"

#include "core/autograd.h"
#include "core/shape.h"  // check
#include "core/ops.h"

namespace d2l {

// --- mlp -------------------------------------------------------------------------------------
mlp::mlp(int64_t num_inputs, int64_t num_hiddens, bool flatten_) : flatten(flatten_) {
  add<Dropout>(0.2f);
  linear1 = &add<Linear>(num_inputs, num_hiddens);
  add<ReLU>();
  if (flatten) add<Flatten>(1);  // (batch_size, d1, d2, ...) -> (batch_size, d1 * d2 * ...)
  add<Dropout>(0.2f);
  linear2 = &add<Linear>(num_hiddens, num_hiddens);
  add<ReLU>();
  if (flatten) add<Flatten>(1);
}

// --- Attend ----------------------------------------------------------------------------------
Attend::Attend(int64_t num_inputs, int64_t num_hiddens) : f(add_module<mlp>("f", num_inputs, num_hiddens, false)) {}

namespace {

// valid_lens for a layer that masks: undefined, or (batch_size,) (masked_softmax and
// sequence_mask then check the values themselves).
void check_lens(const char* layer, const char* name, const Tensor& lens, const Tensor& X) {
  check(!lens.defined() || (lens.ndim() == 1 && lens.size(0) == X.size(0)), layer, name,
        " must be (batch_size,) to match ", X.shape(), ", got ", printable_shape(lens));
}

}  // namespace

Attend::Output Attend::forward(const Tensor& A, const Tensor& B, const Tensor& valid_lens_A,
                               const Tensor& valid_lens_B) {
  check(A.defined() && B.defined() && A.ndim() == 3 && B.ndim() == 3 && A.size(0) == B.size(0) &&
            A.size(2) == f.linear1->in_features && B.size(2) == f.linear1->in_features,
        "Attend", "expected A (batch_size, m, ", f.linear1->in_features, ") and B (batch_size, n, ",
        f.linear1->in_features, "), got A ", printable_shape(A), ", B ", printable_shape(B));
  check_lens("Attend", "valid_lens_A", valid_lens_A, A);
  check_lens("Attend", "valid_lens_B", valid_lens_B, B);
  // f_A: (batch_size, m, num_hiddens); f_B: (batch_size, n, num_hiddens)
  const Tensor f_A = f(A), f_B = f(B);
  // e: (batch_size, m, n), e_ij = f(a_i)ᵀ f(b_j) (eq_nli_e). The book permutes f_B; bmm's
  // trans_b reads it transposed in place.
  const Tensor e = bmm(f_A, f_B, false, true);
  // α normalises e over i, i.e. softmax over the rows of eᵀ. Instead of copying e into its
  // transpose we form eᵀ = f(B) f(A)ᵀ directly: the same dot products, one more GEMM call.
  const Tensor e_T = bmm(f_B, f_A, false, true);  // (batch_size, n, m)
  // Masked (mask_pad): hypothesis pads j >= len_B get weight 0 in every β_i, premise pads
  // i >= len_A weight 0 in every α_j. Unmasked (the book): plain softmax over all 50 slots.
  beta_weights = masked_softmax(e, valid_lens_B);
  alpha_weights = masked_softmax(e_T, valid_lens_A);
  // beta: (batch_size, m, embed_size), B softly aligned to each token of A (dim 1)
  // alpha: (batch_size, n, embed_size), A softly aligned to each token of B
  return {bmm(beta_weights, B), bmm(alpha_weights, A)};
}

// --- Compare ---------------------------------------------------------------------------------
Compare::Compare(int64_t num_inputs, int64_t num_hiddens) : g(add_module<mlp>("g", num_inputs, num_hiddens, false)) {}

Compare::Output Compare::forward(const Tensor& A, const Tensor& B, const Tensor& beta, const Tensor& alpha) const {
  check(A.defined() && B.defined() && beta.defined() && alpha.defined() && A.ndim() == 3 && B.ndim() == 3 &&
            beta.shape() == A.shape() && alpha.shape() == B.shape() && A.size(0) == B.size(0) &&
            A.size(2) + beta.size(2) == g.linear1->in_features && B.size(2) + alpha.size(2) == g.linear1->in_features,
        "Compare", "expected A and beta (batch_size, m, d), B and alpha (batch_size, n, d) with 2d = ",
        g.linear1->in_features, ", got A ", printable_shape(A), ", B ", printable_shape(B),
        ", beta ", printable_shape(beta), ", alpha ", printable_shape(alpha));
  // [a_i, β_i]: (batch_size, m, 2d) -> V_A (batch_size, m, num_hiddens) (eq_nli_v_ab)
  return {g(concat({A, beta}, 2)), g(concat({B, alpha}, 2))};
}

// --- Aggregate -------------------------------------------------------------------------------
Aggregate::Aggregate(int64_t num_inputs, int64_t num_hiddens, int64_t num_outputs)
    : h(add_module<mlp>("h", num_inputs, num_hiddens, true)),
      linear(add_module<Linear>("linear", num_hiddens, num_outputs)) {}

Tensor Aggregate::forward(const Tensor& V_A, const Tensor& V_B, const Tensor& valid_lens_A,
                          const Tensor& valid_lens_B) const {
  check(V_A.defined() && V_B.defined() && V_A.ndim() == 3 && V_B.ndim() == 3 && V_A.size(0) == V_B.size(0) &&
            V_A.size(2) + V_B.size(2) == h.linear1->in_features,
        "Aggregate", "expected V_A (batch_size, m, k) and V_B (batch_size, n, k') with k + k' = ",
        h.linear1->in_features, ", got V_A ", printable_shape(V_A), ", V_B ", printable_shape(V_B));
  check_lens("Aggregate", "valid_lens_A", valid_lens_A, V_A);
  check_lens("Aggregate", "valid_lens_B", valid_lens_B, V_B);
  // With lengths, the pad positions are zeroed first, so the sums run over true tokens only.
  const Tensor va = valid_lens_A.defined() ? sequence_mask(V_A, valid_lens_A, 0.0f) : V_A;
  const Tensor vb = valid_lens_B.defined() ? sequence_mask(V_B, valid_lens_B, 0.0f) : V_B;
  // v_A = Σ_i v_A,i: (batch_size, num_hiddens); the concatenation (batch_size, 2 num_hiddens)
  return linear(h(concat({sum(va, 1), sum(vb, 1)}, 1)));  // (batch_size, num_outputs)
}

// --- DecomposableAttention -------------------------------------------------------------------
DecomposableAttention::DecomposableAttention(int64_t vocab_size, int64_t embed_size, int64_t num_hiddens,
                                             int64_t num_inputs_attend, int64_t num_inputs_compare,
                                             int64_t num_inputs_agg, int64_t num_outputs)
    : embedding(add_module<Embedding>("embedding", vocab_size, embed_size)),
      attend(add_module<Attend>("attend", num_inputs_attend, num_hiddens)),
      compare(add_module<Compare>("compare", num_inputs_compare, num_hiddens)),
      aggregate(add_module<Aggregate>("aggregate", num_inputs_agg, num_hiddens, num_outputs)) {  // the book's 3
  // The book passes the three input sizes separately; they must agree with embed_size and
  // num_hiddens, or the first forward would fail deep inside a Linear.
  check(num_inputs_attend == embed_size && num_inputs_compare == 2 * embed_size && num_inputs_agg == 2 * num_hiddens,
        "DecomposableAttention", "need num_inputs_attend = embed_size (", embed_size,
        "), num_inputs_compare = 2 * embed_size, num_inputs_agg = 2 * num_hiddens (", 2 * num_hiddens,
        "), got ", num_inputs_attend, ", ", num_inputs_compare, ", ", num_inputs_agg);
}

void DecomposableAttention::check_inputs(const Tensor& premises, const Tensor& hypotheses) {
  check(premises.defined() && hypotheses.defined() && premises.ndim() == 2 && hypotheses.ndim() == 2 &&
            premises.size(0) == hypotheses.size(0),
        "DecomposableAttention", "expected premises (batch_size, m) and hypotheses (batch_size, n), got ",
        printable_shape(premises), " and ", printable_shape(hypotheses));
}

Tensor DecomposableAttention::forward(const Tensor& premises, const Tensor& hypotheses) {
  check_inputs(premises, hypotheses);
  // A: (batch_size, m, embed_size); B: (batch_size, n, embed_size)
  const Tensor A = embedding(premises), B = embedding(hypotheses);
  const Attend::Output ba = attend(A, B);
  const Compare::Output v = compare(A, B, ba.beta, ba.alpha);
  return aggregate(v.V_A, v.V_B);  // Y_hat: (batch_size, 3)
}

// --- predict_snli ----------------------------------------------------------------------------
const std::string& snli_label_name(int64_t label) {
  static const std::string names[3] = {"entailment", "contradiction", "neutral"};
  check(label >= 0 && label < 3, "snli_label_name", "label ", label, " is not 0, 1 or 2");
  return names[label];
}

std::string predict_snli(DecomposableAttention& net, const Vocab& vocab, const std::vector<std::string>& premise,
                         const std::vector<std::string>& hypothesis) {
  check(!premise.empty() && !hypothesis.empty(), "predict_snli", "premise (", premise.size(), " tokens) and hypothesis (",
        hypothesis.size(), " tokens) must not be empty");
  net.eval();
  NoGrad no_grad;
  auto row = [&vocab](const std::vector<std::string>& tokens) {
    std::vector<float> ids;
    for (int64_t i : vocab[tokens]) ids.push_back(static_cast<float>(i));
    return tensor(ids, {1, static_cast<int64_t>(ids.size())});  // reshape((1, -1))
  };
  const Tensor Y_hat = net(row(premise), row(hypothesis));
  return snli_label_name(static_cast<int64_t>(argmax(Y_hat, 1).data()[0]));
}

}  // namespace d2l
