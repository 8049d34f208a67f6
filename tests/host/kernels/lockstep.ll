; Pre-Volta warp-synchronous code: lanes of one warp trade values through
; volatile shared memory with no warp barrier, relying on lockstep. Every
; kernel runs in blocks of 64 threads (two warps); params: in, out (i32).
;
; @last_warp_sum: out[cta] = sum(in[cta*64 .. +64)); after one block
;   barrier the first warp folds 64 slots in place, `s[t] += s[t + off]`
;   for off = 32, 16, ..., 1 (a loop, as nvcc emits it unrolled).
; @guarded_scan: out[g] = inclusive scan of each warp's 32 inputs, the
;   Hillis-Steele steps guarded by `if (lane >= off)` (divergent).
; @smem_vote: out[cta*2 + warp] = how many lanes of the warp have in > 0,
;   counted by lane 0 from flags the lanes have just stored; no barrier at
;   all, so only the volatile accesses can keep the threads together.
declare i32 @ferry.tid.x()
declare i32 @ferry.ctaid.x()
declare void @ferry.bar.sync(i32, i32)

@sum_s = internal addrspace(3) global [64 x i32] undef, align 4
@scan_s = internal addrspace(3) global [64 x i32] undef, align 4
@vote_s = internal addrspace(3) global [64 x i32] undef, align 4

define void @last_warp_sum(ptr noalias %params) {
entry:
  %in = load ptr addrspace(1), ptr %params, align 8
  %po = getelementptr inbounds i8, ptr %params, i64 8
  %out = load ptr addrspace(1), ptr %po, align 8
  %tid = call i32 @ferry.tid.x()
  %cta = call i32 @ferry.ctaid.x()
  %base = mul i32 %cta, 64
  %g = add i32 %base, %tid
  %gx = zext i32 %g to i64
  %ip = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gx
  %v = load i32, ptr addrspace(1) %ip, align 4
  %tx = zext i32 %tid to i64
  %sp = getelementptr inbounds [64 x i32], ptr addrspace(3) @sum_s, i64 0, i64 %tx
  store i32 %v, ptr addrspace(3) %sp, align 4
  call void @ferry.bar.sync(i32 0, i32 0)
  %first = icmp ult i32 %tid, 32
  br i1 %first, label %fold, label %done
fold:
  %off = phi i32 [ 32, %entry ], [ %next, %fold ]
  %o = add i32 %tid, %off
  %ox = zext i32 %o to i64
  %op = getelementptr inbounds [64 x i32], ptr addrspace(3) @sum_s, i64 0, i64 %ox
  %a = load volatile i32, ptr addrspace(3) %op, align 4
  %b = load volatile i32, ptr addrspace(3) %sp, align 4
  %s = add i32 %a, %b
  store volatile i32 %s, ptr addrspace(3) %sp, align 4
  %next = lshr i32 %off, 1
  %more = icmp ne i32 %next, 0
  br i1 %more, label %fold, label %write
write:
  %is0 = icmp eq i32 %tid, 0
  br i1 %is0, label %store, label %done
store:
  %r = load volatile i32, ptr addrspace(3) @sum_s, align 4
  %cx = zext i32 %cta to i64
  %outp = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %cx
  store i32 %r, ptr addrspace(1) %outp, align 4
  br label %done
done:
  ret void
}

define void @guarded_scan(ptr noalias %params) {
entry:
  %in = load ptr addrspace(1), ptr %params, align 8
  %po = getelementptr inbounds i8, ptr %params, i64 8
  %out = load ptr addrspace(1), ptr %po, align 8
  %tid = call i32 @ferry.tid.x()
  %cta = call i32 @ferry.ctaid.x()
  %lane = and i32 %tid, 31
  %base = mul i32 %cta, 64
  %g = add i32 %base, %tid
  %gx = zext i32 %g to i64
  %ip = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gx
  %v = load i32, ptr addrspace(1) %ip, align 4
  %tx = zext i32 %tid to i64
  %sp = getelementptr inbounds [64 x i32], ptr addrspace(3) @scan_s, i64 0, i64 %tx
  store volatile i32 %v, ptr addrspace(3) %sp, align 4
  br label %step
step:
  %off = phi i32 [ 1, %entry ], [ %next, %latch ]
  %take = icmp uge i32 %lane, %off
  br i1 %take, label %add, label %latch
add:
  %o = sub i32 %tid, %off
  %ox = zext i32 %o to i64
  %op = getelementptr inbounds [64 x i32], ptr addrspace(3) @scan_s, i64 0, i64 %ox
  %a = load volatile i32, ptr addrspace(3) %op, align 4
  %b = load volatile i32, ptr addrspace(3) %sp, align 4
  %s = add i32 %a, %b
  store volatile i32 %s, ptr addrspace(3) %sp, align 4
  br label %latch
latch:
  %next = shl i32 %off, 1
  %more = icmp ult i32 %next, 32
  br i1 %more, label %step, label %done
done:
  %r = load volatile i32, ptr addrspace(3) %sp, align 4
  %outp = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gx
  store i32 %r, ptr addrspace(1) %outp, align 4
  ret void
}

define void @smem_vote(ptr noalias %params) {
entry:
  %in = load ptr addrspace(1), ptr %params, align 8
  %po = getelementptr inbounds i8, ptr %params, i64 8
  %out = load ptr addrspace(1), ptr %po, align 8
  %tid = call i32 @ferry.tid.x()
  %cta = call i32 @ferry.ctaid.x()
  %lane = and i32 %tid, 31
  %base = mul i32 %cta, 64
  %g = add i32 %base, %tid
  %gx = zext i32 %g to i64
  %ip = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gx
  %v = load i32, ptr addrspace(1) %ip, align 4
  %pos = icmp sgt i32 %v, 0
  %flag = zext i1 %pos to i32
  %tx = zext i32 %tid to i64
  %fp = getelementptr inbounds [64 x i32], ptr addrspace(3) @vote_s, i64 0, i64 %tx
  store volatile i32 %flag, ptr addrspace(3) %fp, align 4
  %leader = icmp eq i32 %lane, 0
  br i1 %leader, label %count, label %done
count:
  %l = phi i32 [ 0, %entry ], [ %l1, %count ]
  %c = phi i32 [ 0, %entry ], [ %c1, %count ]
  %k = add i32 %tid, %l
  %kx = zext i32 %k to i64
  %kp = getelementptr inbounds [64 x i32], ptr addrspace(3) @vote_s, i64 0, i64 %kx
  %f = load volatile i32, ptr addrspace(3) %kp, align 4
  %c1 = add i32 %c, %f
  %l1 = add i32 %l, 1
  %more = icmp ult i32 %l1, 32
  br i1 %more, label %count, label %write
write:
  %w = lshr i32 %tid, 5
  %slot = add i32 %w, %cta
  %slot2 = add i32 %slot, %cta
  %sx = zext i32 %slot2 to i64
  %outp = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %sx
  store i32 %c1, ptr addrspace(1) %outp, align 4
  br label %done
done:
  ret void
}

!ferry.kernels = !{!0, !1, !2}
!0 = !{ptr @last_warp_sum}
!1 = !{ptr @guarded_scan}
!2 = !{ptr @smem_vote}
