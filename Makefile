# d2l-attention-cpp: one GNU Makefile calling the compiler directly. `make help` lists the
# targets and the switches; README.md explains the layout.
# FAST=0 builds the reference tier (plain loops, core/kernels/reference/) into build-ref/; the default
# FAST=1 is the fast tier (core/kernels/fast/) in build/.
SHELL    := /bin/bash
# Only core/kernels/seam.o depends on the tier (see below). When the flags are the defaults, the
# reference tier reuses the fast tier's other objects from build/obj/, so `make test` then
# `make FAST=0 test` compiles one file more instead of the whole tree again. Any of these
# set on the command line or in the environment gives the build its own objects.
DEFAULT_FLAGS := $(and $(filter undefined default,$(origin CXX)),$(filter undefined,$(origin CXXFLAGS)),$(filter undefined,$(origin BUILD)),$(filter undefined,$(origin OMP)),$(filter undefined,$(origin NATIVE)))
# The tests' own code is checks and small loops around calls into the library (which keeps
# -O3): at -O1 a test file compiles in about 60% of the time (Boost.Test's macros are heavy).
TEST_OPT  := $(if $(filter undefined,$(origin CXXFLAGS)),-O1)
CXX      ?= g++
OMP      ?= 1
NATIVE   ?= 1
FAST     ?= 1
ifeq ($(FAST),0)
  BUILD  ?= build-ref
else
  BUILD  ?= build
endif
CXXFLAGS ?= -O3 -g
CXXFLAGS += -std=c++17 -Wall -Wextra -MMD -MP -I.
LDLIBS   += -lstb
# Parallel builds are the caller's choice: `make -j2` (no -j: one job at a time).
# One short line per built file ("CXX core/tensor.cpp"); V=1 prints the whole commands.
V        ?= 0
ifeq ($(V),1)
  Q   :=
  say  = @true
else
  Q   := @
  say  = @echo "  $(1) $(2)"
endif

ifeq ($(NATIVE),1)
  CXXFLAGS += -march=native
endif
# The kernel tier (core/kernels/seam.h): only the seam's dispatch, core/kernels/seam.cpp, depends on it;
# both tiers are compiled into every build (tests compare them). For the fast tier, the
# GEMM micro-kernel the compiler will pick for these flags (core/kernels/fast/gemm_kernels.h).
ifeq ($(FAST),0)
  TIER := reference tier (FAST=0)
else
  ISA  := $(shell $(CXX) $(filter -m%,$(CXXFLAGS)) -dM -E -x c++ /dev/null 2>/dev/null)
  TIER := fast tier, GEMM micro-kernel $(if $(findstring __AVX512F__,$(ISA)),AVX-512,$(if $(and $(findstring __AVX2__,$(ISA)),$(findstring __FMA__,$(ISA))),AVX2,portable))
endif
$(BUILD)/obj/core/kernels/seam.o: CXXFLAGS += -DD2L_FAST=$(FAST)
ifeq ($(FAST)$(if $(DEFAULT_FLAGS),:shared),0:shared)
  OBJ := build/obj
else
  OBJ := $(BUILD)/obj
endif
# The chapter programs find the repository's data from any directory (tools/d2l/data/data_root.h);
# the last place they look is the repository they were built from. (After OBJ is set: a
# target-specific line's target is expanded where it is read.)
$(OBJ)/tools/d2l/data/data_root.o: CXXFLAGS += -DD2L_SOURCE_ROOT='"$(CURDIR)"'

ifeq ($(OMP),1)
  CXXFLAGS += -fopenmp
  LDFLAGS  += -fopenmp
  $(info [make] $(TIER); OpenMP on (OMP=0 for a serial build), NATIVE=$(NATIVE), BUILD=$(BUILD)$(if $(filter-out $(BUILD)/obj,$(OBJ)), (objects shared: $(OBJ))), jobs from -j (default 1))
else
  CXXFLAGS += -Wno-unknown-pragmas
  $(info [make] $(TIER); OpenMP off, NATIVE=$(NATIVE), BUILD=$(BUILD)$(if $(filter-out $(BUILD)/obj,$(OBJ)), (objects shared: $(OBJ))), jobs from -j (default 1))
endif

