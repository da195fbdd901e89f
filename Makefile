# d2l-attention-cpp: one GNU Makefile, direct compiler calls (see README.md).
#   make            optimised library, chapter programs, tools      make test        Boost.Test suite
#   make bench      kernels vs OpenBLAS, PyTorch comparisons        make run         every chapter program
#   make test-serial the suite from a build without OpenMP          make clean
#   make asan       the suite under ASan+UBSan (build-asan/)         make fuzz        libFuzzer targets
#   make nli-set    regenerates chapters/data/snli-small/ (tools/nli_set.cpp)
SHELL    := /bin/bash
CXX      ?= g++
OMP      ?= 1
NATIVE   ?= 1
BUILD    ?= build
CXXFLAGS ?= -O3 -g
CXXFLAGS += -std=c++17 -Wall -Wextra -MMD -MP -I.
LDLIBS   += -lstb
# Build with every core unless the caller chose (-j1 for a readable log).
ifeq (,$(filter -j%,$(MAKEFLAGS)))
  MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif

ifeq ($(NATIVE),1)
  CXXFLAGS += -march=native
endif
ifeq ($(OMP),1)
  CXXFLAGS += -fopenmp
  LDFLAGS  += -fopenmp
  $(info [make] OpenMP on (OMP=0 for a serial build), NATIVE=$(NATIVE), BUILD=$(BUILD))
else
  CXXFLAGS += -Wno-unknown-pragmas
  $(info [make] OpenMP off, NATIVE=$(NATIVE), BUILD=$(BUILD))
endif

LIB_SRC   := $(wildcard core/*.cpp core/kernels/*.cpp layers/*.cpp tools/*.cpp)
LIB_OBJ   := $(LIB_SRC:%.cpp=$(BUILD)/obj/%.o)
LIB       := $(BUILD)/libd2l.a
CHAPTERS  := $(patsubst chapters/%.cpp,$(BUILD)/chapters/%,$(wildcard chapters/*.cpp))
CLI_TOOLS := $(patsubst tools/cli/%.cpp,$(BUILD)/tools/%,$(wildcard tools/cli/*.cpp))
TEST_SRC  := $(wildcard tests/*.cpp)
TEST_OBJ  := $(TEST_SRC:%.cpp=$(BUILD)/obj/%.o)
TEST_BIN  := $(BUILD)/tests/run_tests
BENCH_BIN := $(patsubst tools/bench/%.cpp,$(BUILD)/bench/%,$(wildcard tools/bench/*.cpp))

# Keep chapter and tool objects (make would delete them as intermediates).
.SECONDARY:
.PHONY: all chapters tools test test-serial asan fuzz fuzz-run bench run clean format data nli-set
all: $(LIB) $(CHAPTERS) $(CLI_TOOLS)
chapters: $(CHAPTERS)
tools: $(CLI_TOOLS)

$(BUILD)/obj/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/chapters/%: $(BUILD)/obj/chapters/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CXX) $(LDFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/tools/%: $(BUILD)/obj/tools/cli/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CXX) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# Boost.Test is linked dynamically; tests/main.cpp prints the closing "N passed, N failed".
$(BUILD)/obj/tests/%.o: CXXFLAGS += -DBOOST_TEST_DYN_LINK
$(TEST_BIN): $(TEST_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CXX) $(LDFLAGS) $^ -o $@ $(LDLIBS) -lboost_unit_test_framework

# The suite runs the chapter programs and the heatmap tool, so build them first.
test: all $(TEST_BIN)
	D2L_BUILD=$(BUILD) $(TEST_BIN) --log_level=test_suite --report_level=no --color_output=no $(TEST_ARGS) 2>&1 | tee $(BUILD)/test.log | grep -vE '^(Entering|Leaving) test case' ; exit $${PIPESTATUS[0]}

test-serial:
	$(MAKE) OMP=0 BUILD=build-serial test OMP_NUM_THREADS=1

# Library, tests and chapters with AddressSanitizer + UBSan, then the suite under them. The
# flags go through the environment so the child's `?=`/`+=` lines still add -std=c++17 etc.
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer
asan:
	CXXFLAGS="$(SAN) -O1 -g" LDFLAGS="$(SAN)" UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ASAN_OPTIONS=detect_leaks=1 $(MAKE) BUILD=build-asan test

# libFuzzer targets tests/fuzz/fuzz_*.cpp (clang: tools/install_deps.sh --fuzz), each run for
# FUZZ_SECONDS from its seed corpus tests/fuzz/corpus/<name>/; new inputs go to build-fuzz/.
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
$(BUILD)/fuzz/%: $(BUILD)/obj/tests/fuzz/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CXX) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# Benchmarks link OpenBLAS (comparison only) and are built by `make bench` alone.
$(BUILD)/bench/%: $(BUILD)/obj/tools/bench/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CXX) $(LDFLAGS) $^ -o $@ $(LDLIBS) -lopenblas

bench: all $(BENCH_BIN)
	@for b in $(BENCH_BIN); do echo "# $$b"; $$b || exit 1; done

run: $(CHAPTERS)
	@for c in $(CHAPTERS); do echo "== $$c"; $$c || exit 1; done

data:
	bash tools/get_data.sh

nli-set: $(BUILD)/tools/nli_set
	$(BUILD)/tools/nli_set --out chapters/data/snli-small

format:
	clang-format -i $(wildcard core/*.h core/*.cpp core/kernels/* layers/* chapters/*.cpp tools/*.h tools/*.cpp tests/*.cpp)

clean:
	rm -rf build build-serial build-asan build-fuzz

-include $(LIB_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(wildcard $(BUILD)/obj/chapters/*.d $(BUILD)/obj/tools/*/*.d $(BUILD)/obj/tests/fuzz/*.d)
