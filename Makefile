# The two commands a new user runs: `make demo` and `make test`. Both install what is
# missing, configure and build first.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all bootstrap configure build test test-fast demo pod-demo bench install clean asan tsan fuzz asan-readers

all: build

bootstrap:
	@./scripts/bootstrap.sh

configure: bootstrap
	@mkdir -p $(BUILD)
	@cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS) > $(BUILD)/configure.log 2>&1 || { cat $(BUILD)/configure.log; exit 1; }
	@sed -n 's/^-- //; /optional parts/,/Python package/p' $(BUILD)/configure.log

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The suite, then the capture tests under ThreadSanitizer and the file readers under
# AddressSanitizer (each of those builds only the tests it runs). `make test-fast`: the suite alone.
test: test-fast
	@$(MAKE) --no-print-directory tsan
	@$(MAKE) --no-print-directory asan-readers

test-fast: build
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# Builds only what the demo runs (the CMake target demo_programs), not the tests and benchmarks.
demo: configure
	@cmake --build $(BUILD) -j $(JOBS) --target demo_programs
	@./scripts/demo.sh $(BUILD)

# Sampling mode: three workers with profiler servers, captured together, in the pod viewer.
pod-demo: configure
	@cmake --build $(BUILD) -j $(JOBS) --target demo_programs
	@./scripts/pod_demo.sh $(BUILD)

bench: build
	@./scripts/bench.sh $(BUILD)

# The whole suite under AddressSanitizer with UndefinedBehaviorSanitizer, and the capture tests
# under ThreadSanitizer, each in a build folder of its own. Leaks and races inside libraries
# mlprof does not build are suppressed in tests/sanitizers (each entry says why).
ASAN_FLAGS = -DMLPROF_SANITIZE=address -DMLPROF_BUILD_BENCH=OFF -DMLPROF_WITH_UI=OFF
TSAN_FLAGS = -DMLPROF_SANITIZE=thread -DMLPROF_BUILD_BENCH=OFF -DMLPROF_WITH_UI=OFF -DMLPROF_WITH_TORCH=OFF
# verify_asan_link_order=0: `mlprof run` preloads its library ahead of the program's ASan runtime.
ASAN_ENV = ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:verify_asan_link_order=0 \
  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitizers/lsan.supp:print_suppressions=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
TSAN_ENV = TSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitizers/tsan.supp:halt_on_error=1:second_deadlock_stack=1

asan: bootstrap
	@echo "== the whole suite under AddressSanitizer and UndefinedBehaviorSanitizer (build-asan) =="
	@$(ASAN_ENV) $(MAKE) --no-print-directory test-fast BUILD=build-asan CMAKE_FLAGS="$(ASAN_FLAGS)"

asan-readers: bootstrap
	@echo "== file readers under AddressSanitizer and UndefinedBehaviorSanitizer (build-asan) =="
	@$(MAKE) --no-print-directory configure BUILD=build-asan CMAKE_FLAGS="$(ASAN_FLAGS)"
	@$(ASAN_ENV) cmake --build build-asan -j $(JOBS) --target reader_tests
	@$(ASAN_ENV) ctest --test-dir build-asan --output-on-failure -j $(JOBS) -L "$$(cat build-asan/tests/reader_test_labels)"

tsan: bootstrap
	@echo "== capture tests under ThreadSanitizer (build-tsan) =="
	@$(MAKE) --no-print-directory configure BUILD=build-tsan CMAKE_FLAGS="$(TSAN_FLAGS)"
	@$(TSAN_ENV) cmake --build build-tsan -j $(JOBS) --target capture_tests
	@$(TSAN_ENV) ctest --test-dir build-tsan/tests/capture --output-on-failure -j $(JOBS)

# libFuzzer targets (tests/fuzz) built with clang, ASan and UBSan in build-fuzz, each run for
# FUZZ_SECONDS (60 by default); fails when one found a crash.
fuzz: bootstrap
	@./scripts/fuzz.sh

install: build
	@cmake --install $(BUILD)

clean:
	@rm -rf $(BUILD)
