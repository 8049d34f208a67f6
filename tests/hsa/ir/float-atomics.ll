; Float atomic adds and bf16 fma as an H100 computes them (hsa/LowerFloat.cpp;
; tests/ptx-conformance on the AMD backend). params: g @0 (ptr): 8 bytes.
@lds = internal addrspace(3) global [4 x float] undef, align 4

define void @fadds(ptr noalias dereferenceable(8) %params) {
entry:
  %p = load ptr, ptr %params, align 8
  %g = addrspacecast ptr %p to ptr addrspace(1)
  %a = atomicrmw fadd ptr addrspace(1) %g, float 1.0 syncscope("device") monotonic, align 4
  %gd = getelementptr double, ptr addrspace(1) %g, i64 1
  %b = atomicrmw fadd ptr addrspace(1) %gd, double 1.0 syncscope("device") monotonic, align 8
  %s = getelementptr float, ptr addrspace(3) @lds, i32 1
  %c = atomicrmw fadd ptr addrspace(3) %s, float %a syncscope("block") monotonic, align 4, !ferry.shared !1
  %gh = getelementptr <2 x half>, ptr addrspace(1) %g, i64 4
  %h = atomicrmw fadd ptr addrspace(1) %gh, <2 x half> <half 1.0, half 1.0> syncscope("device") monotonic, align 4
  %o = getelementptr float, ptr addrspace(1) %g, i64 6
  store float %c, ptr addrspace(1) %o, align 4
  %o2 = getelementptr double, ptr addrspace(1) %g, i64 4
  store double %b, ptr addrspace(1) %o2, align 8
  %o3 = getelementptr <2 x half>, ptr addrspace(1) %g, i64 10
  store <2 x half> %h, ptr addrspace(1) %o3, align 4
  ret void
}

define void @bf16_fma(ptr noalias dereferenceable(8) %params) {
entry:
  %p = load ptr, ptr %params, align 8
  %x = load <2 x bfloat>, ptr %p, align 4
  %r = call <2 x bfloat> @llvm.fma.v2bf16(<2 x bfloat> %x, <2 x bfloat> %x, <2 x bfloat> %x)
  store <2 x bfloat> %r, ptr %p, align 4
  ret void
}
declare <2 x bfloat> @llvm.fma.v2bf16(<2 x bfloat>, <2 x bfloat>, <2 x bfloat>)
!ferry.kernels = !{!0, !2}
!0 = !{ptr @fadds}
!1 = !{}
!2 = !{ptr @bf16_fma}

; f32 in global memory: always a compare-and-swap loop that flushes
; subnormal inputs and the result (exponent field 0x7f800000) and stores the
; canonical NaN 0x7fffffff.
; When the whole wave adds to one address, its values are applied in lane
; order and the leader lane stores the result (one compare-and-swap per
; attempt); otherwise a loop per lane.
; CHECK-LABEL: define protected amdgpu_kernel void @fadds(
; CHECK: fadd.uniform:
; CHECK: fadd.wave.fold:
; CHECK: call i32 @llvm.amdgcn.readlane.i32(
; CHECK: and i32 %{{.*}}, 2139095040
; CHECK: select i1 %{{.*}}, i32 2147483647, i32
; CHECK: fadd.wave.cas:
; CHECK-NEXT: cmpxchg ptr addrspace(1) %g, i32 %mem, i32 %{{.*}} syncscope("agent") monotonic monotonic
; CHECK: fadd.cas:
; CHECK: and i32 %{{.*}}, 2139095040
; CHECK: select i1 %{{.*}}, i32 2147483647, i32
; CHECK: cmpxchg ptr addrspace(1) %g, i32 %{{.*}}, i32 %{{.*}} syncscope("agent") monotonic monotonic
; f64 in global memory: gfx942 has an exact native add but for NaN bits
; (kept unless FERRY_EXACT_F64_NAN=1); gfx1100 has none, and the loop LLVM
; would make anyway computes the H100's NaN.
; G942: atomicrmw fadd ptr addrspace(1) %gd, double 1.000000e+00 syncscope("agent") monotonic
; G1100-NOT: atomicrmw fadd ptr addrspace(1) %gd
; G1100: cmpxchg ptr addrspace(1) %gd, i64
; f32 in shared memory keeps subnormals like ds_add_f32: native on both.
; CHECK: atomicrmw fadd ptr addrspace(3) %s, float
; f16 pairs: gfx942's global_atomic_pk_add_f16 differs in NaN bits only;
; gfx1100 gets a loop with the canonical f16 NaN.
; G942: atomicrmw fadd ptr addrspace(1) %gh, <2 x half>
; G1100: select <2 x i1> %{{.*}}, <2 x i16> <i16 32767, i16 32767>
; G1100: cmpxchg ptr addrspace(1) %gh, i32

; bf16 fma: in double, rounded to odd, then once to bf16.
; CHECK-LABEL: define protected amdgpu_kernel void @bf16_fma(
; CHECK-NOT: @llvm.fma.v2bf16
; CHECK: fmul <2 x double>
; CHECK: fptrunc <2 x double> %{{.*}} to <2 x float>
; CHECK: fptrunc <2 x float> %{{.*}} to <2 x bfloat>
