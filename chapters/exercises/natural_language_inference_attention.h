// chapters/exercises/natural_language_inference_attention.h — the exercises 15.5's section
// (chapters/natural_language_inference_attention.cpp) runs where they need its data or model.
#pragma once
#include <cstdint>
#include <string>

#include "layers/natural_language_inference_attention.h"
#include "tools/d2l/cli/cli_args.h"
#include "tools/d2l/data/snli_data.h"

// 15.5 ex. 1 (--grid): num_hiddens 100, 200 x lr 0.0003, 0.001, 0.003, each trained from --seed
// for num_epochs (at least 1); refuses --save, --load and --resume.
void run_grid(const d2l::CliArgs& args, const d2l::Vocab& vocab, d2l::SNLIDataLoader& train_iter,
              d2l::SNLIDataLoader& test_iter, int64_t embed_size, int64_t num_epochs, const std::string& embeddings,
              const std::string& train_path, const std::string& out);

// 15.5 ex. 2 (--ex 2, after the section's training): word order is lost.
void word_order(d2l::DecomposableAttention& net, const d2l::Vocab& vocab, const d2l::SNLIData& test_data,
                int64_t pairs);

// 15.5 ex. 3 (--ex 3, in place of the classifier): a graded similarity in [0, 1] at
// --embed-size, --num-hiddens and --lr, trained from --seed; refuses the classifier's
// --save, --load, --resume and --grid.
void similarity(const d2l::CliArgs& args, const d2l::Vocab& vocab, d2l::SNLIDataLoader& train_iter,
                d2l::SNLIDataLoader& test_iter, const d2l::SNLIData& test_data, int64_t num_epochs,
                const std::string& embeddings);
