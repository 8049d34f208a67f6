/// \file
/// NVIDIA's CUDA 13 headers, included in one place for the ABI tests (the
/// only code in ferry allowed to see them). __CUDA_API_VERSION_INTERNAL
/// makes cuda.h/cudaTypedefs.h also declare the legacy (pre-3.2) types and
/// PFN typedefs, which ferry's table covers too. FERRY_NO_EGL leaves out the
/// EGL interop headers (see SigNvidiaEgl.cpp).
#pragma once

#define __CUDA_API_VERSION_INTERNAL 1
#define __CUDA_API_VERSION_INTERNAL_ODR 1
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cudaGL.h>
#ifndef FERRY_NO_EGL
#include <cudaEGL.h>
#endif
#include <vdpau/vdpau.h>
#include <cudaVDPAU.h>
#include <cudaProfiler.h>
#include <cudaProfilerTypedefs.h>
#include <cuda_runtime_api.h>
#include <cuda_gl_interop.h>
#ifndef FERRY_NO_EGL
#include <cuda_egl_interop.h> // brings cuda_runtime.h's C++ overloads
#endif
#include <cuda_vdpau_interop.h>
#include <cuda_profiler_api.h>
