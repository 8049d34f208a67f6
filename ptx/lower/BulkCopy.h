//===- BulkCopy.h - pieces the bulk-copy lowerings share --------*- C++ -*-===//
/// \file
/// The tensor bulk copies (LowerBulkTensor.cpp) signal an mbarrier the way
/// the other bulk copies of LowerMisc.cpp do; this is the one interface
/// between the two files.
//===----------------------------------------------------------------------===//
#pragma once

#include "ptx/lower/Context.h"

namespace ferry::ptx::lower {

/// Completes Bytes (i64) of transactions on the mbarrier at Bar (shared),
/// as the complete_tx of a finished copy does (LowerMisc.cpp).
void mbarrierCompleteTx(llvm::IRBuilder<> &B, llvm::Value *Bar, llvm::Value *Bytes);

/// cp.async.bulk.tensor (LowerBulkTensor.cpp).
llvm::Error lowerBulkTensor(FunctionLowering &FL, const Instruction &I);

} // namespace ferry::ptx::lower
