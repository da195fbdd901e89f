// chapters/exercises/natural_language_inference_attention.h — the exercises of 15.5 that its
// room (chapters/run/natural_language_inference_attention.cpp) runs: one that takes the run
// over (--grid) and one that follows the section's training (--ex 2).
#pragma once
#include <cstdint>

// 15.5 ex. 1 (--grid): the book's data, then num_hiddens 100, 200 x lr 0.0003, 0.001, 0.003,
// each trained from --seed for --epochs (1 with --quick); refuses --save, --load and --resume.
void run_grid();

// 15.5 ex. 2 (--ex 2, after the section's training or --load): word order is lost, shown on
// the run's model and the first `pairs` test pairs.
void word_order(int64_t pairs);
