# wobble_add_test_binary(NAME FOLDER [SOURCES extra...] [LINK libraries...] [TIMEOUT seconds]):
# one GoogleTest binary of every tests/FOLDER/test_*.cpp (FOLDER "." for tests/ itself), with
# src/ and tests/ on its include path, the checkout's paths and the built `wobble` as compile
# definitions (WOBBLE_SOURCE_DIR, WOBBLE_SHARED_ASSETS, WOBBLE_BUNDLED_ASSETS, WOBBLE_CLI), built
# after the bundled assets and the CLI, each test a CTest test.
function(wobble_add_test_binary name folder)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "TIMEOUT" "SOURCES;LINK")
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 300)
  endif()
  file(GLOB sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/${folder}/test_*.cpp)
  add_executable(${name} ${sources} ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE ${arg_LINK} GTest::gtest GTest::gtest_main)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(${name} PRIVATE
    WOBBLE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    WOBBLE_SHARED_ASSETS="${PROJECT_SOURCE_DIR}/../shared/assets"
    WOBBLE_BUNDLED_ASSETS="${WOBBLE_BUNDLED_ASSETS}"
    WOBBLE_CLI="$<TARGET_FILE:wobble>")
  add_dependencies(${name} wobble bundled_assets)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT ${arg_TIMEOUT})
endfunction()

# wobble_add_portable_test_binary(NAME FOLDER LINK libraries...): the tests of an Eigen-only
# library (tests/FOLDER/test_*.cpp): no files, no CLI, the header-only libraries of the build
# (fmt header-only), tests/ and tests/FOLDER on the include path; the ARM64 cross build runs them
# under qemu, so CTest discovers them only in a native build.
function(wobble_add_portable_test_binary name folder)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "LINK")
  file(GLOB sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/${folder}/test_*.cpp)
  add_executable(${name} ${sources})
  target_link_libraries(${name} PRIVATE ${arg_LINK} wobble_header_only GTest::gtest GTest::gtest_main)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests
                                             ${PROJECT_SOURCE_DIR}/tests/${folder})
  target_compile_definitions(${name} PRIVATE FMT_HEADER_ONLY)  # the shared test helpers format with fmt
  if(NOT CMAKE_CROSSCOMPILING)
    gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 300)
  endif()
endfunction()
