# wobble: every entry point installs what it needs, configures and builds.
#   make demo    set-up, then bake the bundled character (the main job)
#   make test    set-up, then build and run every test
#   make bench   set-up, then run the benchmarks (figures in docs/benchmarks.md)
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps deps-core configure build demo test bench clean

all: build

deps-core:
	scripts/install-deps.sh core

deps:
	scripts/install-deps.sh test

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS)

configure: $(BUILD_DIR)/build.ninja

build: deps configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	scripts/demo.sh $(BUILD_DIR)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

bench: build
	scripts/bench.sh $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR)
