# The two commands a new user runs: `make demo` and `make test`. Both install what is
# missing, configure and build first.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all bootstrap configure build test demo pod-demo bench fuzz install clean asan tsan

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

install: build
	@cmake --install $(BUILD)

clean:
	@rm -rf $(BUILD)
