/// \file
/// The warp vectorizer: turns a kernel's thread function (SIMT IR after
/// LowerHost's cloning, `ferry.*` calls still in place) into a warp function
/// (KernelAbi.h WarpFn) that runs 32 CUDA threads as the lanes of vectors.
///
/// Method (whole-function vectorization with full linearization):
/// - Callees are inlined, then every value gets a shape: uniform (one scalar
///   for the warp), affine (a scalar base plus a constant offset per lane,
///   e.g. threadIdx.x or an address a[threadIdx.x]) or varying (a vector).
/// - Blocks run in a topological order with an execution mask each; a block
///   no lane reaches is skipped. Branches become edge masks, phis of
///   divergent joins become selects, loops run while any lane continues and
///   values leaving a divergent loop are captured per lane as it exits.
/// - Memory: affine addresses with unit stride become (masked) vector
///   loads/stores; affine addresses into shared memory with a small span
///   become one wide load and a shuffle; others gathers/scatters. Atomics,
///   printf, textures and other calls run lane by lane in lane order.
/// - Warp collectives are vector operations (shuffles, votes, ballots,
///   match, redux, activemask, elect); block barriers call the executor with
///   the warp's arrival.
///
/// Kernels using what is not handled (grid sync, indirect calls, recursion,
/// irreducible control flow, dynamic allocas) are refused; they keep the
/// fiber-per-thread path.
#pragma once

#include "llvm/IR/Function.h"
#include "llvm/Support/Error.h"

namespace ferry::host::detail {

/// Builds `<K>.ferry.warpN` next to K in K's module; K is left unchanged.
/// XWidth is the thread layout the code assumes: 32 for x-contiguous warps
/// (threadIdx.x = X0 + lane, threadIdx.y/z uniform; blockDim.x a multiple of
/// 32, or a one-dimensional block), or a power of two below 32 when
/// blockDim.x equals it (threadIdx.x = lane % XWidth, threadIdx.y = Y0 +
/// lane / XWidth). Sets Yields when the warp function calls the executor's
/// barrier or yield entries.
/// Lanes is 32 (a warp function, `.ferry.warpN`) or 128 or 256 (a group
/// function of four or eight consecutive warps, `.ferry.groupN`: run only
/// for whole groups, its Mask argument unused; built only for kernels with
/// loops).
llvm::Expected<llvm::Function *> vectorizeKernel(llvm::Function &K, unsigned XWidth, unsigned Lanes, bool &Yields);

/// Adds software prefetches to the optimised warp and group functions of M:
/// a vector load in a loop whose address advances by a large stride each
/// iteration (a grid-stride loop: the hardware prefetchers do not follow
/// strides beyond a page) prefetches the lines a few iterations ahead.
void addStridePrefetches(llvm::Module &M);

} // namespace ferry::host::detail
