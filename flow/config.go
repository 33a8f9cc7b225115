package flow

import (
	"fmt"

	"github.com/privinfer/privinfer/flow/ad"
	"github.com/privinfer/privinfer/flow/spline"
)

// Config describes the architecture of a conditional rational-quadratic
// spline coupling flow q(y | z) with y of dimension Dim and context z of
// dimension ContextDim (0 for an unconditional density).
//
// Each of the Layers layers is a coupling transform followed, when LU is
// true, by an invertible linear map W = LU (unit-lower-triangular L,
// upper-triangular U with positive diagonal) plus a bias. Couplings
// alternate between transforming the even-indexed and the odd-indexed
// coordinates; the transformed coordinates go through a rational-quadratic
// spline with Bins bins on [−TailBound, TailBound] and linear tails whose
// 3·Bins−1 parameters per coordinate come from a residual network
// (Hidden units, Blocks residual blocks, ReLU) fed with the untouched
// coordinates and the context (the width and height logits are divided by
// √Hidden, as in the reference implementation, so that initial splines are
// close to uniform bins). With ContextGating the context also gates every
// residual block (a GLU).
//
// Dimension 1 uses a documented fallback: there is no untouched half, so
// each layer's spline parameters depend on the context only (a learned
// constant spline when ContextDim is 0), and the LU layer reduces to an
// affine map with positive slope.
//
// StandardizeInputs and StandardizeContext z-score y and z with the mean
// and standard deviation of the first training set (see
// Flow.SetStandardization); the flow's density accounts for the Jacobian of
// the standardisation of y.
//
// With ContextAffine an elementwise affine map of the (standardised) data
// comes before the first coupling: y′ = (y − μ(z)) ⊙ e^(−σ(z)), whose shift
// μ and log-scale σ (Dim values each, σ bounded to ±AffineBound) are the
// outputs of a residual network of the context (Hidden units, Blocks
// blocks, gated with ContextGating) whose output layer starts at zero, so
// the flow starts as without it. The splines then model a density whose
// location and scale follow the context, and a base draw beyond the
// splines' interval lands a few learned scales from μ(z) rather than a few
// standard deviations of the training data: a posterior much narrower than
// the data it was trained on loses its spurious far tails.
//
// With an Embedding network the (standardised) context passes through it
// before it reaches the conditioners: they see Embedding.Out features
// instead of the ContextDim raw values, and the network's parameters are
// part of the flow's (after the conditioners'), trained jointly with it.
// This summarises a high-dimensional context, such as a time series, into
// a few learned features.
type Config struct {
	Dim           int     // dimension of y, ≥ 1
	ContextDim    int     // dimension of the context z, ≥ 0
	Layers        int     // number of coupling layers, ≥ 1
	Bins          int     // spline bins, ≥ 2
	TailBound     float64 // splines act on [−TailBound, TailBound], in [2⁻²⁰, 2²⁰]
	Hidden        int     // units of the conditioner's residual blocks, ≥ 1
	Blocks        int     // residual blocks per conditioner, ≥ 0
	LU            bool    // LU-linear layer after every coupling
	ContextGating bool    // gate every residual block with the context

	ContextAffine bool // context-dependent affine map of the data before the first coupling

	StandardizeInputs  bool // z-score y using the training data
	StandardizeContext bool // z-score z using the training data

	MinBinWidth   float64 // minimum bin width as a fraction of 2·TailBound
	MinBinHeight  float64 // minimum bin height as a fraction of 2·TailBound
	MinDerivative float64 // minimum derivative at interior knots

	// Embedding, if not nil, maps the context to the conditioners' input
	// (In = ContextDim ≥ 1). The flow keeps its own copy.
	Embedding *ad.Net
}

// contextWidth returns the width of the conditioners' context: the
// embedding's output, or ContextDim without an embedding.
func (c Config) contextWidth() int {
	if c.Embedding != nil {
		return c.Embedding.Out
	}
	return c.ContextDim
}

// cloneNet returns a deep copy of n (nil for nil).
func cloneNet(n *ad.Net) *ad.Net {
	if n == nil {
		return nil
	}
	m := *n
	m.Conv = append([]ad.ConvLayer(nil), n.Conv...)
	m.Hidden = append([]int(nil), n.Hidden...)
	return &m
}

