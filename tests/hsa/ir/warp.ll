; Warp operations: each shfl mode, ballot, votes, activemask, match, redux,
; elect and __syncwarp. params: out @0 (8 bytes); each result to out[k*32+lane].
define void @warp(ptr noalias dereferenceable(8) %params) {
entry:
  %out = load ptr, ptr %params, align 8
  %lane = call i32 @ferry.laneid()
  %l64 = zext i32 %lane to i64
  call void @ferry.bar.warp.sync(i32 -1)
  ; shfl.up 1, shfl.down 2, shfl.bfly 4, shfl.idx 5 (CUDA width 32 packing)
  %up = call { i32, i1 } @ferry.shfl.sync(i32 0, i32 -1, i32 %lane, i32 1, i32 0)
  %dn = call { i32, i1 } @ferry.shfl.sync(i32 1, i32 -1, i32 %lane, i32 2, i32 31)
  %bf = call { i32, i1 } @ferry.shfl.sync(i32 2, i32 -1, i32 %lane, i32 4, i32 31)
  %ix = call { i32, i1 } @ferry.shfl.sync(i32 3, i32 -1, i32 %lane, i32 5, i32 31)
  %upv = extractvalue { i32, i1 } %up, 0
  %dnv = extractvalue { i32, i1 } %dn, 0
  %bfv = extractvalue { i32, i1 } %bf, 0
  %ixv = extractvalue { i32, i1 } %ix, 0
  %odd = trunc i32 %lane to i1
  %bal = call i32 @ferry.vote.ballot(i32 -1, i1 %odd)
  %any = call i1 @ferry.vote.any(i32 -1, i1 %odd)
  %all = call i1 @ferry.vote.all(i32 -1, i1 %odd)
  %uni = call i1 @ferry.vote.uni(i32 -1, i1 %odd)
  %act = call i32 @ferry.activemask()
  %key = lshr i32 %lane, 2
  %ma = call i32 @ferry.match.any.b32(i32 -1, i32 %key)
  %key64 = zext i32 %key to i64
  %ma64 = call i32 @ferry.match.any.b64(i32 -1, i64 %key64)
  %mall = call { i32, i1 } @ferry.match.all.b32(i32 -1, i32 %key)
  %mallv = extractvalue { i32, i1 } %mall, 0
  %rsum = call i32 @ferry.redux.add(i32 -1, i32 %lane)
  %rmax = call i32 @ferry.redux.umax(i32 65535, i32 %lane)
  %el = call { i32, i1 } @ferry.elect.sync(i32 -1)
  %elv = extractvalue { i32, i1 } %el, 0
  %a1 = zext i1 %any to i32
  %a2 = zext i1 %all to i32
  %a3 = zext i1 %uni to i32
  %s0 = add i32 %upv, %dnv
  %s1 = add i32 %s0, %bfv
  %s2 = add i32 %s1, %ixv
  %s3 = add i32 %s2, %bal
  %s4 = add i32 %s3, %a1
  %s5 = add i32 %s4, %a2
  %s6 = add i32 %s5, %a3
  %s7 = add i32 %s6, %act
  %s8 = add i32 %s7, %ma
  %s9 = add i32 %s8, %ma64
  %s10 = add i32 %s9, %mallv
  %s11 = add i32 %s10, %rsum
  %s12 = add i32 %s11, %rmax
  %s13 = add i32 %s12, %elv
  %o = getelementptr i32, ptr %out, i64 %l64
  store i32 %s13, ptr %o, align 4
  ret void
}
declare i32 @ferry.laneid()
declare void @ferry.bar.warp.sync(i32)
declare { i32, i1 } @ferry.shfl.sync(i32, i32, i32, i32, i32)
declare i32 @ferry.vote.ballot(i32, i1)
declare i1 @ferry.vote.any(i32, i1)
declare i1 @ferry.vote.all(i32, i1)
declare i1 @ferry.vote.uni(i32, i1)
declare i32 @ferry.activemask()
declare i32 @ferry.match.any.b32(i32, i32)
declare i32 @ferry.match.any.b64(i32, i64)
declare { i32, i1 } @ferry.match.all.b32(i32, i32)
declare i32 @ferry.redux.add(i32, i32)
declare i32 @ferry.redux.umax(i32, i32)
declare { i32, i1 } @ferry.elect.sync(i32)
!ferry.kernels = !{!0}
!0 = !{ptr @warp}

