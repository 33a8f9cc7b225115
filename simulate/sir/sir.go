package sir

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/privinfer/privinfer/internal/variate"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/internal/modelutil"
)

// Param selects how an SIR simulator reads θ.
type Param int

const (
	// LogRates reads θ = (log β, log γ), the scale on which the SBI paper
	// places its prior (see Prior). Every finite θ is valid.
	LogRates Param = iota
	// Rates reads θ = (β, γ) directly; both must be finite and ≥ 0.
	Rates
)

// Output selects the summary an SIR simulator writes.
type Output int

const (
	// Counts writes the number of infected I(t_i) at each record time, the
	// input of the infection-trajectory mechanism (SBI paper Prop. 4).
	Counts Output = iota
	// Proportions writes I(t_i)/K, the infected proportion.
	Proportions
)

// PaperTimes returns the SBI paper's L = 10 record times
// 0, 17, 34, …, 153 on [0, T] with T = 160 (paper-values.json, sir).
func PaperTimes() []float64 {
	t := make([]float64, 10)
	for i := range t {
		t[i] = float64(17 * i)
	}
	return t
}

// Config describes a stochastic SIR epidemic in a closed population of
// K individuals started at (S, I, R) = (K − I0, I0, 0): every infected
// individual infects at rate βS/K and recovers at rate γ, so the process
// jumps (S, I) → (S − 1, I + 1) at rate βSI/K and (I) → (I − 1) at rate γI
// (SBI paper §4.1).
type Config struct {
	// K is the population size, K ≥ 1.
	K int64
	// I0 is the initial number of infected, 1 ≤ I0 ≤ K; zero means 1, the
	// paper's start.
	I0 int64
	// Times are the record times, sorted ascending, finite and ≥ 0; nil
	// means PaperTimes().
	Times []float64
	// Param selects the parameterisation of θ (default LogRates).
	Param Param
	// Output selects counts or proportions (default Counts).
	Output Output
}

// core is the validated configuration shared by the SIR simulators.
type core struct {
	k, i0  int64
	times  []float64
	param  Param
	output Output
}

func newCore(cfg Config) (core, error) {
	c := core{k: cfg.K, i0: cfg.I0, param: cfg.Param, output: cfg.Output}
	if cfg.K < 1 || cfg.K > maxK {
		return c, fmt.Errorf("%w: SIR population K must be in [1, 2^53], got %d", simulate.ErrInvalid, cfg.K)
	}
	if c.i0 == 0 {
		c.i0 = 1
	}
	if c.i0 < 1 || c.i0 > cfg.K {
		return c, fmt.Errorf("%w: SIR initial infected I0 must be in [1, K=%d], got %d", simulate.ErrInvalid, cfg.K, cfg.I0)
	}
	if cfg.Param != LogRates && cfg.Param != Rates {
		return c, fmt.Errorf("%w: SIR Param must be LogRates or Rates, got %d", simulate.ErrInvalid, cfg.Param)
	}
	if cfg.Output != Counts && cfg.Output != Proportions {
		return c, fmt.Errorf("%w: SIR Output must be Counts or Proportions, got %d", simulate.ErrInvalid, cfg.Output)
	}
	if cfg.Times == nil {
		c.times = PaperTimes()
	} else {
		if len(cfg.Times) == 0 || len(cfg.Times) > modelutil.MaxValues {
			return c, fmt.Errorf("%w: SIR record times must hold 1 to %d values, got %d", simulate.ErrInvalid, modelutil.MaxValues, len(cfg.Times))
		}
		for i, t := range cfg.Times {
			if math.IsNaN(t) || math.IsInf(t, 0) || t < 0 {
				return c, fmt.Errorf("%w: SIR record time %d must be finite and >= 0, got %v", simulate.ErrInvalid, i, t)
			}
			if i > 0 && t < cfg.Times[i-1] {
				return c, fmt.Errorf("%w: SIR record times must be sorted ascending, got %v after %v at index %d", simulate.ErrInvalid, t, cfg.Times[i-1], i)
			}
		}
		c.times = slices.Clone(cfg.Times)
	}
	return c, nil
}