# The library: every .cpp of core/ and its rooms, layers/ (and its exercises/) and tools/d2l/ (the book's d2l
# package: data, training loops, figures, the programs' shared options). Each folder
# tools/programs/<name>/ is one program, build/tools/<name>: its main.cpp and its private
# code (the other .cpp files there; the tests link those too). tools/bench/ is built by
# `make bench` alone.
PROG_NAMES := $(patsubst tools/programs/%/main.cpp,%,$(wildcard tools/programs/*/main.cpp))
PROG_PRIV  := $(filter-out %/main.cpp,$(wildcard tools/programs/*/*.cpp))
PROG_PRIV_OBJ := $(PROG_PRIV:%.cpp=$(OBJ)/%.o)
LIB_SRC   := $(wildcard core/*.cpp core/*/*.cpp core/kernels/*/*.cpp layers/*.cpp layers/exercises/*.cpp tools/d2l/*/*.cpp tools/d2l/*/*/*.cpp)
LIB_OBJ   := $(patsubst %.cpp,$(OBJ)/%.o,$(filter-out core/kernels/seam.cpp,$(LIB_SRC))) $(BUILD)/obj/core/kernels/seam.o
LIB       := $(BUILD)/libd2l.a
CHAPTER_NAMES := $(patsubst chapters/%.cpp,%,$(wildcard chapters/*.cpp))
CHAPTERS  := $(CHAPTER_NAMES:%=$(BUILD)/chapters/%)
CLI_TOOLS := $(PROG_NAMES:%=$(BUILD)/tools/%)
# SUITES='core_* sec_*' builds and runs a test binary of those suites alone (the files
# tests/test_<suite>.cpp, named after their suites), with the programs of tools/programs/
# named in SUITE_PROGRAMS (default: all; core_debug runs autograd_demo, core_safetensors links
# crossover's code), but no chapter programs: the sanitizer pass of .ci/run uses it. Empty
# (the default): the whole suite.
SUITES    ?=
SUITE_PROGRAMS ?= $(PROG_NAMES)
# The suites whose checks do not depend on the kernel tier: the pages (book), the browser
# engine's panels (browser: its own build, always the reference tier), the command-line
# and file edges (edges, nothing_lost, tools_checkpoint), the module printing, the scripts,
# the data readers and figures (tools_*), and the kernel comparisons, which call both
# tiers' kernels by name and never the seam (core_gemm, core_kernel_tiers*). A second tier's
# pass can leave them out: TIER_FREE=skip (.ci/run's reference pass); `make test` runs them.
TIER_FREE_SUITES := book browser edges module_print nothing_lost scripts tools_* core_gemm core_kernel_tiers*
TIER_FREE ?= run
comma := ,
TIER_FILTER := $(if $(filter skip,$(TIER_FREE)),'--run_test=!$(subst $() ,$(comma),$(strip $(TIER_FREE_SUITES)))')
TEST_SRC  := $(if $(SUITES),tests/main.cpp $(sort $(wildcard $(SUITES:%=tests/test_%.cpp))),$(wildcard tests/*.cpp))
TEST_OBJ  := $(TEST_SRC:%.cpp=$(OBJ)/%.o)
TEST_BIN  := $(BUILD)/tests/run_tests$(if $(SUITES),_suites)
TEST_PROG_OBJ := $(if $(SUITES),$(filter $(SUITE_PROGRAMS:%=$(OBJ)/tools/programs/%/%),$(PROG_PRIV_OBJ)),$(PROG_PRIV_OBJ))
# `make SUITES=... test` (alone: no chapter program links the library then) compiles and
# archives only the library files those test files and programs can use: the ones
# tools/scripts/suite_sources.sh reaches through their #includes (the sanitizer pass skips
# the figures' and training loops' files no core or layer suite calls).
ifneq ($(and $(SUITES),$(filter test,$(MAKECMDGOALS))),)
ifeq ($(filter-out test,$(MAKECMDGOALS)),)
  LIB_SRC := $(shell bash tools/scripts/suite_sources.sh $(TEST_SRC) $(TEST_PROG_OBJ:$(OBJ)/%.o=%.cpp) \
               $(SUITE_PROGRAMS:%=tools/programs/%/main.cpp) -- $(LIB_SRC))
  $(if $(filter core/kernels/seam.cpp,$(LIB_SRC)),,$(error tools/scripts/suite_sources.sh found no library files for SUITES='$(SUITES)'))
  LIB_OBJ := $(patsubst %.cpp,$(OBJ)/%.o,$(filter-out core/kernels/seam.cpp,$(LIB_SRC))) $(BUILD)/obj/core/kernels/seam.o
endif
endif
TEST_LOG  := $(BUILD)/test.log
BENCH_BIN := $(patsubst tools/bench/%.cpp,$(BUILD)/bench/%,$(wildcard tools/bench/*.cpp))

# Keep chapter and tool objects (make would delete them as intermediates).
.SECONDARY:
.PHONY: all browser chapters tools test test-serial asan fuzz fuzz-run bench run exercises book figures data nli-set clean help FORCE

# Default: the library, every chapter program and every command-line tool.
all: $(LIB) $(CHAPTERS) $(CLI_TOOLS)
chapters: $(CHAPTERS)  # the chapter programs only
tools: $(CLI_TOOLS)    # the programs of tools/programs/ only

# Objects mirror the source tree under $(OBJ)/ (the tier's core/kernels/seam.o under
# $(BUILD)/obj/); programs link the one library.
define compile
	@mkdir -p $(dir $@)
	$(call say,CXX,$<)
	$(Q)$(CXX) $(CXXFLAGS) -c $< -o $@
endef
# Every object depends on the flags the tree compiles with (one such as -ffp-contract changes
# the numbers): OBJ/compile.flags is rewritten only when the compiler or CXXFLAGS change.
$(OBJ)/compile.flags: FORCE
	@$(shell mkdir -p $(dir $@))$(file >$@.new,$(CXX) $(CXXFLAGS))cmp -s $@.new $@ && rm -f $@.new || mv $@.new $@
$(OBJ)/%.o: %.cpp $(OBJ)/compile.flags
	$(compile)
# The compiled-in repository path (D2L_SOURCE_ROOT, above) comes from this file.
$(OBJ)/tools/d2l/data/data_root.o: Makefile
$(BUILD)/obj/core/kernels/seam.o: core/kernels/seam.cpp $(OBJ)/compile.flags
	$(compile)
# Adam's update takes a square root per element: without errno to set (no caller reads it),
# GCC turns std::sqrt into one vector instruction, with the same correctly rounded result.
$(OBJ)/core/kernels/fast/optim.o: CXXFLAGS += -fno-math-errno
# The engine's scalar code rounds every product and sum as written, without the fused
# multiply-adds GCC would choose under -march=native: so does the WebAssembly build of the
# companion pages, which then trains loss for loss as the reference tier does. The fast
# kernels keep them.
CXXFLAGS += -ffp-contract=off
$(OBJ)/core/kernels/fast/%.o: CXXFLAGS += -ffp-contract=fast
# KERNEL_OPT: the kernels' own optimisation, after CXXFLAGS's (`make asan` below).
$(OBJ)/core/kernels/%.o $(BUILD)/obj/core/kernels/seam.o: CXXFLAGS += $(KERNEL_OPT)

# The archive is made again when its list of members changes (a SUITES build's is shorter),
# not only when a member is newer: $(LIB:.a=.members) is rewritten only then.
$(LIB): $(LIB_OBJ) $(LIB:.a=.members)
	@mkdir -p $(dir $@)
	@rm -f $@
	$(call say,AR,$@)
	$(Q)ar rcs $@ $(LIB_OBJ)
$(LIB:.a=.members): FORCE
	@mkdir -p $(dir $@); printf '%s\n' $(LIB_OBJ) >$@.new; cmp -s $@.new $@ && rm -f $@.new || mv $@.new $@

# A section's program links its room, chapters/run/<name>.cpp (tools/d2l/cli/section.h), and
# its exercises, chapters/exercises/<name>.cpp (tools/d2l/cli/exercises.h), when it has them:
# each registers itself at start-up, so it is linked as an object, not taken from an archive
# that would drop it.
define chapter_rule
$(BUILD)/chapters/$(1): $(OBJ)/chapters/$(1).o $(if $(wildcard chapters/run/$(1).cpp),$(OBJ)/chapters/run/$(1).o) $(if $(wildcard chapters/exercises/$(1).cpp),$(OBJ)/chapters/exercises/$(1).o) $(LIB)
	@mkdir -p $$(dir $$@)
	$$(call say,LINK,$$@)
	$$(Q)$$(CXX) $$(LDFLAGS) $$^ -o $$@ $$(LDLIBS)
endef
$(foreach c,$(CHAPTER_NAMES),$(eval $(call chapter_rule,$(c))))

# A program links its own folder's objects and the library.
define program_rule
$(BUILD)/tools/$(1): $(OBJ)/tools/programs/$(1)/main.o $(filter $(OBJ)/tools/programs/$(1)/%,$(PROG_PRIV_OBJ)) $(LIB)
	@mkdir -p $$(dir $$@)
	$$(call say,LINK,$$@)
	$$(Q)$$(CXX) $$(LDFLAGS) $$^ -o $$@ $$(LDLIBS)
endef
$(foreach p,$(PROG_NAMES),$(eval $(call program_rule,$(p))))

# Boost.Test is linked dynamically; tests/main.cpp prints the closing "N passed, N failed".
$(OBJ)/tests/%.o: CXXFLAGS += -DBOOST_TEST_DYN_LINK $(TEST_OPT)
# A SUITES binary is relinked every time: its list of files may differ from the last one's.
$(if $(SUITES),.PHONY: $(TEST_BIN))
$(TEST_BIN): $(TEST_OBJ) $(TEST_PROG_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CXX) $(LDFLAGS) $^ -o $@ $(LDLIBS) -lboost_unit_test_framework

# The suite (it runs the chapter programs and the heatmap tool, so they are built first).
# The whole log goes to $(TEST_LOG); the terminal gets failed checks, skipped tests and the
# closing "N passed, N failed[, N skipped]" line.
# TEST_SPLIT='core_gemm,sec_*' (a --run_test list) runs those suites in a second process at
# the same time as the others, with its own log ($(TEST_LOG:.log=-split.log)) and closing
# line: .ci/run's sanitizer pass, whose suites run mostly on one thread at the end of the
# run, when the other passes have left the second core idle.
TEST_SHOWN := ^[^(]+\([0-9]+\): (error|fatal error|last checkpoint)|is skipped because precondition failed|^[0-9]+ passed, [0-9]+ failed
# (With emscripten, the whole suite's test of the pages' live panels needs the browser engine,
# and the reference tier's 10.4, whose losses the training page must reproduce.)
REF_SEQ2SEQ := $(if $(shell command -v em++ 2>/dev/null),build-ref/chapters/bahdanau_attention)
test: $(if $(SUITES),$(LIB) $(SUITE_PROGRAMS:%=$(BUILD)/tools/%),all browser $(REF_SEQ2SEQ)) $(TEST_BIN)
	@echo "[make] running $(TEST_BIN)$(if $(TIER_FILTER), $(TIER_FILTER))$(if $(TEST_ARGS), $(TEST_ARGS)) (log: $(TEST_LOG))"
	@run() { log=$$1; shift; \
	  D2L_BUILD=$(BUILD) $(TEST_BIN) --log_level=test_suite --report_level=no --color_output=no $(TIER_FILTER) $(TEST_ARGS) \
	    "$$@" >$$log 2>&1; rc=$$?; \
	  grep -E '$(TEST_SHOWN)' $$log; \
	  if ! grep -qE '^[0-9]+ passed, [0-9]+ failed' $$log; then \
	    echo "run_tests ended without its summary line (exit status $$rc); the end of $$log:"; \
	    tail -n 20 $$log; fi; \
	  if [ $$rc -ne 0 ]; then echo "[make] details in $$log"; fi; return $$rc; }; \
	$(if $(TEST_SPLIT), \
	  echo "[make] with '--run_test=$(TEST_SPLIT)' beside it (log: $(TEST_LOG:.log=-split.log))"; \
	  run $(TEST_LOG:.log=-split.log) '--run_test=$(TEST_SPLIT)' & split=$$!; \
	  run $(TEST_LOG) '--run_test=!$(TEST_SPLIT)'; rc=$$?; wait $$split || rc=1; exit $$rc, \
	  run $(TEST_LOG))

# The suite from a build without OpenMP (BUILD-serial/); thread-count tests report skipped.
test-serial:
	$(MAKE) OMP=0 BUILD=$(BUILD)-serial test OMP_NUM_THREADS=1

# Library, tests and chapters with AddressSanitizer + UBSan, then the suite under them. The
# flags go through the environment so the child's `?=`/`+=` lines still add -std=c++17 etc.
# -g1 (line tables) is enough for the reports' file:line stacks and compiles in about 60% of
# -g's time. Everything compiles at -O0 but the kernels, core/kernels/ (KERNEL_OPT=-O1), where
# the suites spend their time: under both sanitizers the test files take five times longer
# at -O1 (Boost.Test's macros) and the rest of the library twice as long, which would save
# the suites under 10% of their run.
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer
asan:
	CXXFLAGS="$(SAN) -O0 -g1" LDFLAGS="$(SAN)" UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ASAN_OPTIONS=detect_leaks=1 $(MAKE) BUILD=$(BUILD)-asan TEST_OPT=-O0 KERNEL_OPT=-O1 test

# libFuzzer targets tests/fuzz/fuzz_*.cpp (clang: tools/scripts/install_deps.sh --fuzz), each
# run for FUZZ_SECONDS from its seed corpus tests/fuzz/corpus/<name>/; new inputs go to build-fuzz/.
FUZZ_SECONDS ?= 10
FUZZ_NAMES   := $(patsubst tests/fuzz/%.cpp,%,$(wildcard tests/fuzz/fuzz_*.cpp))
fuzz:
	CXXFLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -O1 -g" \
	  LDFLAGS="-fsanitize=fuzzer,address,undefined" $(MAKE) CXX=clang++ OMP=0 BUILD=build-fuzz fuzz-run
fuzz-run: $(FUZZ_NAMES:%=$(BUILD)/fuzz/%)
	@bad=; for t in $(FUZZ_NAMES); do mkdir -p $(BUILD)/fuzz/corpus/$$t; \
	  if $(BUILD)/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/$$t- \
	      $(BUILD)/fuzz/corpus/$$t tests/fuzz/corpus/$$t >$(BUILD)/fuzz/$$t.log 2>&1; then r="no crash"; \
	  else r="CRASH, see $(BUILD)/fuzz/$$t.log"; bad="$$bad $$t"; fi; \
	  echo "$$t: $$(sed -n 's/^stat::number_of_executed_units: //p' $(BUILD)/fuzz/$$t.log) executions in $(FUZZ_SECONDS) s, $$r"; \
	done; test -z "$$bad"
$(BUILD)/fuzz/%: $(OBJ)/tests/fuzz/%.o $(PROG_PRIV_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CXX) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# Benchmarks link OpenBLAS (comparison only) and are built by `make bench` alone.
$(BUILD)/bench/%: $(OBJ)/tools/bench/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CXX) $(LDFLAGS) $^ -o $@ $(LDLIBS) -lopenblas

bench: all $(BENCH_BIN)
	@for b in $(BENCH_BIN); do echo "# $$b"; $$b || exit 1; done

# Every chapter program (ARGS go to each, e.g. ARGS=--quick): the eight sections at their
# defaults, the three 10.7 exercise programs in a short form that shows their point
# (RUN_ARGS_<name>; `make exercises` runs them in full), each one's milliseconds after it.
# Each one's output is also kept for the companion pages (`make book`): $(BOOK_RUN)/<name>.log
# (renamed into place when the program succeeds), the source lines of its banners and
# figures in <name>.trace (D2L_BOOK_TRACE, tools/d2l/cli/source_trace.h), and every PNG
# figure gets an SVG beside it.
# First, one at a time with the machine to themselves, the programs of RUN_ALONE: the NLI
# model keeps both cores busy, and attention_cost measures time. Then the others, RUN_JOBS at
# a time (default: one per core), longest first: they run on one thread (small matrices,
# tools/d2l/cli/cli_args.h) or for a fraction of a second, so on 2 cores two of them take the
# time of one; each one's output is printed whole when it ends. RUN_JOBS=1 runs them in turn.
BOOK_RUN := $(BUILD)/book-run
BOOK_OUT ?= out/book
EXERCISE_PROGRAMS := attention_cost transformer_lm vision_transformer
SECTION_NAMES := $(filter-out $(EXERCISE_PROGRAMS),$(CHAPTER_NAMES))
# attention_cost up to n = 1024, the attention layer alone: the n² memory of the plain layer
# against the memory-efficient one's n, in seconds instead of a minute and 1.8 GB.
RUN_ARGS_attention_cost := --sizes 128,256,512,1024 --layer attention
# vision_transformer's first 3 of its 10 epochs (the same lines as the full run's first three):
# test accuracy already far above chance, and the class token's attention drawn.
RUN_ARGS_vision_transformer := --epochs 3
# transformer_lm's two models at 30 of their 60 epochs, and cached decoding timed over 200
# tokens instead of 400: the model without the causal mask still has the lower training loss
# and the far higher next-token perplexity, and fails to generate.
RUN_ARGS_transformer_lm := --epochs 30 --gen-length 200
# The programs whose trained models the live panels run (tools/browser/) also save them:
# --save $(BOOK_RUN)/<name>.safetensors (one more "saved ..." line in their output).
BOOK_SAVE := bahdanau_attention transformer natural_language_inference_attention
RUN_ALONE := attention_cost natural_language_inference_attention
RUN_POOLED := transformer bahdanau_attention vision_transformer transformer_lm
RUN_POOLED += $(filter-out $(RUN_ALONE) $(RUN_POOLED),$(CHAPTER_NAMES))
RUN_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
ms_since = $$(( ($$(date +%s%N) - $(1)) / 1000000 )) ms
# tools/scripts/run_programs.sh runs them; each program is one word: its name and RUN_ARGS.
run_programs = BUILD='$(BUILD)' BOOK_RUN='$(BOOK_RUN)' TIER='$(TIER)' BOOK_SAVE='$(BOOK_SAVE)' bash tools/scripts/run_programs.sh
program_word = '$(strip $(1) $(RUN_ARGS_$(1)))'
run: $(CHAPTERS) $(BOOK_RUN)/args
	@$(run_programs) all $(RUN_JOBS) -- $(foreach c,$(RUN_ALONE),$(call program_word,$(c))) \
	  -- $(foreach c,$(RUN_POOLED),$(call program_word,$(c)))

# Each exercise the section programs register (their --list-exercises, which build/tools/book
# --list-runs gathers with the pages' additions, tools/programs/book/catalog.h) as its own
# run: output and trace in $(EX_RUN)/<id>.log/.trace (id "10.7-4"), figures in
# out/exercises/<id>/. `make exercises` runs them all (a long run: several train a
# model in full); `make book` only those whose log is missing or older than their program
# or than the last change of ARGS.
EX_RUN := $(BOOK_RUN)/exercises
define run_exercises
mkdir -p $(EX_RUN); set -o pipefail; all=$$(date +%s%N); \
$(BUILD)/tools/book --list-runs >$(EX_RUN)/list.tsv && while IFS=$$'\t' read -r id prog args; do \
  if [ -n "$(1)" ] && [ $(EX_RUN)/$$id.log -nt $(BUILD)/chapters/$$prog ] && [ $(EX_RUN)/$$id.log -nt $(BOOK_RUN)/args ]; then continue; fi; \
  echo "== $$id: $(BUILD)/chapters/$$prog $$args $$(tr '\0' ' ' <$(BOOK_RUN)/args)"; t=$$(date +%s%N); rm -f $(EX_RUN)/$$id.trace $(EX_RUN)/$$id.log; \
  D2L_BOOK_TRACE=$(EX_RUN)/$$id.trace xargs -0 -a $(BOOK_RUN)/args $(BUILD)/chapters/$$prog $$args --out out/exercises/$$id </dev/null \
    | tee $(EX_RUN)/$$id.log.part && mv $(EX_RUN)/$$id.log.part $(EX_RUN)/$$id.log || exit 1; \
  echo "[make] $$id: $(call ms_since,$$t)"; \
done <$(EX_RUN)/list.tsv; echo "[make] exercises: $(call ms_since,$$all)"
endef
exercises: $(CHAPTERS) $(BUILD)/tools/book $(BOOK_RUN)/args
	@$(call run_exercises,)

# The companion pages: $(BOOK_OUT)/index.html and one page per section with its exercises
# (tools/programs/book/pages.h), from the sections' runs, reused when newer than the program
# and made with the same ARGS (a fresh `make run`), else run again, and the exercise runs.
# With emscripten the pages get their live panels (`make browser`, below).
book: $(SECTION_NAMES:%=$(BOOK_RUN)/%.log) $(BUILD)/tools/book $(CHAPTERS) browser
	@$(call run_exercises,stale-only)
	@start=$$(date +%s%N); $(BUILD)/tools/book --runs $(BOOK_RUN) --out $(BOOK_OUT) \
	    $(if $(HAVE_EMXX),--engine $(BROWSER_JS)) && \
	  echo "[make] open $(BOOK_OUT)/index.html (pages written in $(call ms_since,$$start))"
$(BOOK_RUN)/%.log: $(BUILD)/chapters/% $(BOOK_RUN)/args
	@echo "== $<"; $(run_programs) one $* $(RUN_ARGS_$*)
# ARGS reach the programs as words, split as a shell splits them (quotes and backslashes
# honoured: ARGS="--quick --translate \"i'm cold .\"" is two options) but never run as
# commands: the value goes through the environment, xargs splits it into this file, one
# NUL-ended word each, and `xargs -0 -a` hands the words to each program. Rewritten only when
# ARGS change, so a run with other arguments is not reused.
# $(value ARGS): the text as given, never expanded by make ('$(shell ...)' stays text, '$5' stays);
# and ARGS itself is not exported, which would expand it for every recipe's environment.
unexport ARGS
$(BOOK_RUN)/args: export D2L_MAKE_ARGS := $(value ARGS)
$(BOOK_RUN)/args: FORCE
	@mkdir -p $(dir $@); set -o pipefail; printf '%s' "$$D2L_MAKE_ARGS" | xargs -r printf '%s\0' >$@.new || \
	  { rm -f $@.new; echo "[make] ARGS cannot be split into words: $$D2L_MAKE_ARGS" >&2; exit 2; }; \
	  cmp -s $@.new $@ && rm -f $@.new || mv $@.new $@
FORCE:

# The engine for the companion pages' live panels (tools/browser/): the reference tier on one
# thread, compiled by emscripten (em++; tools/scripts/install_deps.sh --browser) into one
# script with the WebAssembly embedded (SINGLE_FILE), which pages opened from file:// can
# load. Its own build folder: another compiler, so no object is shared. Without em++ the
# target says so and `make book` writes the pages without the panels.
EMXX         ?= em++
BROWSER      := build-browser
BROWSER_JS   := $(BROWSER)/d2l_engine.js
HAVE_EMXX    := $(shell command -v $(EMXX) 2>/dev/null)
BROWSER_SRC  := $(wildcard core/*.cpp core/ops/*.cpp core/engine/*.cpp core/nn/*.cpp core/io/*.cpp core/debug/*.cpp \
                  core/kernels/reference/*.cpp layers/*.cpp layers/exercises/*.cpp tools/d2l/data/*.cpp tools/d2l/train/*.cpp \
                  tools/d2l/figures/*.cpp tools/d2l/figures/raster/*.cpp tools/browser/*.cpp) core/kernels/seam.cpp \
                tools/programs/backward_steps/attention_backward.cpp
BROWSER_SRC  := $(filter-out tools/d2l/data/glove.cpp tools/d2l/train/nli_setup.cpp,$(BROWSER_SRC))
# 10.2's panel runs the section's own code in a run: the section's file, its main renamed,
# its room (the options the run declares) and what that main calls (tools/d2l/cli/).
BROWSER_SRC  += chapters/nadaraya_watson.cpp chapters/run/nadaraya_watson.cpp $(wildcard tools/d2l/cli/*.cpp)
$(BROWSER)/obj/chapters/nadaraya_watson.o: EMFLAGS += -Dmain=d2l_nadaraya_watson_main
BROWSER_OBJ  := $(BROWSER_SRC:%.cpp=$(BROWSER)/obj/%.o)
# The entry points, and the room that registers itself at start-up, linked whole (an archive
# member nothing else calls would be dropped).
BROWSER_API  := $(BROWSER)/obj/tools/browser/api.o $(BROWSER)/obj/tools/browser/backward.o \
                $(BROWSER)/obj/tools/browser/training.o $(BROWSER)/obj/chapters/run/nadaraya_watson.o
# -fwasm-exceptions: the engine's errors are exceptions, which emscripten otherwise turns into
# aborts; WebAssembly's own, not -fexceptions' JavaScript trampolines around every call that
# may throw (the script is 22% smaller).
# -msimd128: the compiler may use WebAssembly's 128-bit vectors where a loop's elements are
# independent (the reference GEMM's rows, element-wise ops): each lane rounds as the scalar
# code does, so the results are the same, and training in the page about 1.5 times faster.
# stb's headers (Debian's libstb-dev) through a folder of their own: /usr/include is the host's.
EMFLAGS      := -O2 -msimd128 -std=c++17 -Wall -Wextra -Wno-unknown-pragmas -MMD -MP -I. -isystem $(BROWSER)/include -fwasm-exceptions \
                -DD2L_FAST=0 -DD2L_REFERENCE_ONLY=1
# The entry points (tools/browser/api.cpp, backward.cpp, and training.cpp: 10.4's training in
# the page, run in a Web Worker), and malloc/free: the page copies its strings into the heap
# itself (ccall would copy them onto the small stack).
BROWSER_EXPORTS := _d2l_load,_d2l_translate,_d2l_masked_softmax,_d2l_scoring,_d2l_positional_encoding,_d2l_nadaraya_watson,_d2l_nli
BROWSER_EXPORTS := $(BROWSER_EXPORTS),_d2l_backward,_d2l_backward_gradcheck
BROWSER_EXPORTS := $(BROWSER_EXPORTS),_d2l_train_start,_d2l_train_epoch,_d2l_train_translate
BROWSER_EXPORTS := $(BROWSER_EXPORTS),_d2l_limits,_d2l_vocab,_malloc,_free
EMLINK       := -O2 -fwasm-exceptions -sSINGLE_FILE=1 -sMODULARIZE=1 -sEXPORT_NAME=D2LEngine -sALLOW_MEMORY_GROWTH=1 \
                -sENVIRONMENT=web -sEXPORTED_RUNTIME_METHODS=ccall,FS,stringToUTF8,lengthBytesUTF8 \
                -sEXPORTED_FUNCTIONS=$(BROWSER_EXPORTS)
# emscripten's JS optimiser runs on Node.js and needs Debian's acorn when Node is not Debian's.
EMENV        := NODE_PATH=$${NODE_PATH:-/usr/share/nodejs}
$(BROWSER)/include/stb:
	@mkdir -p $(dir $@) && ln -sfn /usr/include/stb $@
$(BROWSER)/compile.flags: FORCE
	@$(shell mkdir -p $(dir $@))$(file >$@.new,$(EMXX) $(EMFLAGS))cmp -s $@.new $@ && rm -f $@.new || mv $@.new $@
$(BROWSER)/obj/%.o: %.cpp $(BROWSER)/compile.flags | $(BROWSER)/include/stb
	@mkdir -p $(dir $@)
	$(call say,EMXX,$<)
	$(Q)$(EMENV) $(EMXX) $(EMFLAGS) -c $< -o $@
$(BROWSER_JS): $(BROWSER_OBJ)
	$(call say,EMLINK,$@)
	$(Q)rm -f $(BROWSER)/libd2l.a && $(EMENV) emar rcs $(BROWSER)/libd2l.a $(filter-out $(BROWSER_API),$^)
	$(Q)$(EMENV) $(EMXX) $(EMLINK) $(BROWSER_API) $(BROWSER)/libd2l.a -o $@
	@echo "[make] $@: $$(stat -c %s $@) bytes"
ifneq ($(REF_SEQ2SEQ),)
ifneq ($(BUILD),build-ref)
$(REF_SEQ2SEQ): FORCE
	@$(MAKE) --no-print-directory FAST=0 $@
endif
endif
browser: $(if $(HAVE_EMXX),$(BROWSER_JS))
	$(if $(HAVE_EMXX),,@echo "[make] no $(EMXX) (emscripten): the pages get no live panels (bash tools/scripts/install_deps.sh --browser installs it)")
-include $(wildcard $(BROWSER)/obj/*.d $(BROWSER)/obj/*/*.d $(BROWSER)/obj/*/*/*.d $(BROWSER)/obj/*/*/*/*.d)

# One chapter program: make run-transformer, make run-transformer ARGS="--quick".
$(CHAPTER_NAMES:%=run-%): export D2L_MAKE_ARGS := $(value ARGS)
$(CHAPTER_NAMES:%=run-%): run-%: $(BUILD)/chapters/%
	@set -o pipefail; printf '%s' "$$D2L_MAKE_ARGS" | xargs -r printf '%s\0' | xargs -0 $<
# The unknown name reaches the shell through the environment, never as command text: a goal
# such as 'run-$$(touch x)' is printed, not run.
run-%: export D2L_RUN_NAME = $*
run-%:
	@printf "no chapter '%s'; make run-NAME takes one of: %s\n" "$$D2L_RUN_NAME" "$(CHAPTER_NAMES)" >&2; exit 2

# The example figures of tools/d2l/figures/README.md, written to $(BUILD)/figures/.
figures: $(BUILD)/tools/example_figures
	$< --out $(BUILD)/figures

# The book's data archives (fra-eng, SNLI, GloVe) into data/, each checked by its SHA-1.
data:
	bash tools/scripts/get_data.sh

# Regenerates the bundled NLI set chapters/data/snli-small/ (tools/programs/nli_set/nli_set.cpp); the
# suite checks that the committed files are this program's output.
nli-set: $(BUILD)/tools/nli_set
	$< --out chapters/data/snli-small

# Every build folder the targets above write (out/ and data/ are kept).
clean:
	rm -rf build build-serial build-asan build-fuzz build-ref build-ref-serial build-ref-asan build-browser

# The targets and switches, with the switches' current values.
help:
	@echo "targets:"
	@echo "  make              the library, chapter programs (build/chapters/) and tools (build/tools/)"
	@echo "  make test         build, run the suite; prints failures and 'N passed, N failed[, N skipped]'"
	@echo "                    (whole log: BUILD/test.log; one suite: TEST_ARGS=--run_test=core_softmax;"
	@echo "                    TIER_FREE=skip leaves out the suites no kernel tier changes: $(TIER_FREE_SUITES))"
	@echo "  make run          every chapter program (the 10.7 exercise programs in a short form); RUN_JOBS=N"
	@echo "                    of the one-thread ones at a time [$(RUN_JOBS)]"
	@echo "  make exercises    every exercise of the pages, each its own run (long: several train in full)"
	@echo "  make run-NAME     one chapter program, NAME one of: $(CHAPTER_NAMES)"
	@echo "  make book         the companion pages, BOOK_OUT/index.html (reuses a fresh make run and exercises);"
	@echo "                    with emscripten, each section's live panel runs the engine in the page"
	@echo "  make browser      the engine for the live panels, $(BROWSER_JS) (em++, reference tier)"
	@echo "  make figures      the example figures of tools/d2l/figures/README.md into BUILD/figures/"
	@echo "  make test-serial  the suite from a build without OpenMP (BUILD-serial/)"
	@echo "  make asan         the suite under AddressSanitizer + UBSan (BUILD-asan/)"
	@echo "                    (some suites only, without the programs: SUITES='core_* sec_*')"
	@echo "  make fuzz         each libFuzzer target for FUZZ_SECONDS (clang, build-fuzz/)"
	@echo "  make bench        kernels against OpenBLAS, models against PyTorch (build/bench/)"
	@echo "  make data         download the book's data sets into data/ (checks SHA-1)"
	@echo "  make nli-set      regenerate the bundled NLI set chapters/data/snli-small/"
	@echo "  make clean        remove every build folder"
	@echo "switches (NAME=value on the command line; current value in brackets):"
	@echo "  -jN               parallel jobs, the caller's choice (default 1)"
	@echo "  OMP=0|1           OpenMP [$(OMP)]"
	@echo "  NATIVE=0|1        -march=native; 0 builds portable code [$(NATIVE)]"
	@echo "  BUILD=DIR         build folder [$(BUILD)]"
	@echo "  FAST=0|1          kernel tier: 1 core/kernels/fast/ (build/), 0 core/kernels/reference/ (build-ref/) [$(FAST)]"
	@echo "  CXX, CXXFLAGS     compiler and flags [$(CXX)]"
	@echo "  V=0|1             1 prints each whole compiler command, 0 one line per file [$(V)]"
	@echo "  ARGS=...          options for run, run-NAME and book, e.g. ARGS=--quick"
	@echo "  BOOK_OUT=DIR      where make book writes the pages [$(BOOK_OUT)]"
	@echo "  TEST_ARGS=...     options for the suite's runner (Boost.Test)"
	@echo "  TEST_SPLIT=LIST   run the suites of a --run_test LIST in a second process, beside the rest"
	@echo "  FUZZ_SECONDS=N    seconds per fuzz target [$(FUZZ_SECONDS)]"

-include $(LIB_OBJ:.o=.d) $(PROG_PRIV_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(wildcard $(OBJ)/chapters/*.d $(OBJ)/chapters/run/*.d $(OBJ)/chapters/exercises/*.d $(OBJ)/tools/programs/*/*.d $(OBJ)/tools/bench/*.d $(OBJ)/tests/fuzz/*.d)
