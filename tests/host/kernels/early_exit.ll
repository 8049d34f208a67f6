; Threads tid >= live leave before the barrier: half through `ret` in the
; kernel, half through ferry.exit inside a callee. The others write shared
; memory, meet at the barrier (which must not wait for the exited threads)
; and read a neighbour's slot: out[tid] = tid' + 1 where tid' = (tid+1) % live.
; Exited threads leave out[tid] untouched.
declare i32 @ferry.tid.x()
declare void @ferry.bar.sync(i32, i32)
declare void @ferry.exit()

@slots = internal addrspace(3) global [1024 x i32] undef, align 4

define internal void @leave(i32 %tid) noinline {
entry:
  %odd = and i32 %tid, 1
  %isodd = icmp ne i32 %odd, 0
  br i1 %isodd, label %bye, label %back
bye:
  call void @ferry.exit()
  unreachable
back:
  ret void
}

define void @early_exit(ptr noalias %params) {
entry:
  %out = load ptr addrspace(1), ptr %params, align 8
  %pl = getelementptr inbounds i8, ptr %params, i64 8
  %live = load i32, ptr %pl, align 4
  %tid = call i32 @ferry.tid.x()
  %gone = icmp uge i32 %tid, %live
  br i1 %gone, label %quit, label %work
quit:
  call void @leave(i32 %tid)
  ret void
work:
  %tidx = zext i32 %tid to i64
  %sp = getelementptr inbounds [1024 x i32], ptr addrspace(3) @slots, i64 0, i64 %tidx
  %v = add i32 %tid, 1
  store i32 %v, ptr addrspace(3) %sp, align 4
  call void @ferry.bar.sync(i32 0, i32 0)
  %n1 = add i32 %tid, 1
  %nb = urem i32 %n1, %live
  %nbx = zext i32 %nb to i64
  %np = getelementptr inbounds [1024 x i32], ptr addrspace(3) @slots, i64 0, i64 %nbx
  %nv = load i32, ptr addrspace(3) %np, align 4
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %tidx
  store i32 %nv, ptr addrspace(1) %op, align 4
  ret void
}

!ferry.kernels = !{!0}
!0 = !{ptr @early_exit}
