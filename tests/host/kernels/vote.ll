; Warp votes, match, redux, activemask and elect over full and partial
; warps. Params: in (i32 per thread), out (16 i32 per thread):
;  0 ballot(in&1)  1 all(in>0)  2 any(in>100)  3 uni(in<1000)
;  4 match.any(in%4)  5 match.all(7) mask  6 match.all(7) pred
;  7 match.all(in) pred  8 redux.add  9 umin 10 umax 11 smin(in-50)
; 12 smax(in-50) 13 and 14 or 15 xor   (redux over in)
; 16 activemask 17 elect lane 18 elect is-me  19 bar.warp.sync then 1
declare i32 @ferry.tid.x()
declare void @ferry.bar.warp.sync(i32)
declare i1 @ferry.vote.all(i32, i1)
declare i1 @ferry.vote.any(i32, i1)
declare i1 @ferry.vote.uni(i32, i1)
declare i32 @ferry.vote.ballot(i32, i1)
declare i32 @ferry.match.any.b32(i32, i32)
declare { i32, i1 } @ferry.match.all.b64(i32, i64)
declare { i32, i1 } @ferry.match.all.b32(i32, i32)
declare i32 @ferry.redux.add(i32, i32)
declare i32 @ferry.redux.umin(i32, i32)
declare i32 @ferry.redux.umax(i32, i32)
declare i32 @ferry.redux.smin(i32, i32)
declare i32 @ferry.redux.smax(i32, i32)
declare i32 @ferry.redux.and(i32, i32)
declare i32 @ferry.redux.or(i32, i32)
declare i32 @ferry.redux.xor(i32, i32)
declare i32 @ferry.activemask()
declare { i32, i1 } @ferry.elect.sync(i32)

define internal void @put(ptr addrspace(1) %o, i64 %base, i64 %k, i32 %v) {
  %i = add i64 %base, %k
  %p = getelementptr inbounds i32, ptr addrspace(1) %o, i64 %i
  store i32 %v, ptr addrspace(1) %p, align 4
  ret void
}

define internal void @putb(ptr addrspace(1) %o, i64 %base, i64 %k, i1 %b) {
  %v = zext i1 %b to i32
  call void @put(ptr addrspace(1) %o, i64 %base, i64 %k, i32 %v)
  ret void
}

define void @vote(ptr noalias %params) {
entry:
  %in = load ptr addrspace(1), ptr %params, align 8
  %p1 = getelementptr inbounds i8, ptr %params, i64 8
  %out = load ptr addrspace(1), ptr %p1, align 8
  %tid = call i32 @ferry.tid.x()
  %t = zext i32 %tid to i64
  %ip = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %t
  %v = load i32, ptr addrspace(1) %ip, align 4
  %ob = mul i64 %t, 20
  %odd = trunc i32 %v to i1
  %b0 = call i32 @ferry.vote.ballot(i32 -1, i1 %odd)
  call void @put(ptr addrspace(1) %out, i64 %ob, i64 0, i32 %b0)
  %pos = icmp sgt i32 %v, 0
  %b1 = call i1 @ferry.vote.all(i32 -1, i1 %pos)
  call void @putb(ptr addrspace(1) %out, i64 %ob, i64 1, i1 %b1)
  %big = icmp sgt i32 %v, 100
  %b2 = call i1 @ferry.vote.any(i32 -1, i1 %big)
  call void @putb(ptr addrspace(1) %out, i64 %ob, i64 2, i1 %b2)
  %small = icmp slt i32 %v, 1000
  %b3 = call i1 @ferry.vote.uni(i32 -1, i1 %small)
  call void @putb(ptr addrspace(1) %out, i64 %ob, i64 3, i1 %b3)
  %m4 = urem i32 %v, 4
  %b4 = call i32 @ferry.match.any.b32(i32 -1, i32 %m4)
  call void @put(ptr addrspace(1) %out, i64 %ob, i64 4, i32 %b4)
  %r5 = call { i32, i1 } @ferry.match.all.b64(i32 -1, i64 7)
  %b5 = extractvalue { i32, i1 } %r5, 0
  %b6 = extractvalue { i32, i1 } %r5, 1
  call void @put(ptr addrspace(1) %out, i64 %ob, i64 5, i32 %b5)
  call void @putb(ptr addrspace(1) %out, i64 %ob, i64 6, i1 %b6)
  %r7 = call { i32, i1 } @ferry.match.all.b32(i32 -1, i32 %v)
  %b7 = extractvalue { i32, i1 } %r7, 1
  call void @putb(ptr addrspace(1) %out, i64 %ob, i64 7, i1 %b7)
  %c8 = call i32 @ferry.redux.add(i32 -1, i32 %v)
  call void @put(ptr addrspace(1) %out, i64 %ob, i64 8, i32 %c8)
  %c9 = call i32 @ferry.redux.umin(i32 -1, i32 %v)
  call void @put(ptr addrspace(1) %out, i64 %ob, i64 9, i32 %c9)
  %c10 = call i32 @ferry.redux.umax(i32 -1, i32 %v)
  call void @put(ptr addrspace(1) %out, i64 %ob, i64 10, i32 %c10)
  %w = sub i32 %v, 50
  %c11 = call i32 @ferry.redux.smin(i32 -1, i32 %w)
  call void @put(ptr addrspace(1) %out, i64 %ob, i64 11, i32 %c11)
  %c12 = call i32 @ferry.redux.smax(i32 -1, i32 %w)
  call void @put(ptr addrspace(1) %out, i64 %ob, i64 12, i32 %c12)
  %c13 = call i32 @ferry.redux.and(i32 -1, i32 %v)
  call void @put(ptr addrspace(1) %out, i64 %ob, i64 13, i32 %c13)
  %c14 = call i32 @ferry.redux.or(i32 -1, i32 %v)
  call void @put(ptr addrspace(1) %out, i64 %ob, i64 14, i32 %c14)
  %c15 = call i32 @ferry.redux.xor(i32 -1, i32 %v)
  call void @put(ptr addrspace(1) %out, i64 %ob, i64 15, i32 %c15)
  %c16 = call i32 @ferry.activemask()
  call void @put(ptr addrspace(1) %out, i64 %ob, i64 16, i32 %c16)
  %r17 = call { i32, i1 } @ferry.elect.sync(i32 -1)
  %c17 = extractvalue { i32, i1 } %r17, 0
  %c18 = extractvalue { i32, i1 } %r17, 1
  call void @put(ptr addrspace(1) %out, i64 %ob, i64 17, i32 %c17)
  call void @putb(ptr addrspace(1) %out, i64 %ob, i64 18, i1 %c18)
  call void @ferry.bar.warp.sync(i32 -1)
  call void @put(ptr addrspace(1) %out, i64 %ob, i64 19, i32 1)
  ret void
}

!ferry.kernels = !{!0}
!0 = !{ptr @vote}
