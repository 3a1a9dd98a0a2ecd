# The Python module `wobble` (pybind11) and the Blender add-on zip that carries it.
#   wobble_python  -> BUILD/python/wobble.cpython-311-*.so (import with PYTHONPATH=BUILD/python)
#   blender_addon  -> BUILD/blender/wobble_blender.zip (Blender 3.4 bl_info + 4.2 extension manifest)
# Debian's Python 3.11 (/usr/bin/python3) is the interpreter Debian's Blender 3.4 embeds, so one
# module serves both.
set(Python_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python for the wobble module (Debian's, with numpy)")
find_package(Python 3.11 EXACT REQUIRED COMPONENTS Interpreter Development.Module)
set(PYBIND11_FINDPYTHON ON)
find_package(pybind11 CONFIG REQUIRED)

file(GLOB WOBBLE_PYTHON_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/src/*.cpp)
# NO_EXTRAS: no link-time optimisation (its serial link is slow on small machines; the work is in the
# libraries, whose objects are position independent).
pybind11_add_module(wobble_python NO_EXTRAS ${WOBBLE_PYTHON_SOURCES})
set_target_properties(wobble_python PROPERTIES
  OUTPUT_NAME wobble
  LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/python)
target_link_libraries(wobble_python PRIVATE wobble_core)
target_include_directories(wobble_python PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_compile_definitions(wobble_python PRIVATE WOBBLE_VERSION="${PROJECT_VERSION}")

# Neural fields (Simulation(subspace="neural")) need LibTorch in the module, and so in the add-on:
# off by default, so that the module and the add-on depend on nothing beyond Python and numpy.
option(WOBBLE_PYTHON_NEURAL "Python module with neural skinning fields (links LibTorch)" OFF)
if(WOBBLE_PYTHON_NEURAL)
  if(NOT WOBBLE_BUILD_NEURAL)
    message(FATAL_ERROR "WOBBLE_PYTHON_NEURAL needs WOBBLE_BUILD_NEURAL=ON")
  endif()
  target_link_libraries(wobble_python PRIVATE wobble_neural)
  target_compile_definitions(wobble_python PRIVATE WOBBLE_HAVE_NEURAL)
endif()

# The add-on: python files from blender/wobble_blender plus the compiled module, zipped by a
# small Python script (no zip tool needed).
file(GLOB WOBBLE_BLENDER_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/blender/wobble_blender/*)
set(WOBBLE_BLENDER_ZIP ${PROJECT_BINARY_DIR}/blender/wobble_blender.zip)
add_custom_command(OUTPUT ${WOBBLE_BLENDER_ZIP}
  COMMAND ${Python_EXECUTABLE} ${PROJECT_SOURCE_DIR}/blender/package_addon.py
          ${PROJECT_SOURCE_DIR}/blender/wobble_blender $<TARGET_FILE:wobble_python> ${WOBBLE_BLENDER_ZIP}
  DEPENDS wobble_python ${WOBBLE_BLENDER_FILES} ${PROJECT_SOURCE_DIR}/blender/package_addon.py
  VERBATIM
  COMMENT "Packaging the Blender add-on (blender/wobble_blender.zip)")
add_custom_target(blender_addon ALL DEPENDS ${WOBBLE_BLENDER_ZIP})

if(WOBBLE_BUILD_TESTS)
  # Python tests: Debian's python3 with numpy, the module from this build, the CLI for parity.
  add_test(NAME python.module
    COMMAND ${Python_EXECUTABLE} -m unittest discover -v -s ${PROJECT_SOURCE_DIR}/python/tests -p "test_*.py")
  set_tests_properties(python.module PROPERTIES
    TIMEOUT 300
    ENVIRONMENT "OMP_NUM_THREADS=1;PYTHONPATH=${PROJECT_BINARY_DIR}/python;WOBBLE_CLI=$<TARGET_FILE:wobble>;WOBBLE_BUNDLED_ASSETS=${WOBBLE_BUNDLED_ASSETS};WOBBLE_SHARED_ASSETS=${PROJECT_SOURCE_DIR}/../shared/assets")
  # Blender: installs the add-on from the zip into a scratch user folder, plays and bakes.
  add_test(NAME blender.addon
    COMMAND ${Python_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/blender_addon/run_blender_test.py
            --zip ${WOBBLE_BLENDER_ZIP} --cli $<TARGET_FILE:wobble>
            --character ${WOBBLE_BUNDLED_ASSETS}/clonk.glb
            --script ${PROJECT_SOURCE_DIR}/tests/blender_addon/addon_parity.py)
  set_tests_properties(blender.addon PROPERTIES TIMEOUT 600)
endif()
