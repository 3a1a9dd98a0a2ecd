# wobble's libraries, each built static and shared from one set of position-independent objects,
# installed with its headers, a CMake export file (a component of find_package(wobble)) and a
# pkg-config file.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

option(WOBBLE_BUILD_SHARED "Also build the shared libraries (libwobble_NAME.so, versioned)" ON)
set(WOBBLE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/wobble)
set(WOBBLE_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})  # 0.x: every minor version may break the ABI
set_property(GLOBAL PROPERTY WOBBLE_COMPONENTS)

# wobble_add_library(NAME
#   SOURCES files...          compiled once
#   KERNELS files...          SIMD kernels, compiled once per instruction set (cmake/simd.cmake)
#   HEADERS files...          public headers, installed under include/ (paths relative to include/)
#   DEPENDS names...          other wobble libraries (runtime, io, ...): wobble::NAME links wobble::DEP,
#                             wobble::NAME_shared links wobble::DEP_shared
#   PUBLIC items...           other libraries in the link interface (their headers are in ours)
#   PRIVATE items...          used inside the .cpp files only ($<BUILD_INTERFACE:...> for header-only
#                             ones, so that they stay out of the installed interface)
#   REQUIRES packages...      what an installed consumer's find_package must find first (find_dependency
#                             arguments joined by '|', e.g. "Eigen3|3.4|NO_MODULE")
#   PC_REQUIRES modules...    pkg-config Requires / PC_PRIVATE modules... Requires.private
#   PC_LIBS_PRIVATE flags...  pkg-config Libs.private)
# Targets: wobble_NAME (static, alias wobble::NAME), wobble_NAME_shared (alias wobble::NAME_shared).
function(wobble_add_library name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" ""
    "SOURCES;KERNELS;HEADERS;DEPENDS;PUBLIC;PRIVATE;REQUIRES;PC_REQUIRES;PC_PRIVATE;PC_LIBS_PRIVATE")
  set(objects wobble_${name}_objects)
  add_library(${objects} OBJECT ${arg_SOURCES})
  if(arg_KERNELS)
    wobble_add_simd_kernels(${objects} ${arg_KERNELS})
  endif()
  set_target_properties(${objects} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${objects} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  set(static_depends)
  set(shared_depends)
  foreach(dep IN LISTS arg_DEPENDS)
    list(APPEND static_depends wobble_${dep})
    list(APPEND shared_depends wobble_${dep}_shared)
  endforeach()
  target_link_libraries(${objects} PUBLIC ${static_depends} ${arg_PUBLIC} PRIVATE ${arg_PRIVATE})
  target_include_directories(${objects} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>)

  set(kinds STATIC)
  if(WOBBLE_BUILD_SHARED)
    list(APPEND kinds SHARED)
  endif()
  set(installed)
  foreach(kind IN LISTS kinds)
    if(kind STREQUAL STATIC)
      set(target wobble_${name})
      set(export_name ${name})
      set(depends ${static_depends})
    else()
      set(target wobble_${name}_shared)
      set(export_name ${name}_shared)
      set(depends ${shared_depends})
    endif()
    add_library(${target} ${kind} $<TARGET_OBJECTS:${objects}>)
    add_library(wobble::${export_name} ALIAS ${target})
    set_target_properties(${target} PROPERTIES OUTPUT_NAME wobble_${name} EXPORT_NAME ${export_name})
    if(kind STREQUAL SHARED)
      set_target_properties(${target} PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${WOBBLE_SOVERSION})
    endif()
    target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                                                $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    target_link_libraries(${target} PUBLIC ${depends} ${arg_PUBLIC} PRIVATE ${arg_PRIVATE})
    target_compile_features(${target} PUBLIC cxx_std_20)
    list(APPEND installed ${target})
  endforeach()

  install(TARGETS ${installed} EXPORT wobble-${name}-targets COMPONENT ${name}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT ${name}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(EXPORT wobble-${name}-targets NAMESPACE wobble:: DESTINATION ${WOBBLE_CMAKE_DIR} COMPONENT ${name})
  foreach(header IN LISTS arg_HEADERS)
    get_filename_component(folder ${header} DIRECTORY)
    install(FILES ${PROJECT_SOURCE_DIR}/include/${header}
      DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${folder} COMPONENT ${name})
  endforeach()
  set_property(GLOBAL APPEND PROPERTY WOBBLE_COMPONENTS ${name})
  set_property(GLOBAL PROPERTY WOBBLE_COMPONENT_${name}_DEPENDS ${arg_DEPENDS})
  set_property(GLOBAL PROPERTY WOBBLE_COMPONENT_${name}_REQUIRES ${arg_REQUIRES})
  set_property(GLOBAL PROPERTY WOBBLE_COMPONENT_${name}_HEADERS ${arg_HEADERS})

  # pkg-config: wobble-NAME.pc
  set(pc_requires ${arg_PC_REQUIRES})
  foreach(dep IN LISTS arg_DEPENDS)
    list(APPEND pc_requires wobble-${dep})
  endforeach()
  list(JOIN pc_requires ", " WOBBLE_PC_REQUIRES)
  list(JOIN arg_PC_PRIVATE ", " WOBBLE_PC_REQUIRES_PRIVATE)
  list(JOIN arg_PC_LIBS_PRIVATE " " WOBBLE_PC_LIBS_PRIVATE)
  set(WOBBLE_PC_NAME ${name})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/wobble.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/wobble-${name}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/wobble-${name}.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT ${name})
endfunction()

# The public headers of a folder of include/ (relative paths), for HEADERS.
function(wobble_headers out)
  set(headers)
  foreach(pattern IN LISTS ARGN)
    file(GLOB found CONFIGURE_DEPENDS RELATIVE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/include/${pattern})
    list(APPEND headers ${found})
  endforeach()
  set(${out} ${headers} PARENT_SCOPE)
endfunction()

# After every library: lib/cmake/wobble/wobbleConfig.cmake (components), its version file.
function(wobble_install_package)
  get_property(components GLOBAL PROPERTY WOBBLE_COMPONENTS)
  set(WOBBLE_PACKAGE_COMPONENTS "")
  foreach(component IN LISTS components)
    get_property(depends GLOBAL PROPERTY WOBBLE_COMPONENT_${component}_DEPENDS)
    get_property(requires GLOBAL PROPERTY WOBBLE_COMPONENT_${component}_REQUIRES)
    string(APPEND WOBBLE_PACKAGE_COMPONENTS
      "set(wobble_${component}_DEPENDS \"${depends}\")\nset(wobble_${component}_REQUIRES \"${requires}\")\n")
  endforeach()
  set(WOBBLE_PACKAGE_ALL "${components}")
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/wobbleConfig.cmake.in
    ${PROJECT_BINARY_DIR}/package/wobbleConfig.cmake INSTALL_DESTINATION ${WOBBLE_CMAKE_DIR})
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/wobbleConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/package/wobbleConfig.cmake ${PROJECT_BINARY_DIR}/package/wobbleConfigVersion.cmake
    DESTINATION ${WOBBLE_CMAKE_DIR} COMPONENT runtime)
endfunction()
