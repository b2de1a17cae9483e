# The two commands a new user runs: `make demo` and `make test`. Both install what is
# missing, configure and build first.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all bootstrap configure build test demo pod-demo bench install clean asan tsan

all: build

bootstrap:
	@./scripts/bootstrap.sh

configure: bootstrap
	@mkdir -p $(BUILD)
	@cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS) > $(BUILD)/configure.log 2>&1 || { cat $(BUILD)/configure.log; exit 1; }
	@sed -n 's/^-- //; /optional parts/,/web UI/p' $(BUILD)/configure.log

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

test: build
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

demo: build
	@./scripts/demo.sh $(BUILD)

# Sampling mode: three workers with profiler servers, captured together, in the pod viewer.
pod-demo: build
	@./scripts/pod_demo.sh $(BUILD)

bench: build
	@./scripts/bench.sh $(BUILD)

# The whole suite under AddressSanitizer with UndefinedBehaviorSanitizer, and the capture tests
# under ThreadSanitizer, each in a build folder of its own.
asan: bootstrap
	@$(MAKE) --no-print-directory test BUILD=build-asan CMAKE_FLAGS="-DMLPROF_SANITIZE=address -DMLPROF_BUILD_BENCH=OFF -DMLPROF_WITH_UI=OFF"

tsan: bootstrap
	@$(MAKE) --no-print-directory build BUILD=build-tsan CMAKE_FLAGS="-DMLPROF_SANITIZE=thread -DMLPROF_BUILD_BENCH=OFF -DMLPROF_WITH_UI=OFF -DMLPROF_WITH_TORCH=OFF"
	@ctest --test-dir build-tsan --output-on-failure -j $(JOBS) -L '^capture_'

install: build
	@cmake --install $(BUILD)

clean:
	@rm -rf $(BUILD)
