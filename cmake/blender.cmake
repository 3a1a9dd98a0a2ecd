# The Blender add-on (blender/) and its tests in Blender 3.4 (Debian 12's, the host's) and 4.3
# (Debian 13's, in the tree scripts/install-blender4.sh makes; run by scripts/blender4.sh).
#   blender_addon -> BUILD/blender/wobble_blender.zip (Blender 4.2+ extension: blender_manifest.toml) and
#                    BUILD/blender/wobble_blender_legacy.zip (Blender 3.x add-on: bl_info), same sources
# The add-on calls wobble through its C API with ctypes (blender/wobble_blender/runtime.py), so one
# native library serves every Python a Blender embeds: wobble's runtime and offline libraries (the
# latter for the helper-bone bake, wobble/wobble_offline.h) as libwobble_blender.so, the C++
# runtime linked in statically and only the C API's wobble_* symbols exported, needing nothing but
# the C library.
if(NOT Python_EXECUTABLE)
  set(Python_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python for the add-on's packaging and tests (Debian's, with numpy)")
endif()

add_library(wobble_blender_native SHARED $<TARGET_OBJECTS:wobble_runtime_objects>
  $<TARGET_OBJECTS:wobble_offline_objects>)
target_link_libraries(wobble_blender_native PRIVATE Threads::Threads)
target_link_options(wobble_blender_native PRIVATE -static-libstdc++ -static-libgcc -Wl,--exclude-libs,ALL
  -Wl,--version-script=${PROJECT_SOURCE_DIR}/cmake/blender_native.map -Wl,--no-undefined)
set_target_properties(wobble_blender_native PROPERTIES
  OUTPUT_NAME wobble_blender
  LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/blender/native
  LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/blender_native.map)

# The zips: blender/wobble_blender's files plus the library, packed by a small Python script (no
# zip tool needed).
file(GLOB WOBBLE_BLENDER_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/blender/wobble_blender/*)
set(WOBBLE_BLENDER_ZIP ${PROJECT_BINARY_DIR}/blender/wobble_blender.zip)
set(WOBBLE_BLENDER_LEGACY_ZIP ${PROJECT_BINARY_DIR}/blender/wobble_blender_legacy.zip)
add_custom_command(OUTPUT ${WOBBLE_BLENDER_ZIP} ${WOBBLE_BLENDER_LEGACY_ZIP}
  COMMAND ${Python_EXECUTABLE} ${PROJECT_SOURCE_DIR}/blender/package_addon.py
          ${PROJECT_SOURCE_DIR}/blender/wobble_blender $<TARGET_FILE:wobble_blender_native> ${PROJECT_BINARY_DIR}/blender
  DEPENDS wobble_blender_native ${WOBBLE_BLENDER_FILES} ${PROJECT_SOURCE_DIR}/blender/package_addon.py
  VERBATIM
  COMMENT "Packaging the Blender add-on (blender/wobble_blender.zip, blender/wobble_blender_legacy.zip)")
add_custom_target(blender_addon ALL DEPENDS ${WOBBLE_BLENDER_ZIP} ${WOBBLE_BLENDER_LEGACY_ZIP})

if(NOT WOBBLE_BUILD_TESTS)
  return()
endif()

# Each Blender test twice: blender.3_4.NAME in the host's Blender 3.4 (the legacy zip, installed
# with Preferences > Install's operator) and blender.4_3.NAME in Debian 13's Blender 4.3 (the
# extension zip, installed with `blender --command extension install-file`). The 4.3 runs first
# wait for the tree, which scripts/install-deps.sh test installs in the background
# (install-blender4.sh --wait; its log when that failed). Timeouts only stop a hang: on a shared,
# loaded 2-core machine these tests ran 5 to 10 times longer than idle.
set(WOBBLE_BLENDER_VERSIONS 3_4 4_3)
function(wobble_blender_test name script timeout)
  foreach(version IN LISTS WOBBLE_BLENDER_VERSIONS)
    add_test(NAME blender.${version}.${name}
      COMMAND ${Python_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/blender_addon/run_blender_test.py
              --blender ${version} --build ${PROJECT_BINARY_DIR}/blender --cli $<TARGET_FILE:wobble>
              --character ${WOBBLE_BUNDLED_ASSETS}/clonk.glb
              --script ${PROJECT_SOURCE_DIR}/tests/blender_addon/${script}.py --timeout ${timeout})
    math(EXPR ctest_timeout "${timeout} + 660")  # Blender's own limit comes first and says so; the tree's wait
    set_tests_properties(blender.${version}.${name} PROPERTIES TIMEOUT ${ctest_timeout})
  endforeach()
endfunction()
# Plays and bakes: the preview equals `wobble bake`.
wobble_blender_test(addon addon_parity 1200)
# The properties are the deformers' descriptions; keyframed and live-tuned parameters bake as
# `wobble bake` with the same keys, and so do per-bone overrides; refused values report wobble's
# messages.
wobble_blender_test(parameters addon_parameters 900)
# Bake to Helper Bones: the Armature modifier alone plays the fitted helper bones as wobble's fit
# says; Remove Bake restores the armature and the vertex groups.
wobble_blender_test(helper_bone_bake addon_helper_bones 900)
# The two zips against Blender's documented extension manifest; the 4.3 run also with Blender's
# own `extension validate`.
foreach(version IN LISTS WOBBLE_BLENDER_VERSIONS)
  add_test(NAME blender.${version}.extension_package
    COMMAND ${Python_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/blender_addon/test_extension_package.py --blender ${version})
  set_tests_properties(blender.${version}.extension_package PROPERTIES
    TIMEOUT 780
    ENVIRONMENT "WOBBLE_ADDON_DIR=${PROJECT_SOURCE_DIR}/blender/wobble_blender;WOBBLE_BLENDER_ZIPS=${PROJECT_BINARY_DIR}/blender;WOBBLE_CHARACTER=${WOBBLE_BUNDLED_ASSETS}/clonk.glb")
endforeach()