// maxK bounds the population so that counts are exact in float64.
const maxK = 1 << 53

// rates converts θ to (β, γ) and validates it; it also refuses a simulator
// used without its constructor.
func (c *core) rates(theta []float64) (beta, gamma float64, err error) {
	if c == nil || c.k < 1 || len(c.times) == 0 {
		return 0, 0, modelutil.ErrUnbuilt("SIR simulator")
	}
	if len(theta) != 2 {
		return 0, 0, fmt.Errorf("%w: SIR θ must have length 2, got %d", simulate.ErrInvalidTheta, len(theta))
	}
	a, b := theta[0], theta[1]
	if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return 0, 0, fmt.Errorf("%w: SIR θ must be finite, got (%v, %v)", simulate.ErrInvalidTheta, a, b)
	}
	if c.param == LogRates {
		beta, gamma = math.Exp(a), math.Exp(b)
		if math.IsInf(beta, 0) || math.IsInf(gamma, 0) {
			return 0, 0, fmt.Errorf("%w: SIR log-rates (%v, %v) overflow", simulate.ErrInvalidTheta, a, b)
		}
		return beta, gamma, nil
	}
	if a < 0 || b < 0 {
		return 0, 0, fmt.Errorf("%w: SIR rates β, γ must be >= 0, got (%v, %v)", simulate.ErrInvalidTheta, a, b)
	}
	return a, b, nil
}

func (c *core) checkDst(dst []float64) error {
	if len(dst) != len(c.times) {
		return fmt.Errorf("%w: SIR dst must have length %d (number of record times), got %d", simulate.ErrInvalid, len(c.times), len(dst))
	}
	return nil
}

func (c *core) scale() float64 {
	if c.output == Proportions {
		return 1 / float64(c.k)
	}
	return 1
}

// K returns the population size.
func (c *core) K() int64 { return c.k }

// Times returns a copy of the record times.
func (c *core) Times() []float64 { return slices.Clone(c.times) }

// StatDim is the number of record times.
func (c *core) StatDim() int { return len(c.times) }

// Exact simulates the stochastic SIR model exactly with Gillespie's direct
// method and records I at the configured times. It is safe for concurrent
// use and allocates nothing per simulation.
type Exact struct{ core }

// New validates cfg and returns an exact SIR simulator.
func New(cfg Config) (*Exact, error) {
	c, err := newCore(cfg)
	if err != nil {
		return nil, err
	}
	return &Exact{c}, nil
}

// Simulate draws one epidemic for θ and writes I(t_i) (or I(t_i)/K) into
// dst. I is right-continuous: I(t_i) counts every event at times ≤ t_i.
func (s *Exact) Simulate(r *rand.Rand, theta, dst []float64) error {
	_, err := s.SimulateEvents(r, theta, dst)
	return err
}

// SimulateEvents is Simulate that also reports the number of events
// (infections plus recoveries) drawn. The simulation stops at the last
// record time or as soon as I = 0, after which I stays 0.
func (s *Exact) SimulateEvents(r *rand.Rand, theta, dst []float64) (events int64, err error) {
	if s == nil {
		return 0, modelutil.ErrUnbuilt("sir.Exact")
	}
	if err := modelutil.CheckRand(r); err != nil {
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
// one 53-bit uniform per event from a variate.Stream seeded from r (an
// inlined xoshiro256++ with its own ziggurat, 1.2–1.4 times the event
// rate of drawing through r).
func gillespie(r *rand.Rand, k, i0 int64, beta, gamma float64, times, out []float64, scale float64) int64 {
	st := variate.NewStream(r)
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
		// st.Exp(), its common case inlined.
		u := st.Uint64()
		e, ok := variate.ExpWord(u)
		if !ok {
			e = st.ExpFinish(u)
		}
		t += e / (float64(i) * a)
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
		if st.Float64()*a < inf {
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
func R0(theta []float64, param Param) float64 {
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
