# The renderer (library wobble_render), `wobble render`, its tests and benchmark.
#
# Portable sources (also compiled for WebGL 2 by Emscripten): every src/render/*.cpp EXCEPT the
# desktop-only files listed in WOBBLE_RENDER_DESKTOP_ONLY_SOURCES (EGL context, ffmpeg video).
# Under Emscripten, src/render/gl.hpp uses <GLES3/gl3.h>.
find_package(PkgConfig REQUIRED)
pkg_check_modules(EPOXY REQUIRED IMPORTED_TARGET epoxy)
pkg_check_modules(EGL REQUIRED IMPORTED_TARGET egl)

set(WOBBLE_RENDER_DESKTOP_ONLY_SOURCES
  ${PROJECT_SOURCE_DIR}/src/render/headless_context.cpp
  ${PROJECT_SOURCE_DIR}/src/render/video_writer.cpp)
wobble_library_sources(WOBBLE_RENDER_SOURCES WOBBLE_RENDER_KERNELS render)
wobble_headers(WOBBLE_RENDER_HEADERS wobble/render/*.hpp)
wobble_add_library(render
  SOURCES ${WOBBLE_RENDER_SOURCES} HEADERS ${WOBBLE_RENDER_HEADERS} DEPENDS runtime io
  PUBLIC nlohmann_json::nlohmann_json
  PRIVATE fmt::fmt PkgConfig::EPOXY PkgConfig::EGL
  REQUIRES "nlohmann_json|3" "fmt" "pkg-config|EPOXY|epoxy" "pkg-config|EGL|egl"
  PC_REQUIRES nlohmann_json PC_PRIVATE fmt epoxy egl)

# `wobble render`
file(GLOB WOBBLE_RENDER_CLI_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/apps/wobble/render/*.cpp)
target_sources(wobble PRIVATE ${WOBBLE_RENDER_CLI_SOURCES})
target_include_directories(wobble PRIVATE ${PROJECT_SOURCE_DIR}/apps/wobble)
target_link_libraries(wobble PRIVATE wobble_render)
target_compile_definitions(wobble PRIVATE WOBBLE_HAVE_RENDER)

if(WOBBLE_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
  wobble_add_test_binary(wobble_render_tests render SOURCES ${PROJECT_SOURCE_DIR}/tests/test_util.cpp
                         LINK wobble_render wobble_core PkgConfig::EPOXY PkgConfig::STB)
endif()

if(WOBBLE_BUILD_BENCH AND EXISTS ${PROJECT_SOURCE_DIR}/bench/render/bench_render.cpp)
  find_package(benchmark REQUIRED)
  add_executable(wobble_bench_render ${PROJECT_SOURCE_DIR}/bench/render/bench_render.cpp)
  target_link_libraries(wobble_bench_render PRIVATE wobble_render wobble_core benchmark::benchmark PkgConfig::EPOXY)
  target_include_directories(wobble_bench_render PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(wobble_bench_render PRIVATE WOBBLE_BUNDLED_ASSETS="${WOBBLE_BUNDLED_ASSETS}")
  add_dependencies(wobble_bench_render bundled_assets)
  # Beside the other benchmarks, where scripts/bench.sh looks for them.
  set_target_properties(wobble_bench_render PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)
endif()
