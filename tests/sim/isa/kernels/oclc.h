// ocml's control variables (normally linked from oclc_*.bc), defined in
// the kernel's translation unit so they fold into the library code.
#ifndef SIM_TEST_OCLC_H
#define SIM_TEST_OCLC_H
// ocml's control variables, defined here so they fold into the code.
__constant unsigned char __oclc_finite_only_opt = 0;
__constant unsigned char __oclc_unsafe_math_opt = 0;
__constant unsigned char __oclc_daz_opt = 0;
__constant unsigned char __oclc_correctly_rounded_sqrt32 = 1;
__constant unsigned char __oclc_wavefrontsize64 = WAVE == 64;
#if defined(__gfx942__)
__constant int __oclc_ISA_version = 9402;
#elif defined(__gfx90a__)
__constant int __oclc_ISA_version = 9010;
#else
__constant int __oclc_ISA_version = 11000;
#endif
__constant int __oclc_ABI_version = 500;

#endif
