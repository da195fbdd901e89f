// tools/programs/crossover/crossover.h — what build/tools/crossover prints: a model stored as safetensors
// (by a chapter's --save FILE.safetensors, or by PyTorch through
// tools/scripts/crossover_torch.py) run on fixed inputs, its outputs as JSON, so that the
// script (and the test suite, on the fixtures PyTorch wrote) can set them beside the book's
// PyTorch models':
//   10.4, 10.7  {"results": [{"src", "translation", "steps": [[attention tensor, ...] per
//               decoding step], "encoder": [per block] (10.7)}, ...]} for the book's four
//               sentences (or `sentences`); a step of 10.7 lists the self-attention of every
//               block, then the encoder-decoder attention of every block, as the book's
//               net.decoder.attention_weights
//   15.5        {"results": [{"premise", "hypothesis", "prediction", "logits", "beta",
//               "alpha"}, ...]} for the book's example and three more pairs; beta is the
//               softmax over the hypothesis of e (1, m, n), alpha over the premise (1, n, m)
//   10.2        {"results": [{"w", "prediction", "attention"}]}: NWKernelRegression on 10
//               queries 0, 0.5, ..., 4.5 and 8 keys 0.3, 0.9, ..., 4.5 with values 2 sin x + x^0.8
// A tensor is {"shape": [...], "data": [...]} with 9 significant digits (the float exactly).
//
// The model is rebuilt from the file's __metadata__ alone: its "model" (nadaraya_watson, bahdanau_attention,
// transformer, decomposable_attention), hyper-parameters and vocabularies' tokens, whose
// fingerprints must equal the recorded ones. The book's settings only: a file of an
// exercise's variant (an LSTM, other scoring, learned positions, masked <pad>) is refused.
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace d2l {

// Errors: std::runtime_error naming the file.
void crossover_outputs(std::ostream& out, const std::string& path, std::vector<std::string> sentences = {});

}  // namespace d2l