; Lowered IR, wave64 (gfx90a/gfx942): a CUDA warp is half a wavefront.
; W64-LABEL: define protected amdgpu_kernel void @warp(ptr addrspace(4) noalias byref([8 x i8]) align 8 %params)
; Lane id = mbcnt over 64 lanes, & 31.
; W64: %wave.lane = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %0)
; W64-NEXT: %warp.lane = and i32 %wave.lane, 31
; __syncwarp: wavefront-scope fence and a wave barrier.
; W64: fence syncscope("wavefront") acq_rel
; W64-NEXT: call void @llvm.amdgcn.wave.barrier()
; shfl.up by 1: j = lane - 1, valid when j >= maxLane; source lane + half base.
; W64: [[UPJ:%.*]] = sub i32 [[L1:%warp.lane[0-9]+]], 1
; W64-NEXT: [[UPP:%.*]] = icmp sge i32 [[UPJ]],
; W64: %shfl.src = select i1 [[UPP]], i32 [[UPJ]], i32 [[L1]]
; W64: %half.base = and i32 %wave.lane{{[0-9]+}}, 32
; W64-NEXT: [[SRC:%.*]] = add i32 %shfl.src, %half.base
; W64-NEXT: [[ADDR:%.*]] = shl i32 [[SRC]], 2
; W64-NEXT: call i32 @llvm.amdgcn.ds.bpermute(i32 [[ADDR]], i32 %warp.lane)
; shfl.down by 2: j = lane + 2, valid when j <= maxLane (31 | clamp).
; W64: [[DNJ:%.*]] = add i32 [[L2:%warp.lane[0-9]+]], 2
; W64-NEXT: [[DNP:%.*]] = icmp sle i32 [[DNJ]], [[MAX2:%[0-9]+]]
; W64: %shfl.src{{[0-9]+}} = select i1 [[DNP]], i32 [[DNJ]], i32 [[L2]]
; W64: call i32 @llvm.amdgcn.ds.bpermute
; shfl.bfly by 4: j = lane ^ 4.
; W64: [[BFJ:%.*]] = xor i32 [[L3:%warp.lane[0-9]+]], 4
; W64-NEXT: [[BFP:%.*]] = icmp sle i32 [[BFJ]],
; W64: %shfl.src{{[0-9]+}} = select i1 [[BFP]], i32 [[BFJ]], i32 [[L3]]
; W64: call i32 @llvm.amdgcn.ds.bpermute
; shfl.idx 5: j = minLane | (5 & ~segmask).
; W64: [[IXJ:%.*]] = or i32 {{%[0-9]+}}, 5
; W64-NEXT: [[IXP:%.*]] = icmp sle i32 [[IXJ]],
; W64-NEXT: %shfl.src{{[0-9]+}} = select i1 [[IXP]], i32 [[IXJ]], i32
; W64: call i32 @llvm.amdgcn.ds.bpermute
; ballot: the 64-bit ballot shifted right by (lane & 32), truncated.
; W64: [[B:%.*]] = call i64 @llvm.amdgcn.ballot.i64(i1 %odd)
; W64: [[HB:%half.base[0-9]+]] = and i32 %wave.lane{{[0-9]+}}, 32
; W64-NEXT: [[SH:%.*]] = zext i32 [[HB]] to i64
; W64-NEXT: [[BS:%.*]] = lshr i64 [[B]], [[SH]]
; W64-NEXT: %ballot.half = trunc i64 [[BS]] to i32
; vote.any: half ballot != 0
; W64: %ballot.half{{[0-9]+}} = trunc i64
; W64-NEXT: icmp ne i32 %ballot.half{{[0-9]+}}, 0
; vote.all: ballot of the negation == 0
; W64: [[NOT:%.*]] = xor i1 %odd, true
; W64-NEXT: call i64 @llvm.amdgcn.ballot.i64(i1 [[NOT]])
; W64: icmp eq i32 %ballot.half{{[0-9]+}}, 0
; match.any: a readfirstlane waterfall, ballot of equal lanes, half-shifted.
; W64: match.loop:
; W64-NEXT: [[U:%.*]] = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %key)
; W64-NEXT: [[EQ:%.*]] = icmp eq i32 %key, [[U]]
; W64-NEXT: call i64 @llvm.amdgcn.ballot.i64(i1 [[EQ]])
; W64: lshr i64
; W64: br i1 [[EQ]], label %match.done, label %match.loop
; match.any.b64 compares 64-bit values.
; W64: call i64 @llvm.amdgcn.readfirstlane.i64(i64 %key64)
; redux.add with a full mask: five butterfly steps (xor 16, 8, 4, 2, 1).
; W64: xor i32 %warp.lane{{[0-9]+}}, 16
; W64: xor i32 %warp.lane{{[0-9]+}}, 8
; W64: xor i32 %warp.lane{{[0-9]+}}, 4
; W64: xor i32 %warp.lane{{[0-9]+}}, 2
; W64: xor i32 %warp.lane{{[0-9]+}}, 1
; redux.umax with a partial mask: a loop over the 32 lanes of the half.
; W64: redux.loop:
; W64: call i32 @llvm.umax.i32
; W64: icmp eq i32 {{%[0-9]+}}, 32
; elect.sync: the lowest member.
; W64: call i32 @llvm.cttz.i32

; Lowered IR, wave32 (gfx1030/gfx1100/gfx1201): the warp is the wavefront.
; W32-LABEL: define protected amdgpu_kernel void @warp(
; W32-NOT: mbcnt.hi
; W32-NOT: ballot.i64
; W32-NOT: half.base
; W32: call i32 @llvm.amdgcn.ds.bpermute
; W32: call i32 @llvm.amdgcn.ballot.i32(i1 %odd)
; W32: match.loop:
; W32: call i32 @llvm.amdgcn.ballot.i32
; W32-NOT: mbcnt.hi
; W32-NOT: ballot.i64

; Machine code.
; A64-LABEL: warp:
; A64: v_mbcnt_hi_u32_b32
; A64: ds_bpermute_b32
; A64: s_endpgm
; A64: .wavefront_size: 64
; A32-LABEL: warp:
; A32-NOT: v_mbcnt_hi
; A32: ds_bpermute_b32
; A32: s_endpgm
; A32: .wavefront_size: 32
