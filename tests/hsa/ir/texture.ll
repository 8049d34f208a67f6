; Textures and surfaces: tex.2d.v4.f32.f32 on a texture object, txq.width,
; and sust.b.2d.b32.clamp on a surface object. params: tex @0, surf @8,
; out @16 (24 bytes). The calls become calls of the device-side sampler
; (hsa/device/TextureSampler.cpp), linked in from its embedded bitcode.
define void @texture(ptr noalias dereferenceable(24) %params) {
entry:
  %tex = load i64, ptr %params, align 8
  %ps = getelementptr i8, ptr %params, i64 8
  %surf = load i64, ptr %ps, align 8
  %po = getelementptr i8, ptr %params, i64 16
  %out = load ptr, ptr %po, align 8
  %tid = call i32 @ferry.tid.x()
  %x = uitofp i32 %tid to float
  %xb = bitcast float %x to i32
  %c0 = insertelement <4 x i32> zeroinitializer, i32 %xb, i64 0
  %c = insertelement <4 x i32> %c0, i32 1056964608, i64 1
  %t = call <4 x float> @ferry.tex.f32(i64 %tex, i32 1, <4 x i32> %c, float 0.0, <4 x float> zeroinitializer, <4 x float> zeroinitializer)
  %w = call i32 @ferry.txq(i64 %tex, i32 0)
  %r = extractelement <4 x float> %t, i64 0
  %wf = sitofp i32 %w to float
  %sum = fadd float %r, %wf
  %t64 = zext i32 %tid to i64
  %o = getelementptr float, ptr %out, i64 %t64
  store float %sum, ptr %o, align 4
  ; sust.b.2d.b32.clamp [surf, {tid*4, 0}], {sum bits}: mode 1 | 4<<12 | 1<<16 | 1<<20
  %bx = shl i32 %tid, 2
  %sc = insertelement <4 x i32> zeroinitializer, i32 %bx, i64 0
  %sb = bitcast float %sum to i32
  %sv = insertelement <4 x i32> zeroinitializer, i32 %sb, i64 0
  call void @ferry.sust(i64 %surf, i32 1131521, <4 x i32> %sc, <4 x i32> %sv)
  ret void
}
declare i32 @ferry.tid.x()
declare <4 x float> @ferry.tex.f32(i64, i32, <4 x i32>, float, <4 x float>, <4 x float>)
declare i32 @ferry.txq(i64, i32)
declare void @ferry.sust(i64, i32, <4 x i32>, <4 x i32>)
!ferry.kernels = !{!0}
!0 = !{ptr @texture}

; Lowered (wave64 gfx90a, wave32 gfx1100): each intrinsic is a call of the
; sampler with the same handle, mode and coordinates; the f32 result is the
; returned bits; the sampler's definitions are linked in, internal, with
; the kernel's target attributes.
; CHECK-LABEL: define protected amdgpu_kernel void @texture(
; CHECK: [[R:%.*]] = call <4 x i32> @__ferry_tex(i64 %tex, i32 1, <4 x i32> %c)
; CHECK-NEXT: [[F:%.*]] = bitcast <4 x i32> [[R]] to <4 x float>
; CHECK: call i32 @__ferry_txq(i64 %tex, i32 0)
; CHECK: extractelement <4 x float> [[F]], i64 0
; CHECK: call void @__ferry_sust(i64 %surf, i32 1131521, <4 x i32> %sc, <4 x i32> %sv)
; CHECK-NOT: @ferry.tex
; CHECK-DAG: define internal <4 x i32> @__ferry_tex(i64 {{.*}}) [[TEXATTR:#[0-9]+]]
; CHECK-DAG: define internal i32 @__ferry_txq(
; CHECK-DAG: define internal void @__ferry_sust(
; The descriptor's magic word ("TXO1") is checked before anything is read.
; CHECK-DAG: icmp eq i32 {{%.*}}, 1415073585
; W64-DAG: attributes [[TEXATTR]] = { {{.*}}"target-cpu"="gfx90a"
; W32-DAG: attributes [[TEXATTR]] = { {{.*}}"target-cpu"="gfx1100"{{.*}}"target-features"="+wavefrontsize32"

; Assembly: the sampler is inlined (no call remains); descriptor and texels
; are read with flat loads; a bad handle traps.
; ASM-LABEL: texture:
; ASM-NOT: s_swappc_b64
; ASM: {{flat_load_dword|flat_load_b32}}
; ASM: s_trap 2
; ASM: .end_amdhsa_kernel
