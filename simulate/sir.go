package simulate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// SIRParam selects how an SIR simulator reads θ.
type SIRParam int

const (
	// LogRates reads θ = (log β, log γ), the scale on which the SBI paper
	// places its prior (see SIRPrior). Every finite θ is valid.
	LogRates SIRParam = iota
	// Rates reads θ = (β, γ) directly; both must be finite and ≥ 0.
	Rates
)

// SIROutput selects the summary an SIR simulator writes.
type SIROutput int

const (
	// Counts writes the number of infected I(t_i) at each record time, the
	// input of the infection-trajectory mechanism (SBI paper Prop. 4).
	Counts SIROutput = iota
	// Proportions writes I(t_i)/K, the infected proportion.
	Proportions
)

// SIRPaperTimes returns the SBI paper's L = 10 record times
// 0, 17, 34, …, 153 on [0, T] with T = 160 (paper-values.json, sir).
func SIRPaperTimes() []float64 {
	t := make([]float64, 10)
	for i := range t {
		t[i] = float64(17 * i)
	}
	return t
}

// SIRConfig describes a stochastic SIR epidemic in a closed population of
// K individuals started at (S, I, R) = (K − I0, I0, 0): every infected
// individual infects at rate βS/K and recovers at rate γ, so the process
// jumps (S, I) → (S − 1, I + 1) at rate βSI/K and (I) → (I − 1) at rate γI
// (SBI paper §4.1).
type SIRConfig struct {
	// K is the population size, K ≥ 1.
	K int64
	// I0 is the initial number of infected, 1 ≤ I0 ≤ K; zero means 1, the
	// paper's start.
	I0 int64
	// Times are the record times, sorted ascending, finite and ≥ 0; nil
	// means SIRPaperTimes().
	Times []float64
	// Param selects the parameterisation of θ (default LogRates).
	Param SIRParam
	// Output selects counts or proportions (default Counts).
	Output SIROutput
}

// sirCore is the validated configuration shared by the SIR simulators.
type sirCore struct {
	k, i0  int64
	times  []float64
	param  SIRParam
	output SIROutput
}

func newSIRCore(cfg SIRConfig) (sirCore, error) {
	c := sirCore{k: cfg.K, i0: cfg.I0, param: cfg.Param, output: cfg.Output}
	if cfg.K < 1 || cfg.K > maxSIRK {
		return c, fmt.Errorf("simulate: SIR population K must be in [1, 2^53], got %d: %w", cfg.K, ErrInvalid)
	}
	if c.i0 == 0 {
		c.i0 = 1
	}
	if c.i0 < 1 || c.i0 > cfg.K {
		return c, fmt.Errorf("simulate: SIR initial infected I0 must be in [1, K=%d], got %d: %w", cfg.K, cfg.I0, ErrInvalid)
	}
	if cfg.Param != LogRates && cfg.Param != Rates {
		return c, fmt.Errorf("simulate: SIR Param must be LogRates or Rates, got %d: %w", cfg.Param, ErrInvalid)
	}
	if cfg.Output != Counts && cfg.Output != Proportions {
		return c, fmt.Errorf("simulate: SIR Output must be Counts or Proportions, got %d: %w", cfg.Output, ErrInvalid)
	}
	if cfg.Times == nil {
		c.times = SIRPaperTimes()
	} else {
		if len(cfg.Times) == 0 || len(cfg.Times) > maxValues {
			return c, fmt.Errorf("simulate: SIR record times must hold 1 to %d values, got %d: %w", maxValues, len(cfg.Times), ErrInvalid)
		}
		for i, t := range cfg.Times {
			if math.IsNaN(t) || math.IsInf(t, 0) || t < 0 {
				return c, fmt.Errorf("simulate: SIR record time %d must be finite and >= 0, got %v: %w", i, t, ErrInvalid)
			}
			if i > 0 && t < cfg.Times[i-1] {
				return c, fmt.Errorf("simulate: SIR record times must be sorted ascending, got %v after %v at index %d: %w", t, cfg.Times[i-1], i, ErrInvalid)
			}
		}
		c.times = slices.Clone(cfg.Times)
	}
	return c, nil
}

// maxSIRK bounds the population so that counts are exact in float64.
const maxSIRK = 1 << 53

