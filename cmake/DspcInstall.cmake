# Installing and packaging dspc (README "Installing dspc"). `cmake --install build --prefix P`
# gives:
#   P/bin/dspc                                  the compiler
#   P/lib/libdspc_host.so                       the host runtime (dspc::Session)
#   P/include/dspc/host.h, dspc_runtime.h       its header, and the device runtime's
#   P/lib/dspc/<target>/libdspc_rt.a           runtime-support for every target (and
#                 libdspc_builtins.a            libdspc_builtins.a for Hexagon's --emit=so)
#   P/lib/dspc/device-server/dspc_server        the device server a Session runs on qemu-hexagon
#   P/share/dspc/schedules/*.dsp                the op library (`import "nn"`)
#   P/lib/cmake/dspc/                           the CMake package: dspcConfig.cmake, its version
#                                               file, dspcTargets.cmake, dspcKernels.cmake
# Nothing installed names the build tree or the prefix: dspc finds lib/dspc from its own path
# and libdspc_host.so finds the device server from its own, so the prefix can move. `cpack -G
# DEB` in the build tree makes a Debian package of the same files under /usr.
include(CMakePackageConfigHelpers)

set(DSPC_INSTALL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/dspc)

# dspc loads libdspc_host.so from the prefix's lib/ (and LLVM from where it was linked).
file(RELATIVE_PATH lib_from_bin /prefix/${CMAKE_INSTALL_BINDIR} /prefix/${CMAKE_INSTALL_LIBDIR})
set_target_properties(dspc PROPERTIES INSTALL_RPATH "$ORIGIN/${lib_from_bin}" INSTALL_RPATH_USE_LINK_PATH TRUE)
set_target_properties(dspc_host PROPERTIES EXPORT_NAME runtime)
install(TARGETS dspc EXPORT dspcTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS dspc_host EXPORT dspcTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${CMAKE_SOURCE_DIR}/runtime-support/host/include/dspc/host.h
              ${CMAKE_SOURCE_DIR}/runtime-support/device/include/dspc_runtime.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/dspc)

foreach(target ${DSPC_TARGETS})
  set(files ${DSPC_RUNTIME_DIR}/${target}/libdspc_rt.a)
  if(DSPC_TARGET_${target}_HEXAGON_VERSION GREATER 0)
    list(APPEND files ${DSPC_RUNTIME_DIR}/${target}/libdspc_builtins.a)
  endif()
  install(FILES ${files} DESTINATION ${DSPC_INSTALL_RUNTIME_DIR}/${target})
endforeach()
install(PROGRAMS ${DSPC_SERVER} DESTINATION ${DSPC_INSTALL_RUNTIME_DIR}/device-server)
install(FILES ${DSPC_LIBRARY_FILES} DESTINATION ${DSPC_INSTALL_LIBRARY_DIR})

install(EXPORT dspcTargets NAMESPACE dspc:: DESTINATION ${DSPC_INSTALL_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/dspcConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/dspcConfig.cmake INSTALL_DESTINATION ${DSPC_INSTALL_CMAKE_DIR})
# 0.x: a minor version may break the interface.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/dspcConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/dspcConfig.cmake ${CMAKE_BINARY_DIR}/cmake/dspcConfigVersion.cmake
              ${CMAKE_SOURCE_DIR}/cmake/dspcKernels.cmake
        DESTINATION ${DSPC_INSTALL_CMAKE_DIR})

# cpack -G DEB: the same files under /usr. dpkg-shlibdeps adds the shared libraries dspc needs
# (libstdc++, zlib, ...). With LLVM linked shared (DSPC_LLVM_STATIC=OFF), libllvm19 and
# libclang-cpp19 are named too: Debian 12's dpkg-shlibdeps finds the package of
# /usr/lib/llvm-19/lib/libLLVM.so.19.1 only on some runs. qemu-user runs the Hexagon code.
set(CPACK_PACKAGE_NAME dspc)
set(CPACK_PACKAGE_VENDOR "dspc")
set(CPACK_PACKAGE_CONTACT "dspc developers <dspc@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "ahead-of-time tensor compiler for the Hexagon DSP")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_BINARY_DIR}/runtime-support/host)
# libclang-common-19-dev: Clang's resource headers (stdint.h, the HVX intrinsics), which the
# in-process C/C++ compile of `dspc main.c kernels.dsp` reads.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qemu-user, libclang-common-19-dev")
if(NOT DSPC_LLVM_STATIC)
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libllvm19, libclang-cpp19")
endif()
include(CPack)
