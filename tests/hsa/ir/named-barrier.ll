; Producer/consumer on barrier 1: warps 0-1 write shared memory and arrive
; (bar.arrive 1, 128), warps 2-3 wait (bar.sync 1, 128) and read; barrier 0
; stays s_barrier. Barrier 1 becomes an LDS counter (LowerSimt.cpp,
; namedBarrier): one CAS per wavefront adding 32 per CUDA warp (wave64: two
; warps a wavefront), waiters spin on its generation; the kernel zeroes the
; counters on entry. Producers and consumers are in different wavefronts
; on wave64 too (a wavefront cannot wait for its own other half).
; params: out @0 (8 bytes).
@buf = internal addrspace(3) global [64 x i32] poison, align 4

define void @prodcons(ptr noalias dereferenceable(8) %params) {
entry:
  %out = load ptr, ptr %params, align 8
  %tid = call i32 @ferry.tid.x()
  %i = and i32 %tid, 63
  %i64 = zext i32 %i to i64
  %slot = getelementptr [64 x i32], ptr addrspace(3) @buf, i64 0, i64 %i64
  call void @ferry.bar.sync(i32 0, i32 0)
  %producer = icmp ult i32 %tid, 64
  br i1 %producer, label %produce, label %consume
produce:
  store i32 %tid, ptr addrspace(3) %slot, align 4
  call void @ferry.bar.arrive(i32 1, i32 128)
  br label %done
consume:
  call void @ferry.bar.sync(i32 1, i32 128)
  %v = load i32, ptr addrspace(3) %slot, align 4
  %t64 = zext i32 %tid to i64
  %dst = getelementptr i32, ptr %out, i64 %t64
  store i32 %v, ptr %dst, align 4
  br label %done
done:
  ret void
}
declare i32 @ferry.tid.x()
declare void @ferry.bar.sync(i32, i32)
declare void @ferry.bar.arrive(i32, i32)
!ferry.kernels = !{!0}
!0 = !{ptr @prodcons}

; Entry: thread 0 zeroes the 16 counters, then a block barrier; bar.sync 0
; (nothing arrives at barrier 0) stays s_barrier.
; CHECK-LABEL: define protected amdgpu_kernel void @prodcons(
; CHECK: store [16 x i32] zeroinitializer, ptr addrspace(3) @__ferry_named_barriers, align 16
; CHECK: call void @llvm.amdgcn.s.barrier()
; CHECK: call void @llvm.amdgcn.s.barrier()
; bar.arrive 1, 128: release, then the first active lane's CAS on word 1,
; adding 32 per warp with an active lane; no waiting.
; CHECK-LABEL: produce:
; CHECK: fence syncscope("workgroup") release
; W64: %[[M:.*]] = call i64 @llvm.amdgcn.ballot.i64(i1 true)
; W64: lshr i64 %[[M]], 32
; W64: %[[ADD:bar.add.*]] = shl i32 %{{.*}}, 5
; W64: call i64 @llvm.cttz.i64(i64 %[[M]], i1 true)
; W32: %[[M:.*]] = call i32 @llvm.amdgcn.ballot.i32(i1 true)
; W32: call i32 @llvm.cttz.i32(i32 %[[M]], i1 true)
; CHECK: br i1 %bar.elected{{.*}}, label %[[CAS:bar.cas.*]], label %bar.arrived
; CHECK: [[CAS]]:
; CHECK: %[[OLD:bar.old.*]] = phi i32 [ 0, %produce ]
; CHECK: icmp uge i32 %{{.*}}, 128
; W64: add i32 %[[OLD]], %[[ADD]]
; W32: add i32 %[[OLD]], 32
; CHECK: cmpxchg ptr addrspace(3) getelementptr inbounds ([16 x i32], ptr addrspace(3) @__ferry_named_barriers, i32 0, i32 1), i32 %[[OLD]], i32 %{{.*}} syncscope("workgroup") monotonic monotonic
; CHECK-NOT: bar.wait
; CHECK-NOT: readfirstlane
; bar.sync 1, 128: the same arrival, then, unless it completed the
; generation, a uniform spin until the generation moves; then acquire.
; CHECK-LABEL: consume:
; CHECK: cmpxchg ptr addrspace(3) getelementptr inbounds ([16 x i32], ptr addrspace(3) @__ferry_named_barriers, i32 0, i32 1)
; CHECK: bar.arrived:
; CHECK: %bar.gen = call i32 @llvm.amdgcn.readfirstlane.i32(
; CHECK: bar.wait:
; CHECK-NEXT: %[[NOW:.*]] = load atomic i32, ptr addrspace(3) getelementptr inbounds ([16 x i32], ptr addrspace(3) @__ferry_named_barriers, i32 0, i32 1) syncscope("workgroup") monotonic
; CHECK-NEXT: %[[G:.*]] = lshr i32 %[[NOW]], 16
; CHECK-NEXT: %[[U:.*]] = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %[[G]])
; CHECK-NEXT: icmp eq i32 %[[U]], %bar.gen
; CHECK: call void @llvm.amdgcn.s.sleep(i32 1)
; CHECK: bar.done:
; CHECK-NEXT: fence syncscope("workgroup") acquire
; CHECK-NEXT: load i32, ptr addrspace(3) %slot
; CHECK-NOT: call {{.*}} @ferry.

; The code objects: the counters follow @buf (256 bytes) in LDS.
; ASM-LABEL: prodcons:
; ASM: ds_{{write|store}}_b128 v{{[0-9]+}}, v[{{[0-9]+:[0-9]+}}] offset:256
; ASM: ds_{{write|store}}_b128 v{{[0-9]+}}, v[{{[0-9]+:[0-9]+}}] offset:304
; ASM: s_barrier
; A64: s_ff1_i32_b64
; A32: s_{{ff1|ctz}}_i32_b32 s{{[0-9]+}}, exec_lo
; ASM: ds_{{cmpst|cmpstore}}_rtn_b32 {{.*}} offset:260
; ASM: ds_{{cmpst|cmpstore}}_rtn_b32 {{.*}} offset:260
; ASM: ds_{{read|load}}_b32 v{{[0-9]+}}, v{{[0-9]+}} offset:260
; ASM: v_readfirstlane_b32
; ASM: s_sleep 1
; ASM: .group_segment_fixed_size: 320
