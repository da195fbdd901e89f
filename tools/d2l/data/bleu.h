// tools/d2l/data/bleu.h — 9.7 序列到序列学习 / Sequence to Sequence Learning (sec_seq2seq): BLEU.
//
// The book's eq_bleu:
//   exp(min(0, 1 - len_label / len_pred)) * prod_{n=1..k} p_n^(1/2^n)
// p_n = (n-grams of the prediction matched in the label, each label n-gram used at most
// as often as it occurs there) / (n-grams in the prediction). Longer n-grams weigh more
// (1/2^n shrinks, so p_n^(1/2^n) nears 1); the first factor penalises short predictions.
#pragma once
#include <cstdint>
#include <string>

namespace d2l {

// pred_seq, label_seq: space-separated tokens, e.g. "je suis chez moi ."; k >= 1.
// A prediction with fewer than k tokens scores 0 (the book divides by zero, see bleu.cpp).
double bleu(const std::string& pred_seq, const std::string& label_seq, int64_t k);

}  // namespace d2l
