# Neural skinning fields (PhysSkin++ III-B/C/E) on LibTorch: library wobble_neural, the
# `wobble fields` command and the wobble_neural_tests binary. Torch headers cost ~40 s per
# translation unit, so the torch files share one precompiled header.
find_package(Torch REQUIRED)

# Data-parallel training: LibTorch's c10d process group on Gloo (Debian's libtorch is built with
# it and its target defines USE_C10D_GLOO; the header includes Gloo's own headers, libgloo-dev).
find_library(WOBBLE_GLOO_LIBRARY gloo REQUIRED)

wobble_library_sources(WOBBLE_NEURAL_SOURCES WOBBLE_NEURAL_KERNELS neural)
wobble_headers(WOBBLE_NEURAL_HEADERS wobble/neural/*.hpp)
separate_arguments(WOBBLE_TORCH_FLAGS UNIX_COMMAND "${TORCH_CXX_FLAGS}")
wobble_add_library(neural
  SOURCES ${WOBBLE_NEURAL_SOURCES} HEADERS ${WOBBLE_NEURAL_HEADERS} DEPENDS runtime io fields physics
  PUBLIC nlohmann_json::nlohmann_json
  PRIVATE fmt::fmt ${TORCH_LIBRARIES} ${WOBBLE_GLOO_LIBRARY}
  REQUIRES "nlohmann_json|3" "fmt" "Torch"
  PC_REQUIRES nlohmann_json PC_PRIVATE fmt)
target_compile_options(wobble_neural_objects PUBLIC ${WOBBLE_TORCH_FLAGS})
target_compile_options(wobble_neural PUBLIC ${WOBBLE_TORCH_FLAGS})
target_compile_definitions(wobble_neural_objects PRIVATE WOBBLE_DEFAULT_MODEL="${PROJECT_SOURCE_DIR}/models/physskin_small.pt"
  WOBBLE_DEFAULT_RIG_MODEL="${PROJECT_SOURCE_DIR}/models/physskin_clonk_rig.pt")
target_precompile_headers(wobble_neural_objects PRIVATE <torch/torch.h>)

file(GLOB WOBBLE_FIELDS_CLI_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/apps/wobble/fields/*.cpp)
target_sources(wobble PRIVATE ${WOBBLE_FIELDS_CLI_SOURCES})
target_link_libraries(wobble PRIVATE wobble_neural)
target_compile_definitions(wobble PRIVATE WOBBLE_HAVE_NEURAL)

if(WOBBLE_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
  wobble_add_test_binary(wobble_neural_tests neural LINK wobble_neural wobble_core ${TORCH_LIBRARIES})
  target_precompile_headers(wobble_neural_tests PRIVATE <torch/torch.h>)
endif()
