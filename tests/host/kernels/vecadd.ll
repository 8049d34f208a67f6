; c[i] = a[i] + b[i] for i < n. Params: a, b, c (global pointers), n (i32).
declare i32 @ferry.tid.x()
declare i32 @ferry.ctaid.x()
declare i32 @ferry.ntid.x()

define void @vecadd(ptr noalias dereferenceable(28) %params) {
entry:
  %a = load ptr addrspace(1), ptr %params, align 8
  %pb = getelementptr inbounds i8, ptr %params, i64 8
  %b = load ptr addrspace(1), ptr %pb, align 8
  %pc = getelementptr inbounds i8, ptr %params, i64 16
  %c = load ptr addrspace(1), ptr %pc, align 8
  %pn = getelementptr inbounds i8, ptr %params, i64 24
  %n = load i32, ptr %pn, align 4
  %tid = call i32 @ferry.tid.x()
  %cta = call i32 @ferry.ctaid.x()
  %ntid = call i32 @ferry.ntid.x()
  %base = mul i32 %cta, %ntid
  %i = add i32 %base, %tid
  %ok = icmp ult i32 %i, %n
  br i1 %ok, label %body, label %done
body:
  %idx = zext i32 %i to i64
  %ap = getelementptr inbounds float, ptr addrspace(1) %a, i64 %idx
  %bp = getelementptr inbounds float, ptr addrspace(1) %b, i64 %idx
  %cp = getelementptr inbounds float, ptr addrspace(1) %c, i64 %idx
  %av = load float, ptr addrspace(1) %ap, align 4
  %bv = load float, ptr addrspace(1) %bp, align 4
  %s = fadd float %av, %bv
  store float %s, ptr addrspace(1) %cp, align 4
  br label %done
done:
  ret void
}

!ferry.kernels = !{!0}
!0 = !{ptr @vecadd}
