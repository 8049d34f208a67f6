; Float lowering that the PTX conformance suite found wrong on the AMD
; backend (tests/ptx-conformance/expected-mismatches-hsa.txt).
; bf16 min/max: min.bf16 of a signalling NaN and a number is the number. The
; AMDGPU backend widens bf16 with a shift that it takes as quieting, so
; v_min_f32 saw the signalling NaN; the lowering widens as bits instead.
; params: out @0 (ptr), a @8 (i32: bf16x2), b @12 (i32: bf16x2): 16 bytes.
define void @bf16_minmax(ptr noalias dereferenceable(16) %params) {
entry:
  %pa = getelementptr i8, ptr %params, i64 8
  %pb = getelementptr i8, ptr %params, i64 12
  %out = load ptr, ptr %params, align 8
  %a2 = load <2 x bfloat>, ptr %pa, align 4
  %b2 = load <2 x bfloat>, ptr %pb, align 4
  %a = extractelement <2 x bfloat> %a2, i64 0
  %b = extractelement <2 x bfloat> %b2, i64 0
  %mn = call bfloat @llvm.minnum.bf16(bfloat %a, bfloat %b)
  %mx = call <2 x bfloat> @llvm.maxnum.v2bf16(<2 x bfloat> %a2, <2 x bfloat> %b2)
  store bfloat %mn, ptr %out, align 2
  %o4 = getelementptr i8, ptr %out, i64 4
  store <2 x bfloat> %mx, ptr %o4, align 4
  ret void
}
declare bfloat @llvm.minnum.bf16(bfloat, bfloat)
declare <2 x bfloat> @llvm.maxnum.v2bf16(<2 x bfloat>, <2 x bfloat>)
!ferry.kernels = !{!0}
!0 = !{ptr @bf16_minmax}

; CHECK-LABEL: define protected amdgpu_kernel void @bf16_minmax(
; CHECK-NOT: call {{.*}}@llvm.minnum.bf16
; CHECK: [[A:%.*]] = bitcast bfloat %a to i16
; CHECK: [[AZ:%.*]] = zext i16 [[A]] to i32
; CHECK: [[AS:%.*]] = shl i32 [[AZ]], 16
; CHECK: [[AF:%.*]] = bitcast i32 [[AS]] to float
; CHECK: [[M:%.*]] = call float @llvm.minnum.f32(float [[AF]], float
; CHECK: fptrunc float [[M]] to bfloat
; CHECK: bitcast <2 x bfloat> %a2 to <2 x i16>
; CHECK: [[X:%.*]] = call <2 x float> @llvm.maxnum.v2f32(
; CHECK: fptrunc <2 x float> [[X]] to <2 x bfloat>
; CHECK: ret void
; CHECK-NOT: call {{.*}}@llvm.maxnum.v2bf16
