// chapters/exercises/transformer.h — what 10.7's section (chapters/transformer.cpp) calls from
// its exercise file: the heads' scoring and importance, the learned positional encoding,
// and the exercises' summary line.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "layers/transformer.h"
#include "tools/d2l/cli/cli_args.h"
#include "tools/d2l/data/nmt_data.h"
#include "tools/d2l/train/train_seq2seq.h"

// Every MultiHeadAttention of the model, grouped as the book draws them: encoder
// self-attention, decoder self-attention, decoder-encoder attention; each group by layer.
std::vector<std::vector<d2l::MultiHeadAttention*>> attention_groups(d2l::TransformerEncoder& encoder,
                                                                   d2l::TransformerDecoder& decoder);

// 10.7 ex. 2 (--scoring additive): every head scores with additive attention.
void use_scoring(const std::string& scoring, d2l::TransformerEncoder& encoder, d2l::TransformerDecoder& decoder);

// 10.5 ex. 2 (--head-importance): masks each head alone and scores the model without it.
void head_importance(d2l::EncoderDecoder& net, d2l::TransformerEncoder& encoder, d2l::TransformerDecoder& decoder,
                     const d2l::NmtData& data, int64_t num_heads, int64_t bleu_pairs, const std::string& path);

// 10.6 ex. 2 (--pe learned): the learned tables after training, against the sinusoids.
void show_learned_encoding(const d2l::TransformerEncoder& encoder, const d2l::TransformerDecoder& decoder,
                           const d2l::Tensor& enc_P0, const d2l::Tensor& dec_P0, int64_t num_steps,
                           const std::string& out);

// 10.7 ex. 1 and 2 (--num-layers, --scoring): one summary line of the trained model.
void print_exercise_summary(const d2l::CliArgs& args, d2l::EncoderDecoder& net, const d2l::NmtData& data,
                            const d2l::TrainSeq2SeqResult& trained, double train_seconds, double bleu4);
