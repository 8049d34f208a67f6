; Warp shuffles with divergence and partial masks. Params: in, outIdx,
; outScan, outDown, outXor (i32 arrays indexed by tid.x).
; - outIdx: shfl.idx broadcast of lane 5 (full mask).
; - outScan: inclusive prefix sum over the warp by shfl.up (uses the
;   in-range predicate).
; - lanes 0-15 (mask 0x0000ffff): shfl.down tree over a 16-lane segment;
;   lane 0 ends with the segment sum (outDown).
; - lanes 16-31 (mask 0xffff0000): butterfly over a 16-lane segment; every
;   lane ends with the segment sum (outXor).
declare i32 @ferry.tid.x()
declare i32 @ferry.laneid()
declare { i32, i1 } @ferry.shfl.sync(i32, i32, i32, i32, i32)

define internal i32 @up(i32 %s, i32 %o) {
  %r = call { i32, i1 } @ferry.shfl.sync(i32 0, i32 -1, i32 %s, i32 %o, i32 0)
  %t = extractvalue { i32, i1 } %r, 0
  %p = extractvalue { i32, i1 } %r, 1
  %sum = add i32 %s, %t
  %n = select i1 %p, i32 %sum, i32 %s
  ret i32 %n
}

define internal i32 @down16(i32 %v, i32 %o) {
  %r = call { i32, i1 } @ferry.shfl.sync(i32 1, i32 65535, i32 %v, i32 %o, i32 4127)
  %t = extractvalue { i32, i1 } %r, 0
  %s = add i32 %v, %t
  ret i32 %s
}

define internal i32 @bfly16(i32 %v, i32 %o) {
  %r = call { i32, i1 } @ferry.shfl.sync(i32 2, i32 -65536, i32 %v, i32 %o, i32 4127)
  %t = extractvalue { i32, i1 } %r, 0
  %s = add i32 %v, %t
  ret i32 %s
}

define void @shfl(ptr noalias %params) {
entry:
  %in = load ptr addrspace(1), ptr %params, align 8
  %p1 = getelementptr inbounds i8, ptr %params, i64 8
  %oidx = load ptr addrspace(1), ptr %p1, align 8
  %p2 = getelementptr inbounds i8, ptr %params, i64 16
  %oscan = load ptr addrspace(1), ptr %p2, align 8
  %p3 = getelementptr inbounds i8, ptr %params, i64 24
  %odown = load ptr addrspace(1), ptr %p3, align 8
  %p4 = getelementptr inbounds i8, ptr %params, i64 32
  %oxor = load ptr addrspace(1), ptr %p4, align 8
  %tid = call i32 @ferry.tid.x()
  %lane = call i32 @ferry.laneid()
  %t = zext i32 %tid to i64
  %ip = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %t
  %v = load i32, ptr addrspace(1) %ip, align 4
  %r = call { i32, i1 } @ferry.shfl.sync(i32 3, i32 -1, i32 %v, i32 5, i32 31)
  %bv = extractvalue { i32, i1 } %r, 0
  %q1 = getelementptr inbounds i32, ptr addrspace(1) %oidx, i64 %t
  store i32 %bv, ptr addrspace(1) %q1, align 4
  %s1 = call i32 @up(i32 %v, i32 1)
  %s2 = call i32 @up(i32 %s1, i32 2)
  %s3 = call i32 @up(i32 %s2, i32 4)
  %s4 = call i32 @up(i32 %s3, i32 8)
  %s5 = call i32 @up(i32 %s4, i32 16)
  %q2 = getelementptr inbounds i32, ptr addrspace(1) %oscan, i64 %t
  store i32 %s5, ptr addrspace(1) %q2, align 4
  %low = icmp ult i32 %lane, 16
  br i1 %low, label %lo, label %hi
lo:
  %d1 = call i32 @down16(i32 %v, i32 8)
  %d2 = call i32 @down16(i32 %d1, i32 4)
  %d3 = call i32 @down16(i32 %d2, i32 2)
  %d4 = call i32 @down16(i32 %d3, i32 1)
  %q3 = getelementptr inbounds i32, ptr addrspace(1) %odown, i64 %t
  store i32 %d4, ptr addrspace(1) %q3, align 4
  br label %join
hi:
  %x1 = call i32 @bfly16(i32 %v, i32 8)
  %x2 = call i32 @bfly16(i32 %x1, i32 4)
  %x3 = call i32 @bfly16(i32 %x2, i32 2)
  %x4 = call i32 @bfly16(i32 %x3, i32 1)
  %q4 = getelementptr inbounds i32, ptr addrspace(1) %oxor, i64 %t
  store i32 %x4, ptr addrspace(1) %q4, align 4
  br label %join
join:
  ret void
}

!ferry.kernels = !{!0}
!0 = !{ptr @shfl}
