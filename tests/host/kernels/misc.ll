; Geometry, dynamic shared memory, cooperative grid sync, device malloc and
; module variables.
declare i32 @ferry.tid.x()
declare i32 @ferry.tid.y()
declare i32 @ferry.tid.z()
declare i32 @ferry.ntid.x()
declare i32 @ferry.ntid.y()
declare i32 @ferry.ntid.z()
declare i32 @ferry.ctaid.x()
declare i32 @ferry.ctaid.y()
declare i32 @ferry.ctaid.z()
declare i32 @ferry.nctaid.x()
declare i32 @ferry.nctaid.y()
declare i32 @ferry.nctaid.z()
declare i32 @ferry.laneid()
declare i32 @ferry.warpid()
declare i32 @ferry.dynamic_smem_size()
declare ptr addrspace(3) @ferry.dynamic_smem()
declare void @ferry.bar.sync(i32, i32)
declare void @ferry.grid.sync()
declare ptr @ferry.malloc(i64)
declare void @ferry.free(ptr)

; --- geometry: out[g*14 + k] for the thread's global linear index g.
define void @geometry(ptr noalias %params) {
entry:
  %out = load ptr addrspace(1), ptr %params, align 8
  %tx = call i32 @ferry.tid.x()
  %ty = call i32 @ferry.tid.y()
  %tz = call i32 @ferry.tid.z()
  %nx = call i32 @ferry.ntid.x()
  %ny = call i32 @ferry.ntid.y()
  %nz = call i32 @ferry.ntid.z()
  %cx = call i32 @ferry.ctaid.x()
  %cy = call i32 @ferry.ctaid.y()
  %cz = call i32 @ferry.ctaid.z()
  %gx = call i32 @ferry.nctaid.x()
  %gy = call i32 @ferry.nctaid.y()
  %gz = call i32 @ferry.nctaid.z()
  %lane = call i32 @ferry.laneid()
  %warp = call i32 @ferry.warpid()
  %b1 = mul i32 %gy, %cz
  %b2 = add i32 %cy, %b1
  %b3 = mul i32 %gx, %b2
  %blin = add i32 %cx, %b3
  %t1 = mul i32 %ny, %tz
  %t2 = add i32 %ty, %t1
  %t3 = mul i32 %nx, %t2
  %tlin = add i32 %tx, %t3
  %nxy = mul i32 %nx, %ny
  %nt = mul i32 %nxy, %nz
  %g0 = mul i32 %blin, %nt
  %g = add i32 %g0, %tlin
  %g64 = zext i32 %g to i64
  %base = mul i64 %g64, 14
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %base
  store i32 %tx, ptr addrspace(1) %p, align 4
  %p1 = getelementptr inbounds i32, ptr addrspace(1) %p, i64 1
  store i32 %ty, ptr addrspace(1) %p1, align 4
  %p2 = getelementptr inbounds i32, ptr addrspace(1) %p, i64 2
  store i32 %tz, ptr addrspace(1) %p2, align 4
  %p3 = getelementptr inbounds i32, ptr addrspace(1) %p, i64 3
  store i32 %cx, ptr addrspace(1) %p3, align 4
  %p4 = getelementptr inbounds i32, ptr addrspace(1) %p, i64 4
  store i32 %cy, ptr addrspace(1) %p4, align 4
  %p5 = getelementptr inbounds i32, ptr addrspace(1) %p, i64 5
  store i32 %cz, ptr addrspace(1) %p5, align 4
  %p6 = getelementptr inbounds i32, ptr addrspace(1) %p, i64 6
  store i32 %nx, ptr addrspace(1) %p6, align 4
  %p7 = getelementptr inbounds i32, ptr addrspace(1) %p, i64 7
  store i32 %ny, ptr addrspace(1) %p7, align 4
  %p8 = getelementptr inbounds i32, ptr addrspace(1) %p, i64 8
  store i32 %nz, ptr addrspace(1) %p8, align 4
  %p9 = getelementptr inbounds i32, ptr addrspace(1) %p, i64 9
  store i32 %gx, ptr addrspace(1) %p9, align 4
  %p10 = getelementptr inbounds i32, ptr addrspace(1) %p, i64 10
  store i32 %gy, ptr addrspace(1) %p10, align 4
  %p11 = getelementptr inbounds i32, ptr addrspace(1) %p, i64 11
  store i32 %gz, ptr addrspace(1) %p11, align 4
  %p12 = getelementptr inbounds i32, ptr addrspace(1) %p, i64 12
  store i32 %lane, ptr addrspace(1) %p12, align 4
  %p13 = getelementptr inbounds i32, ptr addrspace(1) %p, i64 13
  store i32 %warp, ptr addrspace(1) %p13, align 4
  ret void
}

; --- dynamic shared memory: writes through ferry.dynamic_smem(), reads
; through the extern array, reverses in[] into out[]; thread 0 reports the
; static variable's sum (must stay 666) and the dynamic size into info[].
@stat = internal addrspace(3) global [3 x i32] undef, align 4
@dynarr = external addrspace(3) global [0 x i32], align 16

