# cutile2triton — build, test and benchmark.
#
#   make            build/cutile2triton, build/libcutile2triton.a, build/libcutile2triton.so
#   make test       every test; ends with "N passed, M failed"
#   make bench      parse + emit the standard library, against CPython's ast
#   make asan       the tool built with AddressSanitizer + UndefinedBehaviorSanitizer
#   make fuzz       long fuzzing run of the sanitizer build (FUZZ_SECONDS, FUZZ_SEED, FUZZ_JOBS)
#   make report     build/perf/report.md + report.png from the last benchmark run
#   make clean

CC      ?= cc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -Wall -Wextra -Werror -Wno-unused-parameter -D_POSIX_C_SOURCE=200809L
CPPFLAGS += -Iinclude -Isrc
# -lm: the C math functions lower_pyvalue.c folds math.* with
LDLIBS  += -lm
PYTHON  ?= python3

BUILD   := build
ASAN_BUILD := build/asan

# The library: every stage under src/ except the command-line front end.
LIB_SRCS := $(sort $(wildcard src/*.c src/base/*.c src/tokenize/*.c src/parse/*.c src/emit/*.c \
              src/resolve/*.c src/lower/*.c) $(sort $(filter-out src/cli/main.c,$(wildcard src/cli/*.c))))
CLI_SRCS := src/cli/main.c
UNIT_SRCS := $(sort $(wildcard tests/unit/*.c))
HEADERS  := include/cutile2triton.h $(wildcard src/*.h src/*/*.h src/lower/ops/*.def tests/unit/*.h)

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
PIC_OBJS := $(LIB_SRCS:%.c=$(BUILD)/pic/%.o)
ASAN_OBJS := $(LIB_SRCS:%.c=$(ASAN_BUILD)/obj/%.o) $(CLI_SRCS:%.c=$(ASAN_BUILD)/obj/%.o)
SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# The library's objects keep every symbol hidden except the C2T_API entry points
# of include/cutile2triton.h: libcutile2triton.so exports only c2t_* (checked by
# tests/python/test_api.py), and inside another process (Python) no internal
# function can be bound to a same-named symbol of libc or libpython.
LIB_VISIBILITY := -fvisibility=hidden

.PHONY: all test unit oracle oracle-asan bench asan clean
all: $(BUILD)/cutile2triton $(BUILD)/libcutile2triton.a $(BUILD)/libcutile2triton.so

$(BUILD)/obj/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LIB_VISIBILITY) -c $< -o $@

$(BUILD)/pic/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LIB_VISIBILITY) -fPIC -c $< -o $@

$(ASAN_BUILD)/obj/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -O1 $(SANITIZE) -c $< -o $@

$(BUILD)/libcutile2triton.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libcutile2triton.so: $(PIC_OBJS)
	$(CC) -shared -o $@ $^ $(LDLIBS)

$(BUILD)/cutile2triton: $(BUILD)/obj/src/cli/main.o $(BUILD)/libcutile2triton.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/unit_tests: $(UNIT_SRCS:%.c=$(BUILD)/obj/%.o) $(BUILD)/libcutile2triton.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(ASAN_BUILD)/cutile2triton: $(ASAN_OBJS)
	$(CC) $(CFLAGS) $(SANITIZE) -o $@ $^ $(LDLIBS)

asan: $(ASAN_BUILD)/cutile2triton

# make test: every test suite, one summary line at the end.
test: all $(BUILD)/unit_tests $(ASAN_BUILD)/cutile2triton
	@$(PYTHON) tests/run_all.py

$(BUILD)/bench_roundtrip: $(BUILD)/obj/bench/bench_roundtrip.o $(BUILD)/libcutile2triton.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

bench: $(BUILD)/bench_roundtrip
	@$(PYTHON) bench/bench_stdlib.py --bench-binary $(BUILD)/bench_roundtrip

# make fuzz: the mutational fuzzer (tests/fuzz/fuzz.py) on the sanitizer build for FUZZ_SECONDS,
# FUZZ_JOBS worker processes, cases made from FUZZ_SEED; findings go to build/fuzz/findings/.
FUZZ_SECONDS ?= 600
FUZZ_SEED    ?= 1
FUZZ_JOBS    ?= 2
.PHONY: fuzz
fuzz: $(ASAN_BUILD)/cutile2triton
	@$(PYTHON) tests/fuzz/fuzz.py --seconds $(FUZZ_SECONDS) --seed $(FUZZ_SEED) --jobs $(FUZZ_JOBS) --minimize-seconds 60

# make report: markdown table + PNG chart of the last benchmark run
# (build/perf/last_run.json, written by `pytest tests/ops -k test_perf`; or PERF_RUN=path)
.PHONY: report
report:
	@$(PYTHON) tools/perf_report.py $(PERF_RUN)

clean:
	rm -rf $(BUILD)
