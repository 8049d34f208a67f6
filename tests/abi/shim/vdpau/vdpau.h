/// \file
/// Stand-in for the VDPAU header (not installed on our machines), declaring
/// only the types NVIDIA's cudaVDPAU.h / cuda_vdpau_interop.h need, with the
/// same underlying types as libvdpau's header. Used by tests/abi only.
#pragma once
#include <stdint.h>
typedef uint32_t VdpDevice;
typedef uint32_t VdpVideoSurface;
typedef uint32_t VdpOutputSurface;
typedef uint32_t VdpFuncId;
typedef int VdpStatus;
typedef VdpStatus VdpGetProcAddress(VdpDevice device, VdpFuncId function_id,
                                    void **function_pointer);