define void @dynsmem(ptr noalias %params) {
entry:
  %in = load ptr addrspace(1), ptr %params, align 8
  %p1 = getelementptr inbounds i8, ptr %params, i64 8
  %out = load ptr addrspace(1), ptr %p1, align 8
  %p2 = getelementptr inbounds i8, ptr %params, i64 16
  %info = load ptr addrspace(1), ptr %p2, align 8
  %tid = call i32 @ferry.tid.x()
  %n = call i32 @ferry.ntid.x()
  %t = zext i32 %tid to i64
  %is0 = icmp eq i32 %tid, 0
  br i1 %is0, label %setstat, label %fill
setstat:
  store i32 111, ptr addrspace(3) @stat, align 4
  store i32 222, ptr addrspace(3) getelementptr inbounds ([3 x i32], ptr addrspace(3) @stat, i64 0, i64 1), align 4
  store i32 333, ptr addrspace(3) getelementptr inbounds ([3 x i32], ptr addrspace(3) @stat, i64 0, i64 2), align 4
  br label %fill
fill:
  %dyn = call ptr addrspace(3) @ferry.dynamic_smem()
  %ip = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %t
  %v = load i32, ptr addrspace(1) %ip, align 4
  %dp = getelementptr inbounds i32, ptr addrspace(3) %dyn, i64 %t
  store i32 %v, ptr addrspace(3) %dp, align 4
  call void @ferry.bar.sync(i32 0, i32 0)
  %r0 = sub i32 %n, 1
  %r = sub i32 %r0, %tid
  %rx = zext i32 %r to i64
  %rp = getelementptr inbounds [0 x i32], ptr addrspace(3) @dynarr, i64 0, i64 %rx
  %rv = load i32, ptr addrspace(3) %rp, align 4
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %t
  store i32 %rv, ptr addrspace(1) %op, align 4
  br i1 %is0, label %report, label %done
report:
  %s0 = load i32, ptr addrspace(3) @stat, align 4
  %s1 = load i32, ptr addrspace(3) getelementptr inbounds ([3 x i32], ptr addrspace(3) @stat, i64 0, i64 1), align 4
  %s2 = load i32, ptr addrspace(3) getelementptr inbounds ([3 x i32], ptr addrspace(3) @stat, i64 0, i64 2), align 4
  %a = add i32 %s0, %s1
  %b = add i32 %a, %s2
  store i32 %b, ptr addrspace(1) %info, align 4
  %sz = call i32 @ferry.dynamic_smem_size()
  %i1 = getelementptr inbounds i32, ptr addrspace(1) %info, i64 1
  store i32 %sz, ptr addrspace(1) %i1, align 4
  br label %done
done:
  ret void
}

; --- cooperative grid sync: data[cta] = cta + 1; grid.sync; every thread 0
; sums data[] into out[cta].
define void @gridsum(ptr noalias %params) {
entry:
  %data = load ptr addrspace(1), ptr %params, align 8
  %p1 = getelementptr inbounds i8, ptr %params, i64 8
  %out = load ptr addrspace(1), ptr %p1, align 8
  %tid = call i32 @ferry.tid.x()
  %cta = call i32 @ferry.ctaid.x()
  %grid = call i32 @ferry.nctaid.x()
  %c = zext i32 %cta to i64
  %is0 = icmp eq i32 %tid, 0
  br i1 %is0, label %put, label %sync
put:
  %v = add i32 %cta, 1
  %dp = getelementptr inbounds i32, ptr addrspace(1) %data, i64 %c
  store volatile i32 %v, ptr addrspace(1) %dp, align 4
  br label %sync
sync:
  call void @ferry.bar.sync(i32 0, i32 0)
  call void @ferry.grid.sync()
  br i1 %is0, label %sum, label %done
sum:
  %i = phi i32 [ 0, %sync ], [ %inext, %sum ]
  %acc = phi i32 [ 0, %sync ], [ %accnext, %sum ]
  %ix = zext i32 %i to i64
  %ep = getelementptr inbounds i32, ptr addrspace(1) %data, i64 %ix
  %e = load volatile i32, ptr addrspace(1) %ep, align 4
  %accnext = add i32 %acc, %e
  %inext = add i32 %i, 1
  %more = icmp ult i32 %inext, %grid
  br i1 %more, label %sum, label %write
write:
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %c
  store i32 %accnext, ptr addrspace(1) %op, align 4
  br label %done
done:
  ret void
}

; --- device malloc: each thread allocates, writes tid*3, reads back, frees.
define void @mallocs(ptr noalias %params) {
entry:
  %out = load ptr addrspace(1), ptr %params, align 8
  %tid = call i32 @ferry.tid.x()
  %t = zext i32 %tid to i64
  %m = call ptr @ferry.malloc(i64 64)
  %v = mul i32 %tid, 3
  store volatile i32 %v, ptr %m, align 4
  %r = load volatile i32, ptr %m, align 4
  call void @ferry.free(ptr %m)
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %t
  store i32 %r, ptr addrspace(1) %op, align 4
  ret void
}

; --- module variables: out[tid] = cval[tid] + gval; the host rewrites both
; before launching (so neither may be folded into the code).
@gval = addrspace(1) global i32 7, align 4
@cval = addrspace(4) constant [4 x i32] [i32 1, i32 2, i32 3, i32 4], align 4

define void @globals(ptr noalias %params) {
entry:
  %out = load ptr addrspace(1), ptr %params, align 8
  %tid = call i32 @ferry.tid.x()
  %t = zext i32 %tid to i64
  %cp = getelementptr inbounds [4 x i32], ptr addrspace(4) @cval, i64 0, i64 %t
  %c = load i32, ptr addrspace(4) %cp, align 4
  %g = load i32, ptr addrspace(1) @gval, align 4
  %s = add i32 %c, %g
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %t
  store i32 %s, ptr addrspace(1) %op, align 4
  ret void
}

!ferry.kernels = !{!0, !1, !2, !3, !4}
!0 = !{ptr @geometry}
!1 = !{ptr @dynsmem}
!2 = !{ptr @gridsum}
!3 = !{ptr @mallocs}
!4 = !{ptr @globals}
