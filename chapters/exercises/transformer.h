// chapters/exercises/transformer.h — what 10.7's room (chapters/run/transformer.cpp) calls
// from the exercise file: the run of an exercise's setting, and the attention block both
// print after the translations.
#pragma once
#include <cstdint>
#include <string>

#include "layers/transformer.h"
#include "tools/d2l/train/train_seq2seq.h"

// With an exercise's option (--num-layers, --scoring, --pe learned, --head-importance) or
// --pe-offset: prints the section's demos, trains the model those options describe with the
// section's settings, prints what the section prints, then the exercise's own output.
// Returns false (nothing done) for the book's model.
bool train_exercise_setting();

// The section's attention block for the last translated sentence: the banner, the
// encoder's and decoder's weight shapes, and the three heatmap figures (a row per layer, a
// column per head) under --out.
void show_last_attention(const d2l::TransformerEncoder& encoder, const std::string& sentence,
                         const std::string& translation, const d2l::AttentionWeightSeq& dec_attention_weight_seq,
                         int64_t num_layers, int64_t num_heads, int64_t num_steps);
