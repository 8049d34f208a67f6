; Device printf through the vprintf ABI: the argument buffer is a struct
; whose fields sit at their natural alignment. Thread 0 prints a line with
; every common conversion; every thread prints "t<tid>".
declare i32 @ferry.tid.x()
declare i32 @ferry.printf(ptr, ptr)

@fmt = private addrspace(1) constant [52 x i8] c"%d %u %ld %f %s %x %c|%5.2f|%-4d|%%|%lld|%08.3e|%X\0A\00", align 1
@str = private addrspace(4) constant [4 x i8] c"str\00", align 1
@fmt2 = private addrspace(1) constant [5 x i8] c"t%d\0A\00", align 1

define void @printf_k(ptr noalias %params) {
entry:
  %args = alloca { i32, i32, i64, double, ptr, i32, i32, double, i32, i64, double, i32 }, align 8
  %args2 = alloca { i32 }, align 4
  %tid = call i32 @ferry.tid.x()
  %is0 = icmp eq i32 %tid, 0
  br i1 %is0, label %big, label %each
big:
  %a0 = getelementptr inbounds { i32, i32, i64, double, ptr, i32, i32, double, i32, i64, double, i32 }, ptr %args, i32 0, i32 0
  store i32 -7, ptr %a0, align 4
  %a1 = getelementptr inbounds { i32, i32, i64, double, ptr, i32, i32, double, i32, i64, double, i32 }, ptr %args, i32 0, i32 1
  store i32 -294967296, ptr %a1, align 4
  %a2 = getelementptr inbounds { i32, i32, i64, double, ptr, i32, i32, double, i32, i64, double, i32 }, ptr %args, i32 0, i32 2
  store i64 -123456789012, ptr %a2, align 8
  %a3 = getelementptr inbounds { i32, i32, i64, double, ptr, i32, i32, double, i32, i64, double, i32 }, ptr %args, i32 0, i32 3
  store double 3.25, ptr %a3, align 8
  %a4 = getelementptr inbounds { i32, i32, i64, double, ptr, i32, i32, double, i32, i64, double, i32 }, ptr %args, i32 0, i32 4
  store ptr addrspacecast (ptr addrspace(4) @str to ptr), ptr %a4, align 8
  %a5 = getelementptr inbounds { i32, i32, i64, double, ptr, i32, i32, double, i32, i64, double, i32 }, ptr %args, i32 0, i32 5
  store i32 48879, ptr %a5, align 4
  %a6 = getelementptr inbounds { i32, i32, i64, double, ptr, i32, i32, double, i32, i64, double, i32 }, ptr %args, i32 0, i32 6
  store i32 90, ptr %a6, align 4
  %a7 = getelementptr inbounds { i32, i32, i64, double, ptr, i32, i32, double, i32, i64, double, i32 }, ptr %args, i32 0, i32 7
  store double 2.5, ptr %a7, align 8
  %a8 = getelementptr inbounds { i32, i32, i64, double, ptr, i32, i32, double, i32, i64, double, i32 }, ptr %args, i32 0, i32 8
  store i32 42, ptr %a8, align 4
  %a9 = getelementptr inbounds { i32, i32, i64, double, ptr, i32, i32, double, i32, i64, double, i32 }, ptr %args, i32 0, i32 9
  store i64 9000000000, ptr %a9, align 8
  %a10 = getelementptr inbounds { i32, i32, i64, double, ptr, i32, i32, double, i32, i64, double, i32 }, ptr %args, i32 0, i32 10
  store double 1234.5, ptr %a10, align 8
  %a11 = getelementptr inbounds { i32, i32, i64, double, ptr, i32, i32, double, i32, i64, double, i32 }, ptr %args, i32 0, i32 11
  store i32 255, ptr %a11, align 4
  %n = call i32 @ferry.printf(ptr addrspacecast (ptr addrspace(1) @fmt to ptr), ptr %args)
  %res = load ptr addrspace(1), ptr %params, align 8
  store i32 %n, ptr addrspace(1) %res, align 4
  br label %each
each:
  store i32 %tid, ptr %args2, align 4
  %m = call i32 @ferry.printf(ptr addrspacecast (ptr addrspace(1) @fmt2 to ptr), ptr %args2)
  ret void
}

!ferry.kernels = !{!0}
!0 = !{ptr @printf_k}
