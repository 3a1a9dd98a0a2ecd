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
