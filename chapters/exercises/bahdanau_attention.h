// chapters/exercises/bahdanau_attention.h — what 10.4's room (chapters/run/bahdanau_attention.cpp)
// calls from the exercise file: the run of an exercise's setting, the cues of 10.1's
// exercise 1, and the attention figure both draw.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"

// With an exercise's setting (--rnn lstm, --scoring dot or bilinear, --no-loss-mask,
// --no-teacher-forcing): prints the section's shape check, trains that model in place of the
// book's with the section's settings and prints what the section prints, then trains the
// book's model as long and prints the table comparing the two. Returns false (nothing done)
// for the book's setting.
bool train_exercise_setting();

// 10.1 ex. 1 (--cues): for each target step of a translation, the token read, the token
// produced and the source token given the most weight.
void print_cues(const std::string& sentence, const std::string& translation, const std::vector<d2l::Tensor>& steps,
                int64_t num_steps);

// The section's attention figure of one translation: the steps' weights as (1, 1, steps,
// num_steps), the keys up to the sentence's length + 1 (its <eos>), tokens in the SVG's tooltips.
void draw_attention(const std::vector<d2l::Tensor>& steps, const std::string& sentence, const std::string& translation,
                    int64_t num_steps, const std::string& path);
