# Which folders of src/ make each library, declared once: the main build (CMakeLists.txt), the
# browser build (web/CMakeLists.txt) and the fuzz build (fuzz/CMakeLists.txt) all take their
# sources from here, so a new file joins every build that compiles its library.
set(WOBBLE_LIBRARY_FOLDERS_runtime core simd deform capi)
set(WOBBLE_LIBRARY_FOLDERS_offline offline)
set(WOBBLE_LIBRARY_FOLDERS_io io)
set(WOBBLE_LIBRARY_FOLDERS_fields fields)
set(WOBBLE_LIBRARY_FOLDERS_physics physics)
set(WOBBLE_LIBRARY_FOLDERS_render render)
set(WOBBLE_LIBRARY_FOLDERS_neural neural)

# Sources that need a desktop library the browser lacks: assimp (web/assimp_stand_in.cpp answers
# instead), EGL and ffmpeg.
set(WOBBLE_DESKTOP_ONLY_SOURCES
  io/assimp_import.cpp io/assimp_conversion.cpp io/assimp_materials.cpp
  render/headless_context.cpp render/video_writer.cpp)

# wobble_library_sources(OUT_SOURCES OUT_KERNELS [NO_DESKTOP_ONLY] LIBRARY...): the .cpp files of
# the named libraries. Files named *_kernels.cpp are SIMD kernels, compiled once per instruction
# set (cmake/simd.cmake), and come back apart. NO_DESKTOP_ONLY leaves out the desktop-only files.
function(wobble_library_sources out_sources out_kernels)
  cmake_parse_arguments(PARSE_ARGV 2 arg "NO_DESKTOP_ONLY" "" "")
  set(root ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/..)
  set(sources)
  foreach(library IN LISTS arg_UNPARSED_ARGUMENTS)
    if(NOT DEFINED WOBBLE_LIBRARY_FOLDERS_${library})
      message(FATAL_ERROR "wobble_library_sources: no library named '${library}' (cmake/sources.cmake)")
    endif()
    foreach(folder IN LISTS WOBBLE_LIBRARY_FOLDERS_${library})
      file(GLOB found CONFIGURE_DEPENDS ${root}/src/${folder}/*.cpp)
      list(APPEND sources ${found})
    endforeach()
  endforeach()
  if(arg_NO_DESKTOP_ONLY)
    foreach(file IN LISTS WOBBLE_DESKTOP_ONLY_SOURCES)
      list(FILTER sources EXCLUDE REGEX "/src/${file}$")
    endforeach()
  endif()
  set(kernels ${sources})
  list(FILTER kernels INCLUDE REGEX "_kernels\\.cpp$")
  list(FILTER sources EXCLUDE REGEX "_kernels\\.cpp$")
  set(${out_sources} ${sources} PARENT_SCOPE)
  set(${out_kernels} ${kernels} PARENT_SCOPE)
endfunction()
