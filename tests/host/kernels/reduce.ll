; Block sum through shared memory with a barrier inside the loop:
; out[ctaid] = sum(in[ctaid*ntid .. +ntid)). blockDim.x is a power of two
; <= 256. A second shared variable (@tag) checks that variables do not
; overlap: thread 0 writes it first and reads it back last.
declare i32 @ferry.tid.x()
declare i32 @ferry.ctaid.x()
declare i32 @ferry.ntid.x()
declare void @ferry.bar.sync(i32, i32)

@tag = internal addrspace(3) global i32 undef, align 4
@sdata = internal addrspace(3) global [256 x i32] undef, align 4

define void @reduce(ptr noalias %params) {
entry:
  %in = load ptr addrspace(1), ptr %params, align 8
  %po = getelementptr inbounds i8, ptr %params, i64 8
  %out = load ptr addrspace(1), ptr %po, align 8
  %tid = call i32 @ferry.tid.x()
  %cta = call i32 @ferry.ctaid.x()
  %ntid = call i32 @ferry.ntid.x()
  %is0 = icmp eq i32 %tid, 0
  br i1 %is0, label %settag, label %load
settag:
  store i32 12345, ptr addrspace(3) @tag, align 4
  br label %load
load:
  %base = mul i32 %cta, %ntid
  %gi = add i32 %base, %tid
  %gidx = zext i32 %gi to i64
  %ip = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gidx
  %v = load i32, ptr addrspace(1) %ip, align 4
  %tidx = zext i32 %tid to i64
  %sp = getelementptr inbounds [256 x i32], ptr addrspace(3) @sdata, i64 0, i64 %tidx
  store i32 %v, ptr addrspace(3) %sp, align 4
  call void @ferry.bar.sync(i32 0, i32 0)
  %s0 = lshr i32 %ntid, 1
  br label %loop
loop:
  %s = phi i32 [ %s0, %load ], [ %snext, %latch ]
  %more = icmp ugt i32 %s, 0
  br i1 %more, label %step, label %finish
step:
  %act = icmp ult i32 %tid, %s
  br i1 %act, label %add, label %sync
add:
  %o = add i32 %tid, %s
  %oidx = zext i32 %o to i64
  %op = getelementptr inbounds [256 x i32], ptr addrspace(3) @sdata, i64 0, i64 %oidx
  %ov = load i32, ptr addrspace(3) %op, align 4
  %mv = load i32, ptr addrspace(3) %sp, align 4
  %sum = add i32 %mv, %ov
  store i32 %sum, ptr addrspace(3) %sp, align 4
  br label %sync
sync:
  call void @ferry.bar.sync(i32 0, i32 0)
  br label %latch
latch:
  %snext = lshr i32 %s, 1
  br label %loop
finish:
  br i1 %is0, label %write, label %done
write:
  %r = load i32, ptr addrspace(3) getelementptr inbounds ([256 x i32], ptr addrspace(3) @sdata, i64 0, i64 0), align 4
  %t = load i32, ptr addrspace(3) @tag, align 4
  %good = icmp eq i32 %t, 12345
  %res = select i1 %good, i32 %r, i32 -1
  %ctaidx = zext i32 %cta to i64
  %outp = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %ctaidx
  store i32 %res, ptr addrspace(1) %outp, align 4
  br label %done
done:
  ret void
}

!ferry.kernels = !{!0}
!0 = !{ptr @reduce}
