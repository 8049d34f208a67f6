; ferry.grid.workspace is the v5 hidden multigrid-sync argument (+88), read
; as a full 64-bit value; isspacep asks the shared/private apertures.
; params: out @0 (i64*), p @8 (generic ptr): 16 bytes.
define void @workspace(ptr noalias dereferenceable(16) %params) {
entry:
  %pp = getelementptr i8, ptr %params, i64 8
  %out = load ptr, ptr %params, align 8
  %p = load ptr, ptr %pp, align 8
  %ws = call i64 @ferry.grid.workspace()
  store i64 %ws, ptr %out, align 8
  %sh = call i1 @ferry.isspacep(i32 3, ptr %p)
  %gl = call i1 @ferry.isspacep(i32 1, ptr %p)
  %both = and i1 %sh, %gl
  %b = zext i1 %both to i64
  %o1 = getelementptr i64, ptr %out, i64 1
  store i64 %b, ptr %o1, align 8
  ret void
}
declare i64 @ferry.grid.workspace()
declare i1 @ferry.isspacep(i32, ptr)
!ferry.kernels = !{!0}
!0 = !{ptr @workspace}

; CHECK-LABEL: define protected amdgpu_kernel void @workspace(
; CHECK: %[[IA:.*]] = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
; CHECK: %[[WP:.*]] = getelementptr inbounds i8, ptr addrspace(4) %[[IA]], i64 88
; CHECK: %[[WS:.*]] = load i64, ptr addrspace(4) %[[WP]], align 8, !invariant.load
; CHECK: store i64 %[[WS]]
; CHECK: call i1 @llvm.amdgcn.is.shared(ptr
; CHECK: call i1 @llvm.amdgcn.is.private(ptr
; CHECK-NOT: call {{.*}} @ferry.
