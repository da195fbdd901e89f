# d2l-attention-cpp: one GNU Makefile, direct compiler calls (see README.md).
#   make            optimised library, chapter programs, tools      make test        Boost.Test suite
#   make bench      kernels vs OpenBLAS, PyTorch comparisons        make run         every chapter program
#   make test-serial the suite from a build without OpenMP          make clean
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

.PHONY: all chapters tools test test-serial bench run clean format data
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

format:
	clang-format -i $(wildcard core/*.h core/*.cpp core/kernels/* layers/* chapters/*.cpp tools/*.h tools/*.cpp tests/*.cpp)

clean:
	rm -rf build build-serial build-asan

-include $(LIB_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(wildcard $(BUILD)/obj/chapters/*.d $(BUILD)/obj/tools/*/*.d)
