# `cmake --install` (issue 19): ferry installed like a system library.
#   bin/ferry                                   the tool
#   lib/<multiarch>/ferry/                      every shared library ferry
#     libcuda.so.1, libcudart.so.13, ...        builds (SONAME file, the
#     libferry-hsa-sim.so, libferry-audit.so    versioned file, the dev link)
#     trace/libcuda.so.1                        the tracing interposer
#     ferry-jit/                                `ferry run`'s NVRTC/nvJitLink/ptxas stand-ins
#   <etc>/ld.so.conf.d/00-ferry.conf            puts that directory in ld.so.cache
#   share/man/man1/ferry.1                      commands and the settings table
#   share/doc/ferry/                            README, the matrix
# The libraries live in a private directory, never beside the system's own
# libraries, so they cannot overwrite a file another package (an NVIDIA
# driver) owns; the ld.so.conf.d entry makes the loader find them by name,
# and sorts before x86_64-linux-gnu.conf so ferry's libcuda.so.1 wins.
#
# Which libraries are installed is found, not listed: every SHARED library
# target of the ferry layers that ship (not tests/ or bench/), and every
# helper program built under build/lib, walking the directory tree after all
# of it is declared. A new library under libs/ is
# installed with no change here. A target can opt out with the property
# FERRY_NO_INSTALL.
include(GNUInstallDirs)

if(CMAKE_LIBRARY_ARCHITECTURE)
  set(ferry_default_libdir lib/${CMAKE_LIBRARY_ARCHITECTURE}/ferry)
else()
  set(ferry_default_libdir lib/ferry)
endif()
set(FERRY_INSTALL_LIBDIR ${ferry_default_libdir} CACHE STRING
    "where ferry's libraries go, relative to the install prefix")

# `ferry run` and `ferry doctor` find the libraries relative to their own
# executable: <prefix>/bin/ferry -> <prefix>/${FERRY_INSTALL_LIBDIR}.
if(TARGET ferry)
  target_compile_definitions(ferry PRIVATE FERRY_INSTALL_LIBDIR="${FERRY_INSTALL_LIBDIR}")
  install(TARGETS ferry RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

set(ferry_shipped_layers libcuda libcudart libs sim tools)

function(ferry_collect_shared dir out)
  set(found "")
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t ${targets})
    get_target_property(type ${t} TYPE)
    get_target_property(layer ${t} FERRY_LAYER)
    get_target_property(skip ${t} FERRY_NO_INSTALL)
    get_target_property(excluded ${t} EXCLUDE_FROM_ALL)
    if(NOT layer IN_LIST ferry_shipped_layers OR skip OR excluded)
      continue()
    endif()
    if(type STREQUAL "SHARED_LIBRARY")
      list(APPEND found ${t})
    elseif(type STREQUAL "EXECUTABLE")
      # A helper program that lives among the libraries (tools/jit's ptxas
      # in lib/ferry-jit/bin), not a command in bin/.
      get_target_property(outdir ${t} RUNTIME_OUTPUT_DIRECTORY)
      if(outdir)
        file(RELATIVE_PATH rel ${CMAKE_BINARY_DIR}/lib ${outdir})
        if(NOT rel MATCHES "^\\.\\.")
          list(APPEND found ${t})
        endif()
      endif()
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub ${subdirs})
    ferry_collect_shared(${sub} below)
    list(APPEND found ${below})
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

ferry_collect_shared(${CMAKE_SOURCE_DIR} FERRY_INSTALLED_LIBRARIES)
set(FERRY_INSTALLED_LIBRARIES ${FERRY_INSTALLED_LIBRARIES} CACHE INTERNAL
    "shared libraries `cmake --install` puts in FERRY_INSTALL_LIBDIR")
foreach(t ${FERRY_INSTALLED_LIBRARIES})
  # A library built into a subdirectory of build/lib (the tracer's
  # lib/trace) keeps that subdirectory, so the tools find it the same way.
  get_target_property(type ${t} TYPE)
  if(type STREQUAL "EXECUTABLE")
    get_target_property(outdir ${t} RUNTIME_OUTPUT_DIRECTORY)
  else()
    get_target_property(outdir ${t} LIBRARY_OUTPUT_DIRECTORY)
  endif()
  set(dest ${FERRY_INSTALL_LIBDIR})
  if(outdir)
    file(RELATIVE_PATH rel ${CMAKE_BINARY_DIR}/lib ${outdir})
    if(rel AND NOT rel MATCHES "^\\.\\.")
      set(dest ${dest}/${rel})
    endif()
  endif()
  # $ORIGIN: a library that links another of ferry's (libcublasLt ->
  # libcublas) finds it beside itself even where the ld.so.conf.d entry is
  # not in effect (an install under a home directory). Only those: an
  # INSTALL_RPATH makes CMake pad the build tree's RUNPATH with empty
  # entries, and any RUNPATH on libcudart hides the executable's DT_RPATH
  # from its dlopen("libcuda.so.1") (tests/libcudart's fake driver).
  set(links_ferry OFF)
  get_target_property(deps ${t} LINK_LIBRARIES)
  foreach(d IN LISTS deps)
    if(TARGET ${d})
      get_target_property(dtype ${d} TYPE)
      get_target_property(dimported ${d} IMPORTED)
      if(dtype STREQUAL "SHARED_LIBRARY" AND NOT dimported)
        set(links_ferry ON)
      endif()
    endif()
  endforeach()
  if(links_ferry)
    set_target_properties(${t} PROPERTIES INSTALL_RPATH "$ORIGIN")
  endif()
  install(TARGETS ${t} LIBRARY DESTINATION ${dest} RUNTIME DESTINATION ${dest})
endforeach()

# The ld.so.conf.d entry, written at install time because the prefix is
# known only then (CPack installs with /usr). For /usr it goes in /etc (where
# ld.so reads it), for any other prefix in <prefix>/etc, whence an
# administrator links it into /etc/ld.so.conf.d.
install(CODE "
  if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
    set(ferry_etc /etc)
  else()
    set(ferry_etc \${CMAKE_INSTALL_PREFIX}/etc)
  endif()
  set(ferry_conf \"\$ENV{DESTDIR}\${ferry_etc}/ld.so.conf.d/00-ferry.conf\")
  message(STATUS \"Installing: \${ferry_conf}\")
  file(WRITE \${ferry_conf}
       \"# ferry: its libcuda.so.1, libcudart.so.13 ... before any other CUDA\\n\"
       \"\${CMAKE_INSTALL_PREFIX}/${FERRY_INSTALL_LIBDIR}\\n\")
")

# The man page, generated by the built tool from its command registry and
# the settings table, so it cannot drift from either.
if(TARGET ferry)
  set(ferry_man ${CMAKE_BINARY_DIR}/share/man/man1/ferry.1)
  add_custom_command(
    OUTPUT ${ferry_man}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/share/man/man1
    COMMAND $<TARGET_FILE:ferry> info --man > ${ferry_man}
    DEPENDS ferry
    COMMENT "Generating ferry.1 from the command registry and the settings table" VERBATIM)
  add_custom_target(ferry_man ALL DEPENDS ${ferry_man})
  install(FILES ${ferry_man} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()

install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
if(EXISTS ${CMAKE_SOURCE_DIR}/compat-tests/MATRIX.md)
  install(FILES ${CMAKE_SOURCE_DIR}/compat-tests/MATRIX.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
endif()

include(${CMAKE_CURRENT_LIST_DIR}/FerryPackage.cmake)
