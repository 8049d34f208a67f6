# The Debian package (scripts/package runs CPack with this configuration):
# everything `cmake --install` puts under /usr, plus maintainer scripts that
# run ldconfig and manage NVIDIA's absolute-path links (scripts/debian/).
# Depends is computed by dpkg-shlibdeps from the libraries' real DT_NEEDED
# entries, so it names Debian packages only (libllvm19, libspdlog1.10,
# libopenblas0, libfftw3 ...) and follows the build machine's versions.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ferry)
# The configure time and revision in the version, so a package of a newer
# build upgrades an installed one.
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION}+${FERRY_BUILD_STAMP}.git${FERRY_GIT_REV})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_CONTACT "ferry developers <ferry@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "drop-in CUDA driver, runtime and math libraries for AMD GPUs and x86-64 CPUs")
set(CPACK_PACKAGE_DESCRIPTION
    "ferry runs unmodified nvcc-built CUDA programs on AMD GPUs (through ROCm) or on\n\
any x86-64 CPU. It installs libcuda.so.1, libcudart.so.13/.12 and the cuBLAS,\n\
cuBLASLt, cuRAND, cuFFT and NVML libraries under their NVIDIA sonames in a\n\
private directory that the dynamic loader searches first, and the ferry tool.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Libraries of the package that link each other (libcublasLt -> libcublas).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_BINARY_DIR}/lib)
# ROCr and the device libraries make AMD GPUs usable; without them ferry
# runs programs on the CPU.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libhsa-runtime64-1, rocm-device-libs")
set(CPACK_STRIP_FILES ON)

set(FERRY_PKG_LIBDIR /usr/${FERRY_INSTALL_LIBDIR})
if(CMAKE_LIBRARY_ARCHITECTURE)
  set(FERRY_PKG_MULTIARCH_DIR /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE})
else()
  set(FERRY_PKG_MULTIARCH_DIR /usr/lib)
endif()
set(ferry_debian ${CMAKE_BINARY_DIR}/debian)
foreach(script postinst postrm)
  configure_file(${CMAKE_SOURCE_DIR}/scripts/debian/${script}.in ${ferry_debian}/${script}
                 @ONLY FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                 GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${ferry_debian}/postinst ${ferry_debian}/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
