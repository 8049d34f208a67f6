# Runs the client under `ferry trace --real <fake driver>` and checks the
# trace: calls made through cuGetProcAddress pointers are decoded, output
# pointers are shown after success, and failures are named.
file(REMOVE ${OUT})
execute_process(COMMAND ${FERRY} trace --real ${REAL} --out ${OUT} -- ${CLIENT}
                OUTPUT_VARIABLE stdout RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ferry trace exited ${rc}: ${stdout}")
endif()
if(NOT stdout MATCHES "client: 0 0 1018 1 500")
  message(FATAL_ERROR "client saw wrong results through the tracer: ${stdout}")
endif()
file(READ ${OUT} trace)
foreach(expect
    "cuGetProcAddress_v2\\(symbol=\"cuMemAlloc\", driverVersion=13000, flags=0\\) = CUDA_SUCCESS \\*symbolFound=0"
    "cuMemAlloc_v2\\(dptr=0x[0-9a-f]+, bytesize=24\\) = CUDA_SUCCESS \\*dptr=0x1018"
    "cuInit\\(Flags=7\\) = CUDA_ERROR_INVALID_VALUE"
    "cuGetProcAddress_v2\\(symbol=\"cuNoSuchThing\", driverVersion=13000, flags=0\\) = CUDA_ERROR_NOT_FOUND")
  if(NOT trace MATCHES "${expect}")
    message(FATAL_ERROR "trace lacks /${expect}/:\n${trace}")
  endif()
endforeach()
