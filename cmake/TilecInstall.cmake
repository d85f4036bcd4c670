# `cmake --install BUILD --prefix P`: tilec for programs outside this tree.
# Three components, so that a build of some targets installs what it has:
#   runtime  - the runtime (tilec::runtime) with the support library and chip
#              table it links, their headers, tilec-runtime.pc and the CMake
#              package (P/lib/cmake/tilec); both builds;
#   compiler - the compiler libraries (tilec::compiler, the builder API, and
#              what it links: pipeline, passes, dialects, target), every
#              public and generated header; the full build only;
#   tools    - tilec, tile-opt, tilec-run, tilec-analyze, tilec-aot,
#              tilec-gpu-run, tilec-profile (those the build has).
# An outside project does find_package(tilec CONFIG REQUIRED) and links
# tilec::runtime or tilec::compiler (cmake/tilecConfig.cmake.in finds their
# dependencies). examples/outside/ are such projects;
# test/Runtime/install-pkg-config.test and test/Pipeline/install-package.test
# build them against an installed prefix.

include(CMakePackageConfigHelpers)
set(TILEC_CMAKE_DIR lib/cmake/tilec)

# Exported names: tilec::runtime, tilec::support, tilec::chip.
set_target_properties(TilecRuntime PROPERTIES EXPORT_NAME runtime)
set_target_properties(TilecSupport PROPERTIES EXPORT_NAME support)
set_target_properties(TilecChip PROPERTIES EXPORT_NAME chip)
foreach(t TilecRuntime TilecSupport TilecChip)
  target_include_directories(${t} PUBLIC $<INSTALL_INTERFACE:include>)
endforeach()
install(TARGETS TilecRuntime TilecSupport TilecChip
        EXPORT tilecRuntimeTargets
        ARCHIVE DESTINATION lib COMPONENT runtime
        LIBRARY DESTINATION lib COMPONENT runtime)
# The closure of the runtime's public headers.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tilec/Runtime
        DESTINATION include/tilec COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/include/tilec/DType.h
        DESTINATION include/tilec COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/include/tilec/Support/Status.h
              ${PROJECT_SOURCE_DIR}/include/tilec/Support/GridRule.h
        DESTINATION include/tilec/Support COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/include/tilec/Target/Chip.h
        DESTINATION include/tilec/Target COMPONENT runtime)
install(EXPORT tilecRuntimeTargets NAMESPACE tilec::
        DESTINATION ${TILEC_CMAKE_DIR} COMPONENT runtime)
install(FILES ${PROJECT_BINARY_DIR}/lib/Runtime/tilec-runtime.pc
        DESTINATION lib/pkgconfig COMPONENT runtime)

if(NOT TILEC_RUNTIME_ONLY)
  # The builder's closure; the interpreter and op library on top of it.
  set(compiler_libs TilecBuilder TilecOpLibrary TilecInterpreter
      TilecPipeline TilecConversion TilecTransforms TilecAnalysis
      TilecTarget TilecMlirSupport TilecDialect TilecTileDialect
      TilecTileGPUDialect)
  set_target_properties(TilecBuilder PROPERTIES EXPORT_NAME compiler)
  set_target_properties(TilecOpLibrary PROPERTIES EXPORT_NAME ops)
  set_target_properties(TilecInterpreter PROPERTIES EXPORT_NAME interpreter)
  foreach(t ${compiler_libs})
    get_target_property(type ${t} TYPE)
    if(type STREQUAL "INTERFACE_LIBRARY")
      target_include_directories(${t} INTERFACE $<INSTALL_INTERFACE:include>)
    else()
      target_include_directories(${t} PUBLIC $<INSTALL_INTERFACE:include>)
    endif()
  endforeach()
  install(TARGETS ${compiler_libs} EXPORT tilecCompilerTargets
          ARCHIVE DESTINATION lib COMPONENT compiler
          LIBRARY DESTINATION lib COMPONENT compiler)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tilec DESTINATION include
          COMPONENT compiler FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
  # Generated: the dialects' and passes' .inc files, Version.h.
  install(DIRECTORY ${PROJECT_BINARY_DIR}/include/tilec DESTINATION include
          COMPONENT compiler FILES_MATCHING PATTERN "*.h.inc" PATTERN "*.h"
          PATTERN "CMakeFiles" EXCLUDE)
  install(EXPORT tilecCompilerTargets NAMESPACE tilec::
          DESTINATION ${TILEC_CMAKE_DIR} COMPONENT compiler)
endif()

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/tilecConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tilecConfig.cmake
  INSTALL_DESTINATION ${TILEC_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tilecConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tilecConfig.cmake
              ${PROJECT_BINARY_DIR}/tilecConfigVersion.cmake
        DESTINATION ${TILEC_CMAKE_DIR} COMPONENT runtime)

foreach(tool tilec tile-opt tilec-run tilec-analyze tilec-aot tilec-gpu-run
        tilec-profile)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION bin COMPONENT tools)
  endif()
endforeach()
