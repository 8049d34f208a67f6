; A cubemap-array fetch: tex.acube.v4.f32.f32 on a texture object with the
; direction (tid, 0.5, -1.0) and layer tid. params: tex @0, out @8
; (16 bytes). The device sampler picks the face itself
; (libcuda/TextureMath.h), so the call is lowered like any other fetch,
; mode 6 (acube) and all, instead of being refused.
define void @cubemap(ptr noalias dereferenceable(16) %params) {
entry:
  %tex = load i64, ptr %params, align 8
  %po = getelementptr i8, ptr %params, i64 8
  %out = load ptr, ptr %po, align 8
  %tid = call i32 @ferry.tid.x()
  %x = uitofp i32 %tid to float
  %xb = bitcast float %x to i32
  %c0 = insertelement <4 x i32> zeroinitializer, i32 %xb, i64 0
  %c1 = insertelement <4 x i32> %c0, i32 1056964608, i64 1
  %c2 = insertelement <4 x i32> %c1, i32 3212836864, i64 2
  %c = insertelement <4 x i32> %c2, i32 %tid, i64 3
  %t = call <4 x float> @ferry.tex.f32(i64 %tex, i32 6, <4 x i32> %c, float 0.0, <4 x float> zeroinitializer, <4 x float> zeroinitializer)
  %r = extractelement <4 x float> %t, i64 0
  %t64 = zext i32 %tid to i64
  %o = getelementptr float, ptr %out, i64 %t64
  store float %r, ptr %o, align 4
  ret void
}
declare i32 @ferry.tid.x()
declare <4 x float> @ferry.tex.f32(i64, i32, <4 x i32>, float, <4 x float>, <4 x float>)
!ferry.kernels = !{!0}
!0 = !{ptr @cubemap}

; CHECK-LABEL: define protected amdgpu_kernel void @cubemap(
; CHECK: call <4 x i32> @__ferry_tex(i64 %tex, i32 6, <4 x i32> %c)
; CHECK-NOT: @ferry.tex
; CHECK: define internal <4 x i32> @__ferry_tex(

; Assembly: the sampler, face selection included, is inlined; the texels
; are read with flat loads.
; ASM-LABEL: cubemap:
; ASM-NOT: s_swappc_b64
; ASM: {{flat_load_dword|flat_load_b32}}
; ASM: .end_amdhsa_kernel
