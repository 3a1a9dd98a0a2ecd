# wobble-viewer (GLFW + Dear ImGui on the renderer wobble_render) and its tests.
# Everything in apps/viewer but main.cpp goes into a small library that the tests link too.
if(NOT TARGET wobble_render)
  message(STATUS "wobble-viewer: skipped (no renderer library wobble_render)")
  return()
endif()
find_package(PkgConfig REQUIRED)
pkg_check_modules(GLFW3 REQUIRED IMPORTED_TARGET glfw3)
pkg_check_modules(IMGUI REQUIRED IMPORTED_TARGET imgui)
pkg_check_modules(EPOXY REQUIRED IMPORTED_TARGET epoxy)

file(GLOB WOBBLE_VIEWER_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/apps/viewer/*.cpp)
list(REMOVE_ITEM WOBBLE_VIEWER_SOURCES ${PROJECT_SOURCE_DIR}/apps/viewer/main.cpp)
add_library(wobble_viewer_lib STATIC ${WOBBLE_VIEWER_SOURCES})
target_include_directories(wobble_viewer_lib PUBLIC ${PROJECT_SOURCE_DIR}/apps/viewer PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(wobble_viewer_lib PUBLIC wobble_render wobble_core PkgConfig::IMGUI PkgConfig::GLFW3 PkgConfig::EPOXY)
target_compile_definitions(wobble_viewer_lib PRIVATE WOBBLE_VIEWER_ASSETS="${WOBBLE_BUNDLED_ASSETS}"
  WOBBLE_VIEWER_SHAPES="${PROJECT_SOURCE_DIR}/../shared/assets/shapes")  # the physics menu's shapes

add_executable(wobble-viewer ${PROJECT_SOURCE_DIR}/apps/viewer/main.cpp)
target_link_libraries(wobble-viewer PRIVATE wobble_viewer_lib)
add_dependencies(wobble-viewer bundled_assets)

if(WOBBLE_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
  file(GLOB WOBBLE_VIEWER_TEST_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/viewer/test_*.cpp)
  add_executable(wobble_viewer_tests ${WOBBLE_VIEWER_TEST_SOURCES})
  target_link_libraries(wobble_viewer_tests PRIVATE wobble_viewer_lib GTest::gtest GTest::gtest_main)
  target_compile_definitions(wobble_viewer_tests PRIVATE
    WOBBLE_VIEWER="$<TARGET_FILE:wobble-viewer>"
    WOBBLE_CLI="$<TARGET_FILE:wobble>"
    WOBBLE_BUNDLED_ASSETS="${WOBBLE_BUNDLED_ASSETS}"
    WOBBLE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  add_dependencies(wobble_viewer_tests wobble-viewer wobble bundled_assets)
  gtest_discover_tests(wobble_viewer_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 300)

  # The soaks' short version (scripts/soak.py --short; the long one is the README's soak
  # command): the viewer's physics mode and a Delta Mush loop under Xvfb, a batch locally and on
  # a Dask cluster on 127.0.0.1; memory, NaNs and outputs.
  set(WOBBLE_SOAKS viewer-physics,viewer-playback,batch-local)
  if(WOBBLE_BUILD_PYTHON)
    string(APPEND WOBBLE_SOAKS ",batch-dask")
  endif()
  add_test(NAME soak.short
           COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/scripts/soak.py ${PROJECT_BINARY_DIR} --short --only ${WOBBLE_SOAKS})
  set_tests_properties(soak.short PROPERTIES TIMEOUT 900 ENVIRONMENT "OMP_NUM_THREADS=1")

  # The browser build (make web) in headless Chromium: serves build-web/site on 127.0.0.1.
  set(WOBBLE_WEB_SITE ${PROJECT_SOURCE_DIR}/build-web/site CACHE PATH "The web viewer's site folder (make web)")
  add_test(NAME web_viewer_in_chromium
           COMMAND node ${PROJECT_SOURCE_DIR}/tests/web/browser_test.mjs ${WOBBLE_WEB_SITE})
  set_tests_properties(web_viewer_in_chromium PROPERTIES TIMEOUT 180)
  add_test(NAME web_physics_in_chromium
           COMMAND node ${PROJECT_SOURCE_DIR}/tests/web/physics_test.mjs ${WOBBLE_WEB_SITE})
  set_tests_properties(web_physics_in_chromium PROPERTIES TIMEOUT 600)
  add_test(NAME web_gpu_post_deformers_in_chromium
           COMMAND node ${PROJECT_SOURCE_DIR}/tests/web/gpu_test.mjs ${WOBBLE_WEB_SITE})
  set_tests_properties(web_gpu_post_deformers_in_chromium PROPERTIES TIMEOUT 300)
endif()
