// tests/test_chapters_run.cpp — every chapter program runs to completion with small
// settings, writes its figures and prints their paths; options are checked as the
// programs' usage promises (`make test` builds the programs first).
//
// Programs are looked up in $D2L_BUILD/chapters (default build/chapters), run with
// --out <temporary dir> plus their row's arguments; the test checks exit code 0, that each
// listed PNG exists, is non-empty and decodes, and that stdout contains the listed text.
// A new chapter is one more row in kChapters.
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <stb/stb_image.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/engine/allocator.h"
#include "core/nn/module.h"
#include "core/ops.h"
#include "core/nn/optim.h"
#include "tests/test_prelude.h"
#include "tools/d2l/cli/cli_args.h"
#include "tools/d2l/cli/training_options.h"

namespace {

// What PyTorch's print(attention) shows for 10.5's and 10.6's MultiHeadAttention (the module
// printing itself is tested against python3-torch in test_module_print).
const char* const kPrintedAttention =
    "MultiHeadAttention(\n"
    "  (attention): DotProductAttention(\n"
    "    (dropout): Dropout(p=0.5, inplace=False)\n"
    "  )\n"
    "  (W_q): Linear(in_features=100, out_features=100, bias=False)\n"
    "  (W_k): Linear(in_features=100, out_features=100, bias=False)\n"
    "  (W_v): Linear(in_features=100, out_features=100, bias=False)\n"
    "  (W_o): Linear(in_features=100, out_features=100, bias=False)\n"
    ")\n";

struct Chapter {
  const char* name;                 // chapters/<name>.cpp -> build/chapters/<name>
  const char* args;                 // small settings
  std::vector<const char*> pngs;    // written under --out
  std::vector<const char*> stdout_has;
};

const std::vector<Chapter> kChapters = {
    {"attention_cues", "", {"attention_weights.png"}, {}},
    {"nadaraya_watson", "--quick",
     {"average_pooling.png", "nonparametric.png", "nonparametric_attention.png", "parametric.png",
      "parametric_attention.png", "loss.png"},
     {"\n50\n", "\ntorch.Size([2, 1, 6])\n", "[[14.5000]]", "epoch 1, loss "}},
    {"attention_scoring_functions", "",
     {"additive_attention.png", "dot_product_attention.png"},
     {"[[10.0000, 11.0000, 12.0000, 13.0000]]], grad_fn=<BmmBackward0>)\n"}},
    {"multihead_attention", "", {}, {kPrintedAttention, "\ntorch.Size([2, 4, 100])\n"}},
    {"self_attention_and_positional_encoding", "",
     {"positional_encoding_columns.png", "positional_encoding.png"},
     // The book's print(f'{i}的二进制是：{i:>03b}'), under the subsection's heading.
     {kPrintedAttention, "\ntorch.Size([2, 4, 100])\n",
      "== 绝对位置信息 / Absolute Positional Information ==\n0的二进制是：000\n1的二进制是：001\n"
      "2的二进制是：010\n3的二进制是：011\n4的二进制是：100\n5的二进制是：101\n6的二进制是：110\n"
      "7的二进制是：111\nsaved "}},
    {"bahdanau_attention", "--quick --translate 'i am cold .'",
     {"train_seq2seq.png", "attention.png", "translate.png"},
     {"\n(torch.Size([4, 7, 10]), 3, torch.Size([4, 7, 16]), 2, torch.Size([4, 16]))\n", "tokens/sec on cpu",
      "\ni'm home . => ", ",  bleu ", "\ni am cold . => "}},
    {"natural_language_inference_attention", "--quick --premise 'a man is sleeping .' --hypothesis 'a man is awake .'",
     {"train_ch13.png", "alignment.png", "alignment_cli.png"},
     {"read 1024 examples", "embedding from chapters/data/snli-small/vectors.txt",
      "\ntraining on 1024 examples x 1 epochs = 1024 examples, 4 batches of 256 per epoch\n",
      "\nestimated training time: ", "examples/sec on cpu", "saved", "\n'",
      "predict_snli(['a', 'man', 'is', 'sleeping', '.'], ['a', 'man', 'is', 'awake', '.']): '"}},
    {"transformer", "--quick --translate 'i am cold .'",
     {"loss.png", "encoder_self_attention.png", "decoder_self_attention.png", "decoder_encoder_attention.png"},
     {"grad_fn=<SelectBackward0>)\n", "grad_fn=<NativeLayerNormBackward0>) \nbatch norm: ", "[-1.0000, -1.0000]",
      "\ntorch.Size([2, 3, 4])\n", "\ntorch.Size([2, 100, 24])\n", "tokens/sec on cpu", "\ni'm home . => ",
      ",  bleu ", "\ntorch.Size([2, 4, 10, 10])\n", "\n(torch.Size([2, 4, "}},
};

// Boost.Test names each data sample by printing it.
std::ostream& operator<<(std::ostream& os, const Chapter& c) { return os << c.name; }

void run_chapter(const Chapter& c) {
  const fs::path exe = fs::path(build_dir()) / "chapters" / c.name;
  BOOST_REQUIRE_MESSAGE(fs::exists(exe), exe.string() << " not built (run `make` first, or set D2L_BUILD)");
  TempDir tmp(c.name);
  const fs::path out = tmp.path / "out", log = tmp.path / "stdout.txt", err = tmp.path / "stderr.txt";
  const int rc = run_command(exe.string() + " --threads 2 --out " + out.string() + " " + c.args, log, err);
  BOOST_CHECK_MESSAGE(rc == 0, c.name << " exited with " << rc << "; stderr:\n" << read_file(err));
  const std::string text = read_file(log);
  for (const char* s : c.stdout_has)
    BOOST_CHECK_MESSAGE(text.find(s) != std::string::npos, c.name << ": stdout lacks '" << s << "':\n" << text);
  for (const char* png : c.pngs) {
    const fs::path p = out / png;
    BOOST_CHECK_MESSAGE(fs::exists(p) && fs::file_size(p) > 0, c.name << ": " << p << " missing or empty");
    int w = 0, h = 0, comp = 0;
    BOOST_CHECK_MESSAGE(stbi_info(p.string().c_str(), &w, &h, &comp) == 1 && w > 100 && h > 100,
                        c.name << ": " << p << " is not a readable image (" << w << " x " << h << ")");
    BOOST_CHECK_MESSAGE(text.find(p.string()) != std::string::npos, c.name << ": the path " << p << " is not printed");
  }
  // Nothing else is left in the output directory: no stray temporary files.
  size_t files = 0;
  if (fs::exists(out))
    for (const auto& e : fs::directory_iterator(out)) files += e.is_regular_file();
  BOOST_CHECK_EQUAL(files, c.pngs.size());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(chapters_run)

// One test case per chapter (runs_and_writes_its_figures/_0, _1, ... in kChapters order), so
// a failing or unbuilt chapter does not hide the others.
BOOST_DATA_TEST_CASE(runs_and_writes_its_figures, utf::data::make(kChapters), c) { run_chapter(c); }

// After `make data`, a program run from the repository root reads data/. The fixtures in
// tests/fixtures/data/ have the same layout, so running a program there (the executable
// by its absolute path) shows what it does with the book's files: the NLI chapter takes
// SNLI 1.0 and the GloVe vectors (the book's full setting) and says up front how much it
// will train; the seq2seq chapters read data/fra-eng/fra.txt.
void run_in_fixture_root(const std::string& name, const std::string& args, const std::vector<std::string>& stdout_has) {
  const fs::path exe = fs::absolute(fs::path(build_dir()) / "chapters" / name);
  BOOST_REQUIRE_MESSAGE(fs::exists(exe), exe.string() << " not built");
  TempDir tmp(name + "_fixture");
  const fs::path log = tmp.path / "stdout.txt", err = tmp.path / "stderr.txt";
  const int rc = run_command("cd " + std::string(d2l_test::kFixtureRoot) + " && " + exe.string() +
                                 " --threads 2 --out " + (tmp.path / "out").string() + " " + args,
                             log, err);
  BOOST_CHECK_MESSAGE(rc == 0, name << " exited with " << rc << "; stderr:\n" << read_file(err));
  const std::string text = read_file(log);
  for (const std::string& s : stdout_has)
    BOOST_CHECK_MESSAGE(text.find(s) != std::string::npos, name << ": stdout lacks '" << s << "':\n" << text);
}

// The NLI program keeps two threads busy by default, so it restarts itself with libgomp's
// idle threads sleeping (prefer_passive_openmp_wait, tools/d2l/cli/cli_args.h) unless the
// environment sets a wait policy, and its training section says which one is in force.
BOOST_AUTO_TEST_CASE(nli_sleeps_idle_threads_unless_told_otherwise) {
#ifdef _OPENMP
  const fs::path exe = fs::absolute(fs::path(build_dir()) / "chapters" / "natural_language_inference_attention");
  BOOST_REQUIRE_MESSAGE(fs::exists(exe), exe.string() << " not built");
  TempDir tmp("nli_wait_policy");
  const fs::path log = tmp.path / "stdout.txt", err = tmp.path / "stderr.txt";
  const std::pair<std::string, std::string> cases[] = {
      {"env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT ", "\ncpu: 2 threads, OMP_WAIT_POLICY=PASSIVE\n"},
      {"env -u GOMP_SPINCOUNT OMP_WAIT_POLICY=active ", "\ncpu: 2 threads, OMP_WAIT_POLICY=active\n"}};
  for (const auto& [env, expected] : cases) {
    const int rc = run_command("cd " + std::string(d2l_test::kFixtureRoot) + " && " + env + exe.string() +
                                   " --threads 2 --epochs 0 --out " + (tmp.path / "out").string(),
                               log, err);
    BOOST_CHECK_MESSAGE(rc == 0, "exited with " << rc << "; stderr:\n" << read_file(err));
    const std::string text = read_file(log);
    BOOST_CHECK_MESSAGE(text.find(expected) != std::string::npos, "stdout lacks '" << expected << "':\n" << text);
  }
#endif
}

BOOST_AUTO_TEST_CASE(book_layout_from_make_data) {
  run_in_fixture_root("natural_language_inference_attention", "--epochs 2 --batch-size 4",
                      {"data: SNLI 1.0 in data/snli_1.0 (from `make data`): training on snli_1.0_train.txt, "
                       "testing on snli_1.0_test.txt\n",
                       "read 6 examples\nread 3 examples\n",
                       "embedding from data/glove.6B.100d/vec.txt: 4 of 8 tokens found, the rest start at zero\n",
                       "training on 6 examples x 2 epochs = 12 examples, 2 batches of 4 per epoch\n",
                       "estimated training time: ", "(", " examples/sec over the first 2 batches)\n",
                       "examples/sec on cpu\n"});
  run_in_fixture_root("bahdanau_attention", "--quick",
                      {"using data: data/fra-eng/fra.txt (the book's corpus, from `make data`)\n", "\ngo . => "});
}

BOOST_DATA_TEST_CASE(help_and_bad_options, utf::data::make(kChapters), c) {
  const fs::path exe = fs::path(build_dir()) / "chapters" / c.name;
  BOOST_REQUIRE_MESSAGE(fs::exists(exe), exe.string() << " not built");
  TempDir tmp(std::string(c.name) + "_opts");
  const fs::path log = tmp.path / "stdout.txt", err = tmp.path / "stderr.txt";
  BOOST_CHECK_EQUAL(run_command(exe.string() + " --help", log, err), 0);
  BOOST_CHECK(read_file(log).find("--seed") != std::string::npos);
  BOOST_CHECK_EQUAL(run_command(exe.string() + " --no-such-option", log, err), 2);
  BOOST_CHECK(read_file(err).find("error: unknown option --no-such-option") != std::string::npos);
  BOOST_CHECK_EQUAL(run_command(exe.string() + " --seed -1", log, err), 2);
  BOOST_CHECK(read_file(err).find("error: [--seed] must be in [0, 9223372036854775807], got -1") != std::string::npos);
  // A file where the output directory should be: a runtime error, exit 1.
  const std::string blocker = tmp.write("file", "x");
  BOOST_CHECK_EQUAL(run_command(exe.string() + " --out " + blocker, log, err), 1);
  BOOST_CHECK(read_file(err).rfind("error: ", 0) == 0);
}

BOOST_AUTO_TEST_CASE(cli_args_parsing) {
  auto make = [] {
    d2l::CliArgs a("prog", "test");
    a.add_int("epochs", 5, "epochs", 0);
    a.add_float("lr", 0.5, "learning rate", 0.0, 10.0);
    a.add_string("data", "", "data file");
    a.add_flag("quick", "quick");
    return a;
  };
  d2l::CliArgs a = make();
  a.parse({"--epochs", "7", "--lr=0.25", "--quick", "--data", "x.txt"});
  BOOST_CHECK_EQUAL(a.get_int("epochs"), 7);
  BOOST_CHECK_EQUAL(a.get_float("lr"), 0.25f);
  BOOST_CHECK(a.get_flag("quick") && a.given("epochs") && !a.help_requested());
  BOOST_CHECK_EQUAL(a.get_string("data"), "x.txt");
  d2l::CliArgs b = make();
  b.parse({});
  BOOST_CHECK_EQUAL(b.get_int("epochs"), 5);
  BOOST_CHECK(!b.get_flag("quick") && !b.given("epochs"));
  auto says = [](const std::string& want) {
    return [want](const d2l::UsageError& e) {
      BOOST_TEST_MESSAGE(e.what());
      return std::string(e.what()) == want;
    };
  };
  BOOST_CHECK_EXCEPTION(make().parse({"--epochs", "-1"}), d2l::UsageError, says("[--epochs] must be in [0, 9223372036854775807], got -1"));
  BOOST_CHECK_EXCEPTION(make().parse({"--lr", "11"}), d2l::UsageError, says("[--lr] must be in [0, 10], got 11"));
  d2l::CliArgs bad = make();
  BOOST_CHECK_THROW(bad.parse({"--epochs", "-3"}), d2l::UsageError);
  BOOST_CHECK_EQUAL(bad.get_int("epochs"), 5);  // a rejected value is not kept
  BOOST_CHECK_EXCEPTION(make().parse({"--epochs", "5x"}), d2l::UsageError,
                        says("[--epochs] expects an integer in [0, 9223372036854775807], got '5x'"));
  BOOST_CHECK_EXCEPTION(make().parse({"--lr", "fast"}), d2l::UsageError, says("[--lr] expects a number in [0, 10], got 'fast'"));
  // Overflow is refused with the range, never wrapped or clamped (strtoll's ERANGE).
  BOOST_CHECK_EXCEPTION(make().parse({"--epochs", "99999999999999999999"}), d2l::UsageError,
                        says("[--epochs] expects an integer in [0, 9223372036854775807], got '99999999999999999999'"));
  BOOST_CHECK_EXCEPTION(make().parse({"--lr", "1e400"}), d2l::UsageError,
                        says("[--lr] expects a number in [0, 10], got '1e400'"));
  BOOST_CHECK_EXCEPTION(make().parse({"--lr", "nan"}), d2l::UsageError,
                        says("[--lr] expects a number in [0, 10], got 'nan'"));
  // A choice option takes one of its values, the first by default; any other is refused
  // naming them all, and not kept.
  d2l::CliArgs choice("prog", "test");
  choice.add_choice("scoring", {"additive", "dot", "bilinear"}, "the scoring");
  BOOST_CHECK_EQUAL(choice.get_string("scoring"), "additive");
  BOOST_CHECK_EXCEPTION(choice.parse({"--scoring", "mlp"}), d2l::UsageError,
                        says("[--scoring] expects additive, dot or bilinear, got 'mlp'"));
  BOOST_CHECK_EQUAL(choice.get_string("scoring"), "additive");
  choice.parse({"--scoring=bilinear"});
  BOOST_CHECK_EQUAL(choice.get_string("scoring"), "bilinear");
  d2l::CliArgs two("prog", "test");
  two.add_choice("pe", {"sinusoidal", "learned"}, "the encoding");
  BOOST_CHECK_EXCEPTION(two.parse({"--pe", "rotary"}), d2l::UsageError,
                        says("[--pe] expects sinusoidal or learned, got 'rotary'"));
  // The default must lie in the declared range (a programming error, not a usage error).
  d2l::CliArgs decl("prog", "test");
  BOOST_CHECK_THROW(decl.add_int("n", 0, "n", 1, 10), std::logic_error);
  BOOST_CHECK_EXCEPTION(make().parse({"--epochs"}), d2l::UsageError, says("[--epochs] needs a value"));
  BOOST_CHECK_EXCEPTION(make().parse({"--quick=1"}), d2l::UsageError, says("[--quick] takes no value"));
  BOOST_CHECK_EXCEPTION(make().parse({"--nope"}), d2l::UsageError, says("unknown option --nope (see --help)"));
  BOOST_CHECK_EXCEPTION(make().parse({"extra"}), d2l::UsageError, says("unexpected argument 'extra' (see --help)"));
  d2l::CliArgs h = make();
  h.parse({"--help"});
  BOOST_CHECK(h.help_requested());
  const std::string u = h.usage();
  BOOST_CHECK(u.find("--epochs N") != std::string::npos && u.find("(default 5)") != std::string::npos);
}

// --max-tensor-mb, an option of every chapter program: a larger tensor is an OutOfMemory
// naming the op and the shape, a smaller one allocates; 0 lifts the limit again.
BOOST_AUTO_TEST_CASE(max_tensor_mb_refuses_larger_tensors_with_the_op_and_shape) {
  const d2l_test::TempDir dir("max_tensor_mb");
  d2l::CliArgs args("prog", "test");
  d2l::add_chapter_options(args, (dir.path / "out").string());
  args.parse({"--max-tensor-mb", "1"});
  d2l::apply_chapter_options(args);
  const d2l::Tensor fits = d2l::ones({512, 512});  // exactly 1 MiB
  BOOST_TEST(d2l::sum(fits).item() == 262144.0f);
  BOOST_CHECK_EXCEPTION(d2l::matmul(d2l::ones({600, 2}), d2l::ones({2, 600})), d2l::OutOfMemory,
                        d2l_test::message_has({"[matmul] cannot allocate the data of a tensor of shape (600, 600)",
                                               "1440000 bytes"}));
  d2l::set_max_tensor_bytes(0);
  BOOST_TEST(d2l::matmul(d2l::ones({600, 2}), d2l::ones({2, 600})).numel() == 360000);
}

// The option block of the two seq2seq chapters: --quick's epochs, and train_or_load's two
// paths (train, or load and skip training) with --save writing a file --load can read.
BOOST_AUTO_TEST_CASE(seq2seq_options) {
  struct Net : d2l::Module {
    d2l::Tensor w;
    Net() { w = register_parameter("w", d2l::tensor({1.0f, 2.0f})); }
  };
  TempDir tmp("seq2seq_options");
  const std::string file = tmp("net.params");
  const d2l::ModelSettings model{{"model", "net"}}, run{{"batch_size", "4"}};
  auto parsed = [](const std::vector<std::string>& argv, auto&& use) {
    d2l::CliArgs args("prog", "test");
    const d2l::Seq2SeqOptions opt(args, 250, 10);
    args.parse(argv);
    use(opt);
  };
  parsed({}, [](const d2l::Seq2SeqOptions& o) { BOOST_CHECK_EQUAL(o.num_epochs(), 250); });
  parsed({"--quick"}, [](const d2l::Seq2SeqOptions& o) { BOOST_CHECK_EQUAL(o.num_epochs(), 10); });
  parsed({"--epochs", "3", "--data", "d.txt", "--translate", "i am cold ."}, [](const d2l::Seq2SeqOptions& o) {
    BOOST_CHECK_EQUAL(o.num_epochs(), 3);
    BOOST_CHECK_EQUAL(o.data(), "d.txt");
    BOOST_CHECK_EQUAL(o.translate(), "i am cold .");
  });
  BOOST_CHECK_THROW(parsed({"--epochs", "0"}, [](const d2l::Seq2SeqOptions&) {}), d2l::UsageError);
  // Training path: train() gets the epochs; the trainer's end (Checkpoint::trained) writes --save.
  parsed({"--epochs", "7", "--save", file}, [&](const d2l::Seq2SeqOptions& o) {
    Net net;
    d2l::Checkpoint checkpoint = o.checkpoint(model, run);
    int64_t trained = 0;
    o.train_or_load(net, checkpoint, [&](int64_t epochs) {
      trained = epochs;
      net.w.data()[0] = 5.0f;
      d2l::Adam adam(net.parameters(), 0.1f);
      checkpoint.trained(net, adam, epochs, nullptr);
    });
    BOOST_CHECK_EQUAL(trained, 7);
  });
  // A train function that does not hand the checkpoint to its trainer would ignore --save.
  parsed({"--save", file}, [&](const d2l::Seq2SeqOptions& o) {
    Net net;
    d2l::Checkpoint checkpoint = o.checkpoint(model, run);
    BOOST_CHECK_EXCEPTION(o.train_or_load(net, checkpoint, [](int64_t) {}), std::logic_error,
                          message_has({"did not pass the checkpoint to the trainer"}));
  });
  // Loading path: train() is not called and the saved values come back.
  parsed({"--load", file}, [&](const d2l::Seq2SeqOptions& o) {
    Net net;
    d2l::Checkpoint checkpoint = o.checkpoint(model, run);
    bool trained = false;
    o.train_or_load(net, checkpoint, [&](int64_t) { trained = true; });
    BOOST_CHECK(!trained);
    BOOST_CHECK_EQUAL(net.w.data()[0], 5.0f);
    BOOST_CHECK_EQUAL(net.w.data()[1], 2.0f);
  });
  // Another model's settings: refused, naming the setting and both values.
  parsed({"--load", file}, [&](const d2l::Seq2SeqOptions& o) {
    Net net;
    d2l::Checkpoint checkpoint = o.checkpoint({{"model", "other"}}, run);
    BOOST_CHECK_EXCEPTION(o.train_or_load(net, checkpoint, [](int64_t) {}), std::runtime_error,
                          message_has({"[Module.load] " + file, "model: the file has 'net', this run 'other'"}));
  });
  BOOST_CHECK_EXCEPTION(parsed({"--load", file, "--resume", file},
                               [&](const d2l::Seq2SeqOptions& o) { (void)o.checkpoint(model, run); }),
                        std::invalid_argument, message_has({"--load", "--resume", "exclude each other"}));
}

BOOST_AUTO_TEST_SUITE_END()
