/// \file
/// Reading JIT option arrays (JitOptions.h).
#include "libcuda/api/JitOptions.h"

namespace ferry::api {

/// Reads an options array. Unknown options are CUDA_ERROR_INVALID_VALUE, as
/// on NVIDIA; options that only steer SASS generation are accepted and have
/// no effect, since code is generated for the CPU (or AMD GPU) later.
Expected<JitOptions> readOptions(unsigned N, CUjit_option *Options, void **Values) {
  JitOptions O;
  if (N == 0)
    return O;
  if (!Options || !Values)
    return makeError(CUDA_ERROR_INVALID_VALUE, std::to_string(N) + " JIT options but a null options or values array");
  for (unsigned I = 0; I < N; ++I) {
    void *V = Values[I];
    auto AsUnsigned = [&] { return unsigned(uintptr_t(V)); };
    switch (Options[I]) {
    case CU_JIT_INFO_LOG_BUFFER: O.Info.Buffer = static_cast<char *>(V); break;
    case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
      O.Info.Capacity = AsUnsigned();
      O.Info.SizeSlot = &Values[I];
      break;
    case CU_JIT_ERROR_LOG_BUFFER: O.Error.Buffer = static_cast<char *>(V); break;
    case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
      O.Error.Capacity = AsUnsigned();
      O.Error.SizeSlot = &Values[I];
      break;
    case CU_JIT_WALL_TIME: O.WallTimeSlot = &Values[I]; break;
    case CU_JIT_LOG_VERBOSE: O.Verbose = AsUnsigned() != 0; break;
    case CU_JIT_GLOBAL_SYMBOL_COUNT:
      // Binding device externs to host-given addresses is not written yet;
      // accepting it would leave those externs silently unresolved.
      if (AsUnsigned() != 0)
        return makeError(CUDA_ERROR_NOT_SUPPORTED, "CU_JIT_GLOBAL_SYMBOL_NAMES/ADDRESSES are not supported");
      break;
    case CU_JIT_THREADS_PER_BLOCK:
      O.ThreadsPerBlock = AsUnsigned();
      O.ThreadsSlot = &Values[I];
      break;
    case CU_JIT_TARGET: O.Target = AsUnsigned(); break;
    // Accepted with no effect on the code ferry makes (register allocation
    // and optimisation are the backend's own).
    case CU_JIT_MAX_REGISTERS:
    case CU_JIT_OPTIMIZATION_LEVEL:
    case CU_JIT_TARGET_FROM_CUCONTEXT:
    case CU_JIT_FALLBACK_STRATEGY:
    case CU_JIT_GENERATE_DEBUG_INFO:
    case CU_JIT_GENERATE_LINE_INFO:
    case CU_JIT_CACHE_MODE:
    case CU_JIT_NEW_SM3X_OPT:
    case CU_JIT_FAST_COMPILE:
    case CU_JIT_GLOBAL_SYMBOL_NAMES:
    case CU_JIT_GLOBAL_SYMBOL_ADDRESSES:
    case CU_JIT_LTO:
    case CU_JIT_FTZ:
    case CU_JIT_PREC_DIV:
    case CU_JIT_PREC_SQRT:
    case CU_JIT_FMA:
    case CU_JIT_REFERENCED_KERNEL_NAMES:
    case CU_JIT_REFERENCED_KERNEL_COUNT:
    case CU_JIT_REFERENCED_VARIABLE_NAMES:
    case CU_JIT_REFERENCED_VARIABLE_COUNT:
    case CU_JIT_OPTIMIZE_UNUSED_DEVICE_VARIABLES:
    case CU_JIT_POSITION_INDEPENDENT_CODE:
    case CU_JIT_MIN_CTA_PER_SM:
    case CU_JIT_MAX_THREADS_PER_BLOCK:
    case CU_JIT_OVERRIDE_DIRECTIVE_VALUES:
    case CU_JIT_SPLIT_COMPILE: break;
    default:
      return makeError(CUDA_ERROR_INVALID_VALUE, "unknown JIT option " + std::to_string(int(Options[I])));
    }
  }
  return O;
}


} // namespace ferry::api