// DefaultConfig returns the library's default flow for data of dimension
// dim given a context of dimension contextDim: 8 coupling layers, 10
// bins, tail bound 3, two residual blocks of 50 units, LU layers, context
// gating in every block, z-scoring of y and z, and minimum bin width,
// height and derivative 10⁻³.
//
// The rule that picks it: the default is a configuration with published
// results to compare against, the neural spline flow of the Python sbi
// package (the reference implementation of neural SBI) as the SBI paper's
// code ran it; a change of these values must be measured against it
// (flow/BENCHMARKS.md, examples/reproduce/sbibm/RESULTS.md). flow/sbi's
// Config.DefaultFlow starts from it and departs where measured.
func DefaultConfig(dim, contextDim int) Config {
	return Config{
		Dim: dim, ContextDim: contextDim,
		Layers: 8, Bins: 10, TailBound: 3, Hidden: 50, Blocks: 2,
		LU: true, ContextGating: true,
		StandardizeInputs: true, StandardizeContext: true,
		MinBinWidth:   spline.DefaultMinWidth,
		MinBinHeight:  spline.DefaultMinHeight,
		MinDerivative: spline.DefaultMinDerivative,
	}
}

// AffineBound bounds the log-scale of the ContextAffine layer: σ = B·tanh(a/B)
// for the network's output a, so the scale stays within e^(±B).
const AffineBound = 10

// affineGain multiplies the ContextAffine network's outputs (μ and a): an
// optimiser step then moves them ten times as far as the splines'
// parameters move the splines. With gain 1 the splines, which learn
// faster, take up most of a narrow posterior's scale and the layer stays
// close to the identity (log-scale −0.4 where −3 was needed on a
// 20-times-narrower Gaussian); with 10 it takes up the scale (−2.96) and
// no draw lands beyond 6 sd, at the same validation loss.
const affineGain = 10

// Size limits that keep a configuration (and a file read by Load) within
// reasonable memory.
const (
	maxDim    = 1 << 12
	maxCtx    = 1 << 16
	maxHidden = 1 << 12
	maxLayers = 1 << 10
	maxBins   = 1 << 10
	maxBlocks = 1 << 6
)

// Validate reports whether c describes a valid flow.
func (c Config) Validate() error {
	bad := func(field, format string, a ...any) error {
		return fmt.Errorf("%w: Config.%s: "+format, append([]any{ErrInvalid, field}, a...)...)
	}
	switch {
	case c.Dim < 1 || c.Dim > maxDim:
		return bad("Dim", "must be in [1, %d], got %d", maxDim, c.Dim)
	case c.ContextDim < 0 || c.ContextDim > maxCtx:
		return bad("ContextDim", "must be in [0, %d], got %d", maxCtx, c.ContextDim)
	case c.Layers < 1 || c.Layers > maxLayers:
		return bad("Layers", "must be in [1, %d], got %d", maxLayers, c.Layers)
	case c.Bins < 2 || c.Bins > maxBins:
		return bad("Bins", "must be in [2, %d], got %d", maxBins, c.Bins)
	case !(c.TailBound >= minTailBound && c.TailBound <= maxTailBound):
		return bad("TailBound", "must be in [%v, %v], got %v", minTailBound, maxTailBound, c.TailBound)
	case c.Hidden < 1 || c.Hidden > maxHidden:
		return bad("Hidden", "must be in [1, %d], got %d", maxHidden, c.Hidden)
	case c.Blocks < 0 || c.Blocks > maxBlocks:
		return bad("Blocks", "must be in [0, %d], got %d", maxBlocks, c.Blocks)
	}
	if _, err := spline.New(spline.Config{Bins: c.Bins, TailBound: c.TailBound, MinWidth: c.MinBinWidth, MinHeight: c.MinBinHeight, MinDerivative: c.MinDerivative}); err != nil {
		return fmt.Errorf("%w: Config: %w", ErrInvalid, err)
	}
	if e := c.Embedding; e != nil {
		if err := e.Validate(); err != nil {
			return fmt.Errorf("%w: Config.Embedding: %w", ErrInvalid, err)
		}
		switch {
		case c.ContextDim < 1:
			return bad("Embedding", "needs ContextDim >= 1")
		case e.In != c.ContextDim:
			return bad("Embedding.In", "must equal ContextDim = %d, got %d", c.ContextDim, e.In)
		case e.Out > maxCtx:
			return bad("Embedding.Out", "must be at most %d, got %d", maxCtx, e.Out)
		}
	}
	return nil
}
