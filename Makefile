# wobble: every entry point installs what it needs, configures and builds.
#   make demo    set-up, then bake the bundled character (the main job)
#   make test    set-up, then build and run every test
#   make bench   set-up, then run the benchmarks (figures in docs/benchmarks.md)
#   make web     the viewer for the browser (WebAssembly + WebGL 2) in build-web/site
#   make python  the Python module (build/python)
#   make blender-addon  the Blender add-on zip (build/blender/wobble_blender.zip)
#   make fuzz    the fuzz targets (clang, libFuzzer + ASan + UBSan), FUZZ_SECONDS each (default 300)
BUILD_DIR ?= build
BUILD_TYPE ?= Release
WEB_BUILD_DIR ?= build-web
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
FUZZ_BUILD_DIR ?= build-fuzz
FUZZ_SECONDS ?= 300
# ccache keys on paths relative to the checkout, so a fresh clone reuses this machine's cache.
export CCACHE_BASEDIR := $(CURDIR)

.PHONY: all deps deps-core configure build demo test bench web python blender-addon fuzz fuzz-build clean

all: build

deps-core:
	scripts/install-deps.sh core

deps:
	scripts/install-deps.sh test

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DWOBBLE_FUZZ_BUILD_DIR=$(abspath $(FUZZ_BUILD_DIR)) $(CMAKE_FLAGS)

configure: $(BUILD_DIR)/build.ninja

build: deps configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	scripts/demo.sh $(BUILD_DIR)

test: build web fuzz-build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# The fuzz build: its own folder, Debian's clang, no build type (-O1 and the sanitizers, asserts on).
$(FUZZ_BUILD_DIR)/build.ninja:
	cmake -S fuzz -B $(FUZZ_BUILD_DIR) -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=

fuzz-build: deps $(FUZZ_BUILD_DIR)/build.ninja
	cmake --build $(FUZZ_BUILD_DIR) -j $(JOBS)

fuzz: fuzz-build
	fuzz/run.sh campaign $(FUZZ_BUILD_DIR) $(FUZZ_SECONDS)

web: deps
	scripts/build-web.sh $(WEB_BUILD_DIR)

python: deps configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target wobble_python

blender-addon: deps configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target blender_addon

bench: build
	scripts/bench.sh $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR) $(WEB_BUILD_DIR) $(FUZZ_BUILD_DIR)
