; Atomic contention. @atomics: every thread adds 1 to a global counter
; (device scope), adds 1.0 to a global float, and 1 to a shared counter
; (block scope); after a barrier thread 0 adds the shared count to a global
; total. @atomics_fast has no barrier (block-loop path): global adds only.
; Params: counter (i32*), fsum (float*), total (i32*).
declare i32 @ferry.tid.x()
declare void @ferry.bar.sync(i32, i32)

@scount = internal addrspace(3) global i32 undef, align 4

define void @atomics(ptr noalias %params) {
entry:
  %counter = load ptr addrspace(1), ptr %params, align 8
  %p1 = getelementptr inbounds i8, ptr %params, i64 8
  %fsum = load ptr addrspace(1), ptr %p1, align 8
  %p2 = getelementptr inbounds i8, ptr %params, i64 16
  %total = load ptr addrspace(1), ptr %p2, align 8
  %tid = call i32 @ferry.tid.x()
  %is0 = icmp eq i32 %tid, 0
  br i1 %is0, label %init, label %go
init:
  store i32 0, ptr addrspace(3) @scount, align 4
  br label %go
go:
  call void @ferry.bar.sync(i32 0, i32 0)
  %a = atomicrmw add ptr addrspace(1) %counter, i32 1 syncscope("device") monotonic, align 4
  %f = atomicrmw fadd ptr addrspace(1) %fsum, float 1.0 syncscope("device") monotonic, align 4
  %s = atomicrmw add ptr addrspace(3) @scount, i32 1 syncscope("block") monotonic, align 4
  call void @ferry.bar.sync(i32 0, i32 0)
  br i1 %is0, label %publish, label %done
publish:
  %n = load i32, ptr addrspace(3) @scount, align 4
  %t = atomicrmw add ptr addrspace(1) %total, i32 %n monotonic, align 4
  br label %done
done:
  ret void
}

define void @atomics_fast(ptr noalias %params) {
entry:
  %counter = load ptr addrspace(1), ptr %params, align 8
  %p1 = getelementptr inbounds i8, ptr %params, i64 8
  %fsum = load ptr addrspace(1), ptr %p1, align 8
  %a = atomicrmw add ptr addrspace(1) %counter, i32 1 syncscope("device") monotonic, align 4
  %f = atomicrmw fadd ptr addrspace(1) %fsum, float 1.0 monotonic, align 4
  ret void
}

!ferry.kernels = !{!0, !1}
!0 = !{ptr @atomics}
!1 = !{ptr @atomics_fast}
