// Package flow provides conditional density estimators q(y | z) for
// simulation-based inference: neural spline flows (rational-quadratic
// spline coupling flows, Durkan et al. 2019) with exact gradients, trained
// by maximum likelihood or by any differentiable loss of their
// log-densities.
//
// # Model
//
// A Flow maps data y (Config.Dim coordinates), given a context z
// (Config.ContextDim coordinates, possibly none), to a standard normal base
// point u = T(y; z) through Config.Layers coupling layers, so that
//
//	log q(y | z) = log N(u; 0, I) + log|det ∂T/∂y|.
//
// Each coupling layer leaves half of the coordinates untouched and passes
// the other half through monotonic rational-quadratic splines (package
// flow/spline) whose knots are computed by a residual network (package
// flow/nn) from the untouched half and the context; an optional LU-linear
// layer then mixes all coordinates. Dimension 1 has no untouched half: its
// spline parameters depend on the context only (see Config).
//
// # Embedding networks
//
// A high-dimensional context (a time series, a set of records) can be
// summarised by an embedding network before it reaches the conditioners:
// Config.Embedding takes a flow/ad Net (a multilayer perceptron or a 1-D
// convolutional network), whose parameters join the flow's and are trained
// jointly with it by Fit (and by flow/sbi's training), the flow's context gradient being
// back-propagated through the network on a flow/ad tape.
// Flow.LogDensityGradContext returns that context gradient for callers that
// compute the context with a network of their own.
//
// DefaultConfig and DefaultTrainConfig are the library's defaults, picked
// as a setting with published results to compare against: the Python sbi
// package's neural spline flow and its training as the SBI paper's code
// ran them (tail bound 3, LU layers, context gating in every block).
//
// # Training and custom losses
//
// Flow.Fit trains by maximum likelihood with AdamW, a validation split,
// early stopping that restores the best parameters, and gradient clipping,
// evaluating each batch in parallel over a fixed partition so that results
// depend only on the seed. For other objectives (the atomic APT loss of
// SPPE, RQMC-integrated losses of SPLE) the loss is any function of a
// batch of log-densities log q(y_i | z_i): Flow.LogDensityGrad returns
// Σ_i (∂ℓ/∂log q_i)·∇_φ log q(y_i | z_i) given the partial derivatives
// ∂ℓ/∂log q_i, for callers that run their own optimiser (flow/sbi's
// losses run on the same computation, in parallel over the shards of each
// batch).
//
// # Engine
//
// Gradients are exact reverse-mode derivatives computed by fused,
// hand-written backward kernels for each layer type (linear, ReLU,
// residual block, sigmoid context gate, spline, LU layer), each checked
// against central finite differences in the tests; the embedding network
// runs on the general reverse-mode tape of package flow/ad, against which
// the fused dense and residual kernels are also checked. Workspaces are
// preallocated: a training step or a batch of log-densities allocates
// nothing once warm.
//
// The dense products run on register-blocked kernels (AVX-512 or AVX2
// assembly chosen at run time, portable Go elsewhere) in float64. With
// TrainConfig.Float32 the products of the conditioners' residual blocks
// and output layers in training steps use float32 operands and float32
// sums of at most 128 terms, added to float64 results, and the splines
// of those steps run in float32, eight at a time (AVX2 assembly, portable
// Go elsewhere): the gradient changes by a few 10⁻⁶ relative, and a step
// of the SBI paper's flow takes about 0.6 of the float64 CPU time on
// AVX2 machines (without AVX2, where the products and splines run in
// portable Go, it is slower than float64). Evaluation and sampling always
// run in float64.
//
// # Saving
//
// Flow.Save writes a versioned binary format with a checksum; Load
// validates everything it reads.
package flow
