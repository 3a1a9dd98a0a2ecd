# The Python package `wobble` (pybind11); the Blender add-on has its own native library
# (cmake/blender.cmake).
#   wobble_python  -> BUILD/python/wobble/: python/wobble/*.py and the compiled _wobble.cpython-311-*.so
#                     (import with PYTHONPATH=BUILD/python)
set(Python_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python for the wobble module (Debian's, with numpy)")
find_package(Python 3.11 EXACT REQUIRED COMPONENTS Interpreter Development.Module)
set(PYBIND11_FINDPYTHON ON)
find_package(pybind11 CONFIG REQUIRED)

file(GLOB WOBBLE_PYTHON_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/src/*.cpp)
# NO_EXTRAS: no link-time optimisation (its serial link is slow on small machines; the work is in the
# libraries, whose objects are position independent).
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
endif()

if(WOBBLE_BUILD_TESTS)
  # Python tests: Debian's python3 with numpy, the module from this build, the CLI for parity.
  add_test(NAME python.module
    COMMAND ${Python_EXECUTABLE} -m unittest discover -v -s ${PROJECT_SOURCE_DIR}/python/tests -p "test_*.py")
  # Timeouts only stop a hang: on a shared, loaded 2-core machine these tests ran 5 to 10 times
  # longer than idle (python.module ~60 s, batch ~20 s idle).
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
endif()
