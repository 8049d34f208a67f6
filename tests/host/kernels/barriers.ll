; Barrier forms beyond bar.sync 0.
; @barred: bar.red.popc/and/or; out[tid*3 + k].
; @named: warp 0 produces into shared memory and signals barrier 1 with
;   bar.arrive (64 threads expected); warp 1 waits with bar.sync 1, 64 and
;   copies the data out: out[tid-32] = buf[tid-32] * 2.
; @deadlock: warp 0 waits at barrier 1, warp 1 at barrier 2: neither can
;   complete, which must fail the launch instead of hanging (per-thread or
;   per-warp barrier semantics alike).
; @overcount: bar.sync 0, 64 in a block of 32 threads: a barrier the block
;   alone cannot complete, even where its one warp function is the whole
;   block (and barriers are otherwise skipped).
declare i32 @ferry.tid.x()
declare void @ferry.bar.sync(i32, i32)
declare void @ferry.bar.arrive(i32, i32)
declare i32 @ferry.bar.red.popc(i32, i32, i1)
declare i1 @ferry.bar.red.and(i32, i32, i1)
declare i1 @ferry.bar.red.or(i32, i32, i1)

@buf = internal addrspace(3) global [32 x i32] undef, align 4

define void @barred(ptr noalias %params) {
entry:
  %out = load ptr addrspace(1), ptr %params, align 8
  %tid = call i32 @ferry.tid.x()
  %m = urem i32 %tid, 3
  %p = icmp eq i32 %m, 0
  %popc = call i32 @ferry.bar.red.popc(i32 0, i32 0, i1 %p)
  %lt = icmp ult i32 %tid, 1000
  %and = call i1 @ferry.bar.red.and(i32 0, i32 0, i1 %lt)
  %is5 = icmp eq i32 %tid, 5
  %or = call i1 @ferry.bar.red.or(i32 0, i32 0, i1 %is5)
  %t = zext i32 %tid to i64
  %b = mul i64 %t, 3
  %q0 = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %b
  store i32 %popc, ptr addrspace(1) %q0, align 4
  %q1 = getelementptr inbounds i32, ptr addrspace(1) %q0, i64 1
  %andv = zext i1 %and to i32
  store i32 %andv, ptr addrspace(1) %q1, align 4
  %q2 = getelementptr inbounds i32, ptr addrspace(1) %q0, i64 2
  %orv = zext i1 %or to i32
  store i32 %orv, ptr addrspace(1) %q2, align 4
  ret void
}

define void @named(ptr noalias %params) {
entry:
  %out = load ptr addrspace(1), ptr %params, align 8
  %tid = call i32 @ferry.tid.x()
  %producer = icmp ult i32 %tid, 32
  br i1 %producer, label %produce, label %consume
produce:
  %t = zext i32 %tid to i64
  %sp = getelementptr inbounds [32 x i32], ptr addrspace(3) @buf, i64 0, i64 %t
  %v = mul i32 %tid, 5
  store i32 %v, ptr addrspace(3) %sp, align 4
  call void @ferry.bar.arrive(i32 1, i32 64)
  ret void
consume:
  call void @ferry.bar.sync(i32 1, i32 64)
  %c = sub i32 %tid, 32
  %cx = zext i32 %c to i64
  %rp = getelementptr inbounds [32 x i32], ptr addrspace(3) @buf, i64 0, i64 %cx
  %r = load i32, ptr addrspace(3) %rp, align 4
  %r2 = mul i32 %r, 2
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %cx
  store i32 %r2, ptr addrspace(1) %op, align 4
  ret void
}

define void @deadlock(ptr noalias %params) {
entry:
  %tid = call i32 @ferry.tid.x()
  %is0 = icmp ult i32 %tid, 32
  br i1 %is0, label %a, label %b
a:
  call void @ferry.bar.sync(i32 1, i32 0)
  ret void
b:
  call void @ferry.bar.sync(i32 2, i32 0)
  ret void
}

define void @overcount(ptr noalias %params) {
entry:
  call void @ferry.bar.sync(i32 0, i32 64)
  ret void
}

!ferry.kernels = !{!0, !1, !2, !3}
!0 = !{ptr @barred}
!1 = !{ptr @named}
!2 = !{ptr @deadlock}
!3 = !{ptr @overcount}
