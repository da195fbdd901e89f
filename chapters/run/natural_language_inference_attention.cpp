// chapters/run/natural_language_inference_attention.cpp — the run around 15.5's code
// (tools/d2l/cli/section.h): the program's title and options, which the library's
// load_data_snli, decomposable_attention and train_ch13 read (tools/d2l/train/nli_setup.h);
// exercise 1's --grid and exercise 2's word order, which take the trained run over or follow
// it; after the book's code, the alignment figures.
#include "chapters/exercises/natural_language_inference_attention.h"
#include "core/shape.h"  // check
#include "tools/d2l/cli/run.h"
#include "tools/d2l/cli/section.h"
#include "tools/d2l/train/nli_setup.h"

namespace {

bool instead() {
  const d2l::CliArgs& args = d2l::run_args();
  d2l::check(args.get_string("premise").empty() == args.get_string("hypothesis").empty(),
             "natural_language_inference_attention", "--premise and --hypothesis go together");
  if (!args.get_flag("grid")) return false;
  run_grid();  // 15.5 ex. 1
  return true;
}

void after() {
  d2l::after_nli();
  if (d2l::run_args().get_int("ex") == 2) word_order(200);  // 15.5 ex. 2, on the trained model
}

// Two threads, big GEMMs: idle OpenMP threads sleep (cli_args.h says why).
const d2l::RegisterSection room({"15.5 Natural Language Inference: Using Attention "
                                 "(sec_natural-language-inference-attention): decomposable attention on SNLI.",
                                 d2l::ChapterDefaults{/*threads=*/0, /*passive_openmp_wait=*/true},
                                 d2l::add_nli_options, instead, after});

}  // namespace
