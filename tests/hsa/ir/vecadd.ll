; vecadd: c[i] = a[i] + b[i] for i < n. Parameters (CUDA layout): a @0, b @8,
; c @16 (pointers), n @24 (i32): a 28-byte parameter buffer.
define void @vecadd(ptr noalias %params) {
entry:
  %pb = getelementptr i8, ptr %params, i64 8
  %pc = getelementptr i8, ptr %params, i64 16
  %pn = getelementptr i8, ptr %params, i64 24
  %a = load ptr, ptr %params, align 8
  %b = load ptr, ptr %pb, align 8
  %c = load ptr, ptr %pc, align 8
  %n = load i32, ptr %pn, align 4
  %tid = call i32 @ferry.tid.x()
  %ctaid = call i32 @ferry.ctaid.x()
  %ntid = call i32 @ferry.ntid.x()
  %base = mul i32 %ctaid, %ntid
  %i = add i32 %base, %tid
  %in = icmp slt i32 %i, %n
  br i1 %in, label %body, label %done
body:
  %i64 = sext i32 %i to i64
  %ga = addrspacecast ptr %a to ptr addrspace(1)
  %gb = addrspacecast ptr %b to ptr addrspace(1)
  %gc = addrspacecast ptr %c to ptr addrspace(1)
  %pa = getelementptr float, ptr addrspace(1) %ga, i64 %i64
  %pbb = getelementptr float, ptr addrspace(1) %gb, i64 %i64
  %pcc = getelementptr float, ptr addrspace(1) %gc, i64 %i64
  %va = load float, ptr addrspace(1) %pa, align 4
  %vb = load float, ptr addrspace(1) %pbb, align 4
  %s = fadd float %va, %vb
  store float %s, ptr addrspace(1) %pcc, align 4
  br label %done
done:
  ret void
}
declare i32 @ferry.tid.x()
declare i32 @ferry.ctaid.x()
declare i32 @ferry.ntid.x()
!ferry.kernels = !{!0}
!0 = !{ptr @vecadd}
