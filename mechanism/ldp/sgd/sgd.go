// Package sgd provides LDP-SGD, the locally private stochastic gradient
// descent that the LDP paper (Kulkarni, Jälkö, Kaski and Honkela §4.2)
// uses as its private baseline for linear and logistic regression,
// adapted from Wang et al. (2019b).
//
// # Protocol
//
// The N users are split at random into groups of G. The aggregator
// trains for T = ⌊N/G⌋ steps: at step t it sends the current model θ_t to
// the users of group t; each of them computes the gradient of its own
// loss at θ_t, clips it to ℓ2 norm C (1 in the paper) and releases it
// with Gaussian noise calibrated to (ε, δ) for ℓ2 sensitivity 2C (the
// local mechanism ldp.NormClippedGaussian of the parent package); the
// aggregator averages the G noisy gradients and takes a step θ_{t+1} = θ_t − η_t ĝ_t. Every user releases exactly once, so
// the protocol is (ε, δ)-LDP for every user whatever T is, and the
// models are post-processing of the releases. Users not in any full
// group (N mod G of them) release nothing.
//
// # Placement
//
// LDP-SGD is a training protocol that releases each user's gradient once:
// it privatizes confidential records and never samples a posterior, so it
// lives with the local mechanisms (mechanism/ldp) rather than with the
// noise-aware models of mcmc/ldp, whose private baseline it is.
//
// # Privacy
//
// Each release goes through mechanism.Gaussian's secure lattice path,
// drawing its noise from the operating system's generator. Config.Seed
// selects only the public randomness (the grouping); Config.Reproducible is
// the explicit opt-out that draws the noise from the seeded generator too
// (through mechanism.Reproducible, the library's one reproducible path),
// for reproducible simulation studies and tests on public data — never
// for real users' data.
package sgd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/mechanism/ldp"
)

// ErrInvalid is wrapped by every error reporting an invalid argument.
var ErrInvalid = errors.New("sgd: invalid argument")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("sgd: %s: %w", fmt.Sprintf(format, args...), ErrInvalid)
}

// Loss is a per-user loss ℓ(θ; x, y).
type Loss int

// The losses.
const (
	// Squared is ½(xᵀθ − y)², linear regression.
	Squared Loss = iota + 1
	// Logistic is log(1 + exp(xᵀθ)) − y·xᵀθ for y ∈ {0, 1}, logistic
	// regression.
	Logistic
)

// String returns "squared" or "logistic".
func (l Loss) String() string {
	switch l {
	case Squared:
		return "squared"
	case Logistic:
		return "logistic"
	}
	return fmt.Sprintf("Loss(%d)", int(l))
}

// grad writes ∇ℓ(θ; x, y) = r(θ) x into dst.
func (l Loss) grad(theta, x []float64, y float64, dst []float64) {
	u := 0.0
	for j, v := range x {
		u += theta[j] * v
	}
	var r float64
	if l == Squared {
		r = u - y
	} else {
		r = 1/(1+math.Exp(-u)) - y
	}
	for j, v := range x {
		dst[j] = r * v
	}
}

// Config configures Train. Epsilon, Delta and Loss have no defaults.
type Config struct {
	// Loss is Squared or Logistic.
	Loss Loss
	// Epsilon and Delta are each user's budget (ε > 0, δ ∈ (0, 1)).
	Epsilon, Delta float64
	// Clip is the gradient clipping norm C; 0 means 1 (the paper's).
	Clip float64
	// GroupSize is G, the number of users per step; 0 means
	// ⌈d·ln(d+1)/ε²⌉ (the paper's G = Ω(d log d/ε²)), at least 1 and at
	// most N.
	GroupSize int
	// LearningRate is η0 in the step size η_t = η0/√(t+1); 0 means 1.
	LearningRate float64
	// Radius, if > 0, projects every iterate onto the ℓ2 ball of that
	// radius (a public constraint; 0 means none).
	Radius float64
	// Init is the initial model (length d); nil means zeros.
	Init []float64
	// Seed selects the random grouping of the users (public randomness).
	Seed uint64
	// Reproducible draws the users' noise from the generator seeded by
	// Seed instead of the operating system's: a reproducible simulation
	// of the protocol, for studies and tests on public data only.
	Reproducible bool
	// Progress, if non-nil, receives events with Stage "step" about every
	// percent of the steps.
	Progress privinfer.ProgressFunc
}

// Validate reports whether c is usable, with an error naming the field.
func (c Config) Validate() error {
	if c.Loss != Squared && c.Loss != Logistic {
		return invalidf("Config.Loss must be Squared or Logistic, got %v", c.Loss)
	}
	if !(c.Epsilon > 0) || math.IsInf(c.Epsilon, 1) {
		return invalidf("Config.Epsilon must be finite and > 0, got %v", c.Epsilon)
	}
	if !(c.Delta > 0 && c.Delta < 1) {
		return invalidf("Config.Delta must be in (0, 1), got %v", c.Delta)
	}
	if c.Clip < 0 || math.IsNaN(c.Clip) || math.IsInf(c.Clip, 1) {
		return invalidf("Config.Clip must be finite and >= 0, got %v", c.Clip)
	}
	if c.GroupSize < 0 {
		return invalidf("Config.GroupSize must be >= 0, got %d", c.GroupSize)
	}
	if c.LearningRate < 0 || math.IsNaN(c.LearningRate) || math.IsInf(c.LearningRate, 1) {
		return invalidf("Config.LearningRate must be finite and >= 0, got %v", c.LearningRate)
	}
	if c.Radius < 0 || math.IsNaN(c.Radius) || math.IsInf(c.Radius, 1) {
		return invalidf("Config.Radius must be finite and >= 0, got %v", c.Radius)
	}
	for j, v := range c.Init {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return invalidf("Config.Init[%d] must be finite, got %v", j, v)
		}
	}
	return nil
}

