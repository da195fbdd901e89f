// tools/d2l/train/predict_snli.cpp — 15.5 predict_snli and the SNLI label names.
#include "tools/d2l/train/predict_snli.h"

#include "core/autograd.h"
#include "core/shape.h"  // check
#include "core/ops.h"

namespace d2l {

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
