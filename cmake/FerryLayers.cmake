# Library layering from DESIGN.md, enforced at configure time: a ferry target
# may link only the layers its row allows. Declare targets with
# ferry_layer(<target> <layer>) and link with ferry_link(<target> ...);
# linking a layer that is not allowed is a configure error.
set(FERRY_ALLOWED_include "")
set(FERRY_ALLOWED_support "include")
set(FERRY_ALLOWED_ptx "include;support")
set(FERRY_ALLOWED_libcuda "include;support;ptx")
set(FERRY_ALLOWED_libcudart "include")
set(FERRY_ALLOWED_libs "include")
set(FERRY_ALLOWED_host "include;support;ptx;libcuda")
set(FERRY_ALLOWED_hsa "include;support;ptx;libcuda")
# sim/: the simulated AMD GPU links LLVM only, never ferry (DESIGN.md).
set(FERRY_ALLOWED_sim "")
set(FERRY_ALLOWED_tools "include;support;ptx;libcuda;host;hsa")
set(FERRY_ALLOWED_bench "include;support;ptx;libcuda;host;hsa;tools")
set(FERRY_ALLOWED_tests "include;support;ptx;libcuda;libcudart;libs;host;hsa;sim;tools")

function(ferry_layer target layer)
  set_property(TARGET ${target} PROPERTY FERRY_LAYER ${layer})
endfunction()

# ferry_link(<target> <PUBLIC|PRIVATE> dep...): like target_link_libraries,
# but checks every ferry dependency against the layer table.
function(ferry_link target scope)
  get_property(mine TARGET ${target} PROPERTY FERRY_LAYER)
  foreach(dep ${ARGN})
    if(TARGET ${dep})
      get_property(theirs TARGET ${dep} PROPERTY FERRY_LAYER)
      if(theirs AND NOT theirs STREQUAL mine)
        if(NOT theirs IN_LIST FERRY_ALLOWED_${mine})
          message(FATAL_ERROR "layering: ${target} (${mine}) may not link ${dep} (${theirs})")
        endif()
      endif()
    endif()
  endforeach()
  target_link_libraries(${target} ${scope} ${ARGN})
endfunction()
