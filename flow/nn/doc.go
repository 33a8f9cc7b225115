// Package nn provides fused, layer-level forward and backward kernels for
// small fully connected networks over batched float64 matrices, the
// reverse-mode differentiation engine of the flow package.
//
// Rather than recording a tape of scalar operations, every layer type has a
// hand-written forward kernel that stores what its backward kernel needs in
// a caller-owned workspace, and a backward kernel that accumulates exact
// parameter gradients and returns input gradients. Parameters live in one
// flat []float64 owned by the caller; a layer only records its offset into
// it, so the same layer can run concurrently on several workspaces with
// separate gradient buffers (data parallelism without locks).
//
// Matrices are row-major with one row per sample: a batch of n inputs of
// width k is a []float64 of length at least n·k. Backward kernels
// accumulate (+=) into gradient buffers and overwrite input-gradient
// outputs. After a workspace has been created, no kernel allocates.
//
// Dense layers run as blocked matrix products (forward X·W, weight
// gradient Xᵀ·dY, input gradient dY·Wᵀ) on an assembly micro-kernel
// chosen at run time (AVX-512 or AVX2+FMA) or, with the purego build tag
// and on other architectures, on a Go kernel; ReLU, its masks and the
// sigmoid gates run over whole batches with AVX-512 or AVX2 when present.
// All arithmetic is float64 unless ResNetWork.SetFloat32 asks for float32
// products; either way every sum over a batch or a layer is taken in a
// fixed order, so results depend on the inputs only, not on the number of
// goroutines.
//
// Every kernel is checked against central finite differences in the tests.
package nn
