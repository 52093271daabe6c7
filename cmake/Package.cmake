# What `cmake --install` puts where, the CMake package and loom.pc, and the Debian package.
#
#   cmake --install build --prefix P     the library (libloom.so.X.Y.Z, SONAME libloom.so.X.Y),
#                                        the public headers, lib/cmake/loom, lib/pkgconfig/loom.pc,
#                                        bin/dsl-to-ptx and bin/loom-run, share/loom (docs, examples)
#   ... --component gpu-tree             tests, benchmarks, examples' binaries and fake drivers, in
#                                        the layout scripts/gpu_check.sh runs (scripts/install-gpu-tree.sh)
#   cpack --config build/CPackConfig.cmake -G DEB    libloom-dev_X.Y.Z_ARCH.deb of the first line
include(CMakePackageConfigHelpers)
include(cmake/StageHeaders.cmake)

set(LOOM_STAGED_INCLUDE ${CMAKE_BINARY_DIR}/include-install)
loom_stage_headers(${LOOM_STAGED_INCLUDE})
file(COPY ${LOOM_GENERATED_INCLUDE}/loom/Version.hpp DESTINATION ${LOOM_STAGED_INCLUDE}/loom)

install(TARGETS loom EXPORT loomTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT development)
install(DIRECTORY ${LOOM_STAGED_INCLUDE}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT development)
set(cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/loom)
install(EXPORT loomTargets NAMESPACE loom:: DESTINATION ${cmake_dir} COMPONENT development)
configure_package_config_file(cmake/loomConfig.cmake.in ${CMAKE_BINARY_DIR}/loomConfig.cmake
  INSTALL_DESTINATION ${cmake_dir})
# 0.x: a minor version may change the API, so find_package(loom 0.2) accepts 0.2.* only.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/loomConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/loomConfig.cmake ${CMAKE_BINARY_DIR}/loomConfigVersion.cmake
  DESTINATION ${cmake_dir} COMPONENT development)
# loom.pc finds the prefix from where it lies (pkg-config's pcfiledir), so the tree can move.
file(RELATIVE_PATH LOOM_PC_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" LOOM_PC_PREFIX "${LOOM_PC_PREFIX}")
configure_file(cmake/loom.pc.in ${CMAKE_BINARY_DIR}/loom.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/loom.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
  COMPONENT development)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/loom/docs COMPONENT development)
install(DIRECTORY examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/loom/examples
  COMPONENT development)

# Used from a build tree without installing (export(PACKAGE) is not used: it writes to ~/.cmake).
export(EXPORT loomTargets NAMESPACE loom:: FILE ${CMAKE_BINARY_DIR}/loomTargets.cmake)

# One Debian package, libloom-dev: the library, headers, CMake package, tools and docs (the gpu-tree
# component is not in it). Its dependencies are the shared libraries libloom and the tools link,
# as dpkg-shlibdeps finds them.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME libloom-dev)
set(CPACK_PACKAGE_VENDOR "loom")
set(CPACK_PACKAGE_CONTACT "loom maintainers <maintainers@loom.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "JIT compiler for numeric array kernels in C++ (NVIDIA GPUs through PTX, CPUs through LLVM)")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libnvidia-compute | nvidia-driver")
set(CPACK_STRIP_FILES ON)
# Monolithic: every component but those excluded from a plain install (gpu-tree).
set(CPACK_MONOLITHIC_INSTALL ON)
include(CPack)