// rates converts θ to (β, γ) and validates it; it also refuses a simulator
// used without its constructor and a nil random source (unless the
// simulator is deterministic).
func (c *sirCore) rates(theta []float64) (beta, gamma float64, err error) {
	if c == nil || c.k < 1 || len(c.times) == 0 {
		return 0, 0, errUnbuilt("SIR simulator")
	}
	if len(theta) != 2 {
		return 0, 0, fmt.Errorf("%w: SIR θ must have length 2, got %d", ErrInvalidTheta, len(theta))
	}
	a, b := theta[0], theta[1]
	if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return 0, 0, fmt.Errorf("%w: SIR θ must be finite, got (%v, %v)", ErrInvalidTheta, a, b)
	}
	if c.param == LogRates {
		beta, gamma = math.Exp(a), math.Exp(b)
		if math.IsInf(beta, 0) || math.IsInf(gamma, 0) {
			return 0, 0, fmt.Errorf("%w: SIR log-rates (%v, %v) overflow", ErrInvalidTheta, a, b)
		}
		return beta, gamma, nil
	}
	if a < 0 || b < 0 {
		return 0, 0, fmt.Errorf("%w: SIR rates β, γ must be >= 0, got (%v, %v)", ErrInvalidTheta, a, b)
	}
	return a, b, nil
}

func (c *sirCore) checkDst(dst []float64) error {
	if len(dst) != len(c.times) {
		return fmt.Errorf("simulate: SIR dst must have length %d (number of record times), got %d: %w", len(c.times), len(dst), ErrInvalid)
	}
	return nil
}

func (c *sirCore) scale() float64 {
	if c.output == Proportions {
		return 1 / float64(c.k)
	}
	return 1
}

// K returns the population size.
func (c *sirCore) K() int64 { return c.k }

// Times returns a copy of the record times.
func (c *sirCore) Times() []float64 { return slices.Clone(c.times) }

// StatDim is the number of record times.
func (c *sirCore) StatDim() int { return len(c.times) }

// SIR simulates the stochastic SIR model exactly with Gillespie's direct
// method and records I at the configured times. It is safe for concurrent
// use and allocates nothing per simulation.
type SIR struct{ sirCore }

// NewSIR validates cfg and returns an exact SIR simulator.
func NewSIR(cfg SIRConfig) (*SIR, error) {
	c, err := newSIRCore(cfg)
	if err != nil {
		return nil, err
	}
	return &SIR{c}, nil
}

// Simulate draws one epidemic for θ and writes I(t_i) (or I(t_i)/K) into
// dst. I is right-continuous: I(t_i) counts every event at times ≤ t_i.
func (s *SIR) Simulate(r *rand.Rand, theta, dst []float64) error {
	_, err := s.SimulateEvents(r, theta, dst)
	return err
}

// SimulateEvents is Simulate that also reports the number of events
// (infections plus recoveries) drawn. The simulation stops at the last
// record time or as soon as I = 0, after which I stays 0.
func (s *SIR) SimulateEvents(r *rand.Rand, theta, dst []float64) (events int64, err error) {
	if err := checkRand(r); err != nil {
		return 0, err
	}
	beta, gamma, err := s.rates(theta)
	if err != nil {
		return 0, err
	}
	if err := s.checkDst(dst); err != nil {
		return 0, err
	}
	return gillespie(r, s.k, s.i0, beta, gamma, s.times, dst, s.scale()), nil
}

// gillespie is the direct method. Given state (S, I) the total rate is
// a0 = I(βS/K + γ); the waiting time is Exp(a0) and the event is an
// infection with probability βS/(βS + γK), which does not depend on I.
// The loop holds everything in registers and draws one exponential and
// one 53-bit uniform per event.
func gillespie(r *rand.Rand, k, i0 int64, beta, gamma float64, times, out []float64, scale float64) int64 {
	bk := beta / float64(k)
	s := k - i0
	i := i0
	t := 0.0
	j := 0
	n := len(times)
	var events int64
	next := times[0]
	for {
		if i == 0 {
			for ; j < n; j++ {
				out[j] = 0
			}
			return events
		}
		inf := bk * float64(s)
		a := inf + gamma
		if a <= 0 { // β = γ = 0 or S = 0 with γ = 0: frozen forever.
			v := float64(i) * scale
			for ; j < n; j++ {
				out[j] = v
			}
			return events
		}
		t += r.ExpFloat64() / (float64(i) * a)
		if t > next {
			v := float64(i) * scale
			for j < n && times[j] < t {
				out[j] = v
				j++
			}
			if j == n {
				return events
			}
			next = times[j]
		}
		// 53-bit uniform in [0,1) compared with the infection probability.
		if float64(r.Uint64()>>11)*(1.0/(1<<53))*a < inf {
			s--
			i++
		} else {
			i--
		}
		events++
	}
}

// R0 returns the basic reproduction number β/γ for θ in the given
// parameterisation; it is NaN for an invalid θ.
func R0(theta []float64, param SIRParam) float64 {
	if len(theta) != 2 {
		return math.NaN()
	}
	if param == LogRates {
		return math.Exp(theta[0] - theta[1])
	}
	if theta[0] < 0 || theta[1] < 0 {
		return math.NaN()
	}
	return theta[0] / theta[1]
}
