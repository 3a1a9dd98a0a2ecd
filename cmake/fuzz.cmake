# The fuzz targets in CTest: each runs for WOBBLE_FUZZ_TEST_SECONDS on its seeds and corpus, and
# replays its committed regression inputs (fuzz/regressions/TARGET/). They are built by
# `make fuzz-build` into WOBBLE_FUZZ_BUILD_DIR with clang (see fuzz/README.md); `make test`
# builds them first.
set(WOBBLE_FUZZ_BUILD_DIR ${PROJECT_SOURCE_DIR}/build-fuzz CACHE PATH "the fuzz build folder (make fuzz-build)")
set(WOBBLE_FUZZ_TEST_SECONDS 20 CACHE STRING "seconds each fuzz target runs in CTest")
file(GLOB wobble_fuzz_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/fuzz/targets/*.cpp)
foreach(source ${wobble_fuzz_sources})
  get_filename_component(name ${source} NAME_WE)
  add_test(NAME fuzz.${name}
           COMMAND ${PROJECT_SOURCE_DIR}/fuzz/run.sh short ${WOBBLE_FUZZ_BUILD_DIR} ${name} ${WOBBLE_FUZZ_TEST_SECONDS})
  add_test(NAME fuzz.${name}.regressions
           COMMAND ${PROJECT_SOURCE_DIR}/fuzz/run.sh replay ${WOBBLE_FUZZ_BUILD_DIR} ${name})
  set_tests_properties(fuzz.${name} PROPERTIES TIMEOUT 300 LABELS fuzz)
  set_tests_properties(fuzz.${name}.regressions PROPERTIES TIMEOUT 300 LABELS fuzz)
endforeach()
