; Kernels that fault. Params of each: out (i32*), bad (a pointer the host
; makes invalid), n (i32).
; @trap_k: block 1 thread 3 traps; the others store 1.
; @oob_fast: stores through `bad` (block-loop path).
; @oob_fiber: the same after a barrier (fiber path).
; @overflow: recursion n deep with 4 KiB frames overflows the fiber stack.
; @assert_k: block 0 thread 2 fails an assert.
; @assert_many: in blocks 0 and 2, threads with tid % 7 == 3 fail an assert;
;   every other thread stores 1 to out[ctaid * 64 + tid].
; @divzero: integer division by `n` (0).
declare i32 @ferry.tid.x()
declare i32 @ferry.ctaid.x()
declare void @ferry.bar.sync(i32, i32)
declare void @ferry.trap()
declare void @ferry.assertfail(ptr, ptr, i32, ptr, i64)

@msg = private addrspace(1) constant [6 x i8] c"x < 3\00", align 1
@file = private addrspace(1) constant [8 x i8] c"kern.cu\00", align 1
@func = private addrspace(1) constant [23 x i8] c"void check(int *, int)\00", align 1

define void @trap_k(ptr noalias %params) {
entry:
  %out = load ptr addrspace(1), ptr %params, align 8
  %tid = call i32 @ferry.tid.x()
  %cta = call i32 @ferry.ctaid.x()
  %t3 = icmp eq i32 %tid, 3
  %c1 = icmp eq i32 %cta, 1
  %both = and i1 %t3, %c1
  br i1 %both, label %bad, label %ok
bad:
  call void @ferry.trap()
  unreachable
ok:
  store i32 1, ptr addrspace(1) %out, align 4
  ret void
}

define void @oob_fast(ptr noalias %params) {
entry:
  %pb = getelementptr inbounds i8, ptr %params, i64 8
  %bad = load ptr addrspace(1), ptr %pb, align 8
  %tid = call i32 @ferry.tid.x()
  %t = zext i32 %tid to i64
  %p = getelementptr i32, ptr addrspace(1) %bad, i64 %t
  store volatile i32 1, ptr addrspace(1) %p, align 4
  ret void
}

define void @oob_fiber(ptr noalias %params) {
entry:
  %pb = getelementptr inbounds i8, ptr %params, i64 8
  %bad = load ptr addrspace(1), ptr %pb, align 8
  call void @ferry.bar.sync(i32 0, i32 0)
  %v = load volatile i32, ptr addrspace(1) %bad, align 4
  %out = load ptr addrspace(1), ptr %params, align 8
  store i32 %v, ptr addrspace(1) %out, align 4
  ret void
}

define internal i32 @deep(i32 %n) noinline {
entry:
  %buf = alloca [4096 x i8], align 16
  %n64 = zext i32 %n to i64
  %at = and i64 %n64, 4095
  %slot = getelementptr inbounds [4096 x i8], ptr %buf, i64 0, i64 %at
  store volatile i8 1, ptr %slot, align 1
  %z = icmp eq i32 %n, 0
  br i1 %z, label %leaf, label %rec
leaf:
  ret i32 0
rec:
  %m = sub i32 %n, 1
  %r = call i32 @deep(i32 %m)
  %x = load volatile i8, ptr %slot, align 1
  %xe = zext i8 %x to i32
  %s = add i32 %r, %xe
  ret i32 %s
}

define void @overflow(ptr noalias %params) {
entry:
  %out = load ptr addrspace(1), ptr %params, align 8
  %pn = getelementptr inbounds i8, ptr %params, i64 16
  %n = load i32, ptr %pn, align 4
  %r = call i32 @deep(i32 %n)
  store i32 %r, ptr addrspace(1) %out, align 4
  ret void
}

define void @assert_k(ptr noalias %params) {
entry:
  %tid = call i32 @ferry.tid.x()
  %cta = call i32 @ferry.ctaid.x()
  %t2 = icmp eq i32 %tid, 2
  %c0 = icmp eq i32 %cta, 0
  %both = and i1 %t2, %c0
  br i1 %both, label %fail, label %ok
fail:
  call void @ferry.assertfail(ptr addrspacecast (ptr addrspace(1) @msg to ptr), ptr addrspacecast (ptr addrspace(1) @file to ptr), i32 42, ptr addrspacecast (ptr addrspace(1) @func to ptr), i64 1)
  unreachable
ok:
  ret void
}

define void @assert_many(ptr noalias %params) {
entry:
  %out = load ptr addrspace(1), ptr %params, align 8
  %tid = call i32 @ferry.tid.x()
  %cta = call i32 @ferry.ctaid.x()
  %r = urem i32 %tid, 7
  %t3 = icmp eq i32 %r, 3
  %odd = and i32 %cta, 1
  %even = icmp eq i32 %odd, 0
  %both = and i1 %t3, %even
  br i1 %both, label %fail, label %ok
fail:
  call void @ferry.assertfail(ptr addrspacecast (ptr addrspace(1) @msg to ptr), ptr addrspacecast (ptr addrspace(1) @file to ptr), i32 42, ptr addrspacecast (ptr addrspace(1) @func to ptr), i64 1)
  unreachable
ok:
  %base = mul i32 %cta, 64
  %i = add i32 %base, %tid
  %i64 = zext i32 %i to i64
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %i64
  store i32 1, ptr addrspace(1) %p, align 4
  ret void
}

define void @divzero(ptr noalias %params) {
entry:
  %out = load ptr addrspace(1), ptr %params, align 8
  %pn = getelementptr inbounds i8, ptr %params, i64 16
  %n = load volatile i32, ptr %pn, align 4
  %tid = call i32 @ferry.tid.x()
  %q = sdiv i32 %tid, %n
  store volatile i32 %q, ptr addrspace(1) %out, align 4
  ret void
}

!ferry.kernels = !{!0, !1, !2, !3, !4, !5, !6}
!0 = !{ptr @trap_k}
!1 = !{ptr @oob_fast}
!2 = !{ptr @oob_fiber}
!3 = !{ptr @overflow}
!4 = !{ptr @assert_k}
!5 = !{ptr @divzero}
!6 = !{ptr @assert_many}
