# Third-party dependencies, all from Debian packages (scripts/setup installs
# them). LLVM is used through its shared library so links stay fast.
find_package(LLVM REQUIRED CONFIG
             PATHS /usr/lib/llvm-19/lib/cmake/llvm NO_DEFAULT_PATH)
if(NOT LLVM_VERSION_MAJOR EQUAL 19)
  message(FATAL_ERROR "ferry needs LLVM 19, found ${LLVM_PACKAGE_VERSION}")
endif()
message(STATUS "ferry: LLVM ${LLVM_PACKAGE_VERSION} at ${LLVM_DIR}")
add_library(ferry_llvm INTERFACE)
target_include_directories(ferry_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(ferry_llvm INTERFACE ${LLVM_DEFINITIONS})
target_link_libraries(ferry_llvm INTERFACE LLVM)
set(FERRY_LLVM_TOOLS_DIR ${LLVM_TOOLS_BINARY_DIR})

find_package(Python3 REQUIRED COMPONENTS Interpreter)
find_package(spdlog REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
find_package(Threads REQUIRED)
if(FERRY_TESTS)
  find_package(GTest REQUIRED)
endif()
