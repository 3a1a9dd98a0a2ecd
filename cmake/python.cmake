# The Python package `wobble` (pybind11) and the Blender add-on zips that carry it.
#   wobble_python  -> BUILD/python/wobble/: python/wobble/*.py and the compiled _wobble.cpython-311-*.so
#                     (import with PYTHONPATH=BUILD/python)
#   blender_addon  -> BUILD/blender/wobble_blender.zip (Blender 4.2+ extension: manifest + wheel) and
#                     BUILD/blender/wobble_blender_legacy.zip (Blender 3.x add-on: bl_info), same sources
# Debian's Python 3.11 (/usr/bin/python3) is the interpreter Debian's Blender 3.4 embeds, so one
# module serves both.
set(Python_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python for the wobble module (Debian's, with numpy)")
find_package(Python 3.11 EXACT REQUIRED COMPONENTS Interpreter Development.Module)
set(PYBIND11_FINDPYTHON ON)
find_package(pybind11 CONFIG REQUIRED)

# The module is a shared object: the core library it links must be position independent.
set_target_properties(wobble_core PROPERTIES POSITION_INDEPENDENT_CODE ON)

file(GLOB WOBBLE_PYTHON_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/src/*.cpp)
# NO_EXTRAS: no link-time optimisation (its serial link is slow on small machines; the work is in wobble_core).
pybind11_add_module(wobble_python NO_EXTRAS ${WOBBLE_PYTHON_SOURCES})
set(WOBBLE_PYTHON_PACKAGE ${PROJECT_BINARY_DIR}/python/wobble)
set_target_properties(wobble_python PROPERTIES
  OUTPUT_NAME _wobble
  LIBRARY_OUTPUT_DIRECTORY ${WOBBLE_PYTHON_PACKAGE})
# The package's Python files (re-exports, wobble.batch) beside the compiled module; copied at
# configure time, and again whenever one changes.
file(GLOB WOBBLE_PYTHON_PACKAGE_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/wobble/*.py)
# (A build folder from before the package holds BUILD/python/wobble.*.so: removed, not to confuse.)
file(GLOB WOBBLE_PYTHON_OLD_MODULE ${PROJECT_BINARY_DIR}/python/wobble.*.so)
if(WOBBLE_PYTHON_OLD_MODULE)
  file(REMOVE ${WOBBLE_PYTHON_OLD_MODULE})
endif()
foreach(file ${WOBBLE_PYTHON_PACKAGE_FILES})
  get_filename_component(name ${file} NAME)
  configure_file(${file} ${WOBBLE_PYTHON_PACKAGE}/${name} COPYONLY)
endforeach()
# `wobble batch --scheduler` runs this Python with this build's package (command_batch.cpp).
set_property(SOURCE ${PROJECT_SOURCE_DIR}/apps/wobble/command_batch.cpp APPEND PROPERTY COMPILE_DEFINITIONS
  WOBBLE_PYTHON_EXECUTABLE="${Python_EXECUTABLE}" WOBBLE_PYTHON_PACKAGE_DIR="${PROJECT_BINARY_DIR}/python")
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
  set_target_properties(wobble_neural PROPERTIES POSITION_INDEPENDENT_CODE ON)  # linked into a shared module
endif()

# The add-on: python files from blender/wobble_blender plus the package, zipped by a small
# Python script (no zip tool needed).
file(GLOB WOBBLE_BLENDER_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/blender/wobble_blender/*)
set(WOBBLE_BLENDER_ZIP ${PROJECT_BINARY_DIR}/blender/wobble_blender.zip)
set(WOBBLE_BLENDER_LEGACY_ZIP ${PROJECT_BINARY_DIR}/blender/wobble_blender_legacy.zip)
add_custom_command(OUTPUT ${WOBBLE_BLENDER_ZIP} ${WOBBLE_BLENDER_LEGACY_ZIP}
  COMMAND ${Python_EXECUTABLE} ${PROJECT_SOURCE_DIR}/blender/package_addon.py
          ${PROJECT_SOURCE_DIR}/blender/wobble_blender ${WOBBLE_PYTHON_PACKAGE} ${PROJECT_BINARY_DIR}/blender
  DEPENDS wobble_python ${WOBBLE_BLENDER_FILES} ${WOBBLE_PYTHON_PACKAGE_FILES} ${PROJECT_SOURCE_DIR}/blender/package_addon.py
  VERBATIM
  COMMENT "Packaging the Blender add-on (blender/wobble_blender.zip, blender/wobble_blender_legacy.zip)")
add_custom_target(blender_addon ALL DEPENDS ${WOBBLE_BLENDER_ZIP} ${WOBBLE_BLENDER_LEGACY_ZIP})

if(WOBBLE_BUILD_TESTS)
  # Python tests: Debian's python3 with numpy, the module from this build, the CLI for parity.
  add_test(NAME python.module
    COMMAND ${Python_EXECUTABLE} -m unittest discover -v -s ${PROJECT_SOURCE_DIR}/python/tests -p "test_*.py")
  # Timeouts only stop a hang: on a shared, loaded 2-core machine these tests ran 5 to 10 times
  # longer than idle (python.module ~60 s, batch ~20 s, blender.addon ~45 s idle).
  set_tests_properties(python.module PROPERTIES
    TIMEOUT 1200
    ENVIRONMENT "OMP_NUM_THREADS=1;PYTHONPATH=${PROJECT_BINARY_DIR}/python;WOBBLE_CLI=$<TARGET_FILE:wobble>;WOBBLE_BUNDLED_ASSETS=${WOBBLE_BUNDLED_ASSETS};WOBBLE_SHARED_ASSETS=${PROJECT_SOURCE_DIR}/../shared/assets")
  # wobble.batch on a Dask LocalCluster of 2 worker processes on 127.0.0.1 (python3-distributed);
  # its own test (python/tests/batch is not a package, so python.module does not collect it).
  add_test(NAME python.batch_dask
    COMMAND ${Python_EXECUTABLE} -m unittest discover -v -s ${PROJECT_SOURCE_DIR}/python/tests/batch -p "test_*.py")
  set_tests_properties(python.batch_dask PROPERTIES
    TIMEOUT 1200
    ENVIRONMENT "OMP_NUM_THREADS=1;PYTHONPATH=${PROJECT_BINARY_DIR}/python;WOBBLE_CLI=$<TARGET_FILE:wobble>;WOBBLE_BUNDLED_ASSETS=${WOBBLE_BUNDLED_ASSETS};WOBBLE_SHARED_ASSETS=${PROJECT_SOURCE_DIR}/../shared/assets")
  # Blender tests: headless Blender installs the add-on from the zip into a scratch user folder
  # and runs tests/blender_addon/SCRIPT.py on the bundled character.
  function(wobble_blender_test name script timeout)
    add_test(NAME ${name}
      COMMAND ${Python_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/blender_addon/run_blender_test.py
              --zip ${WOBBLE_BLENDER_LEGACY_ZIP} --cli $<TARGET_FILE:wobble>
              --character ${WOBBLE_BUNDLED_ASSETS}/clonk.glb
              --script ${PROJECT_SOURCE_DIR}/tests/blender_addon/${script}.py --timeout ${timeout})
    math(EXPR ctest_timeout "${timeout} + 60")  # Blender's own limit comes first and says so
    set_tests_properties(${name} PROPERTIES TIMEOUT ${ctest_timeout})
  endfunction()
  # Plays and bakes: the preview equals `wobble bake`.
  wobble_blender_test(blender.addon addon_parity 1200)
  # The properties are the deformers' descriptions; keyframed and live-tuned parameters bake as
  # `wobble bake` with the same keys; refused values report wobble's messages.
  wobble_blender_test(blender.parameters addon_parameters 900)
  # The two zips against Blender's documented extension manifest and wheel layout (no Blender 4.2 here).
  add_test(NAME blender.extension_package
    COMMAND ${Python_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/blender_addon/test_extension_package.py)
  set_tests_properties(blender.extension_package PROPERTIES
    TIMEOUT 120
    ENVIRONMENT "WOBBLE_ADDON_DIR=${PROJECT_SOURCE_DIR}/blender/wobble_blender;WOBBLE_BLENDER_ZIPS=${PROJECT_BINARY_DIR}/blender;WOBBLE_CHARACTER=${WOBBLE_BUNDLED_ASSETS}/clonk.glb")
endif()