// Result is the outcome of Train.
type Result struct {
	// Theta is the final model θ_T.
	Theta []float64
	// Average is the mean of the iterates θ_1, …, θ_T (Polyak–Ruppert).
	Average []float64
	// Steps is T and GroupSize is G; Steps·GroupSize users released.
	Steps, GroupSize int
	// NoiseSigma is the standard deviation of each user's noise per
	// coordinate.
	NoiseSigma float64
	// Budget is each user's (ε, δ).
	Budget mechanism.Budget
}

// DefaultGroupSize returns ⌈d·ln(d+1)/ε²⌉ clamped to [1, n].
func DefaultGroupSize(d, n int, eps float64) int {
	g := math.Ceil(float64(d) * math.Log(float64(d)+1) / (eps * eps))
	if !(g >= 1) {
		g = 1
	}
	return int(math.Min(g, float64(max(n, 1))))
}

// Train runs the LDP-SGD protocol on the users' data x (row-major N×d)
// and y (N outcomes: real for Squared, 0 or 1 for Logistic) and returns
// the trained model. Features should be scaled (the paper centres them
// and bounds ‖x‖ ≤ 1); the clipping bounds every user's influence
// whatever the scaling. It allocates O(N + d) up front and nothing per
// step.
func Train(ctx context.Context, x, y []float64, d int, cfg Config) (*Result, error) {
	return train(ctx, x, y, d, cfg, nil)
}

// train is Train with an optional hook observing each user's index as it
// releases (for tests).
func train(ctx context.Context, x, y []float64, d int, cfg Config, hook func(user int)) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if d < 1 {
		return nil, invalidf("dimension d must be >= 1, got %d", d)
	}
	n := len(y)
	if n == 0 || len(x) != n*d {
		return nil, invalidf("x must hold N·d = %d·%d values for N = len(y) ≥ 1, got %d", n, d, len(x))
	}
	if cfg.Init != nil && len(cfg.Init) != d {
		return nil, invalidf("Config.Init must have length %d, got %d", d, len(cfg.Init))
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, invalidf("x[%d] must be finite, got %v", i, v)
		}
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, invalidf("y[%d] must be finite, got %v", i, v)
		}
		if cfg.Loss == Logistic && v != 0 && v != 1 {
			return nil, invalidf("y[%d] must be 0 or 1 for the logistic loss, got %v", i, v)
		}
	}
	clip := cfg.Clip
	if clip == 0 {
		clip = 1
	}
	eta0 := cfg.LearningRate
	if eta0 == 0 {
		eta0 = 1
	}
	g := cfg.GroupSize
	if g == 0 {
		g = DefaultGroupSize(d, n, cfg.Epsilon)
	}
	if g > n {
		return nil, invalidf("Config.GroupSize %d exceeds the number of users %d", g, n)
	}
	nc, err := ldp.NewNormClippedGaussian(ldp.NormClippedGaussianConfig{Epsilon: cfg.Epsilon, Delta: cfg.Delta, Clip: clip, Dim: d})
	if err != nil {
		return nil, fmt.Errorf("sgd: %w: %w", ErrInvalid, err)
	}
	var rz mechanism.Mechanism = nc
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5d6))
	perm := rng.Perm(n)
	var noise *rand.Rand
	if cfg.Reproducible {
		noise = rand.New(rand.NewPCG(cfg.Seed, 0x7a1))
		rz = mechanism.Reproducible(nc)
	}
	theta := make([]float64, d)
	copy(theta, cfg.Init)
	avg := make([]float64, d)
	gsum := make([]float64, d)
	gi := make([]float64, d)
	steps := n / g
	start := time.Now()
	every := max(1, steps/100)
	for t := range steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		clear(gsum)
		for _, u := range perm[t*g : (t+1)*g] {
			cfg.Loss.grad(theta, x[u*d:(u+1)*d], y[u], gi)
			if hook != nil {
				hook(u)
			}
			if err := rz.Release(noise, gi, gi); err != nil {
				return nil, fmt.Errorf("sgd: %w: %w", ErrInvalid, err)
			}
			for j, v := range gi {
				gsum[j] += v
			}
		}
		eta := eta0 / math.Sqrt(float64(t+1))
		for j := range theta {
			theta[j] -= eta * gsum[j] / float64(g)
		}
		if cfg.Radius > 0 {
			if nr := norm(theta); nr > cfg.Radius {
				for j := range theta {
					theta[j] *= cfg.Radius / nr
				}
			}
		}
		for j, v := range theta {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, invalidf("the iterates overflow at step %d: Config.LearningRate %v is too large", t+1, eta0)
			}
			avg[j] += (v - avg[j]) / float64(t+1)
		}
		if (t+1)%every == 0 || t+1 == steps {
			cfg.Progress.Report(privinfer.Progress{Stage: "step", Step: t + 1, Total: steps, Elapsed: time.Since(start)})
		}
	}
	if steps == 0 {
		copy(avg, theta)
	}
	return &Result{Theta: theta, Average: avg, Steps: steps, GroupSize: g, NoiseSigma: nc.NoiseSigma(), Budget: nc.Budget()}, nil
}

func norm(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s = math.Hypot(s, x)
	}
	return s
}
