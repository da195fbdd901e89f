// tools/cli/seq2seq_options.cpp — the seq2seq chapters' shared options (see the header).
#include "tools/cli/seq2seq_options.h"

#include <cstdio>

namespace d2l {

Seq2SeqOptions::Seq2SeqOptions(CliArgs& args, int64_t book_epochs, int64_t quick_epochs)
    : args_(args), quick_epochs_(quick_epochs) {
  args.add_int("epochs", book_epochs, "training epochs (the book: " + std::to_string(book_epochs) + ")", 1, 100000);
  args.add_flag("quick", std::to_string(quick_epochs) + " epochs: a smoke test");
  args.add_string("data", "", "fra.txt to train on (default: data/fra-eng/fra.txt, else the bundled corpus)",
                  "PATH");
  args.add_string("save", "", "write the trained parameters to FILE", "FILE");
  args.add_string("load", "", "read parameters from FILE instead of training", "FILE");
  args.add_string("translate", "", "also translate this English sentence and draw its attention");
}

int64_t Seq2SeqOptions::num_epochs() const { return args_.get_flag("quick") ? quick_epochs_ : args_.get_int("epochs"); }
const std::string& Seq2SeqOptions::data() const { return args_.get_string("data"); }
const std::string& Seq2SeqOptions::translate() const { return args_.get_string("translate"); }

void Seq2SeqOptions::train_or_load(Module& net, const std::function<void(int64_t num_epochs)>& train) const {
  if (const std::string& path = args_.get_string("load"); !path.empty()) {
    net.load(path);
    std::printf("loaded %s (training skipped)\n", path.c_str());
  } else {
    train(num_epochs());
  }
  if (const std::string& path = args_.get_string("save"); !path.empty()) {
    net.save(path);
    print_saved(path);
  }
}

}  // namespace d2l
