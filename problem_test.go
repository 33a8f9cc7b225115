package privinfer

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// normalPrior is N(0, 1)^d.
type normalPrior struct{ d int }

func (p normalPrior) Dim() int { return p.d }
func (p normalPrior) Sample(r *rand.Rand, theta []float64) {
	for i := range theta {
		theta[i] = r.NormFloat64()
	}
}
func (p normalPrior) LogDensity(theta []float64) float64 { return 0 }

// shiftSim writes θ + N(0, 1) noise, one statistic per parameter.
type shiftSim struct{ d int }

func (s shiftSim) StatDim() int  { return s.d }
func (s shiftSim) ParamDim() int { return s.d }
func (s shiftSim) Simulate(r *rand.Rand, theta, dst []float64) error {
	for i := range dst {
		dst[i] = theta[i] + r.NormFloat64()
	}
	return nil
}

// addMech adds U(0, 1) noise: a Mechanism with a Density and a Transform.
type addMech struct{ d int }

func (m addMech) Release(r *rand.Rand, s, dst []float64) error {
	for i := range s {
		dst[i] = s[i] + r.Float64()
	}
	return nil
}
func (m addMech) Budget() mechanism.Budget { return mechanism.Budget{Epsilon: 1} }
func (m addMech) Dim() int                 { return m.d }
func (m addMech) LogDensity(sdp, s []float64) float64 {
	for i := range s {
		if u := sdp[i] - s[i]; u < 0 || u >= 1 {
			return math.Inf(-1)
		}
	}
	return 0
}
func (m addMech) NoiseDim(statDim int) int { return statDim }
func (m addMech) Apply(u, s, dst []float64) {
	for i := range s {
		dst[i] = s[i] + u[i]
	}
}

// releaseOnly is a Mechanism with neither a density nor a transform.
type releaseOnly struct{}

func (releaseOnly) Release(r *rand.Rand, s, dst []float64) error { copy(dst, s); return nil }
func (releaseOnly) Budget() mechanism.Budget                     { return mechanism.Budget{Epsilon: 1} }

// oneRecord is a record model x ~ N(θ, 1) with t(x) = x.
type oneRecord struct{}

func (oneRecord) ParamDim() int                             { return 1 }
func (oneRecord) RecordDim() int                            { return 1 }
func (oneRecord) ContribDim() int                           { return 1 }
func (oneRecord) CheckParam(theta []float64) error          { return nil }
func (oneRecord) Contribution(rec, dst []float64)           { dst[0] = rec[0] }
func (oneRecord) RecordLogLik(theta, rec []float64) float64 { return 0 }
func (oneRecord) SampleRecord(r *rand.Rand, theta, rec []float64) {
	rec[0] = theta[0] + r.NormFloat64()
}

func goodProblem() Problem {
	return Problem{Prior: normalPrior{2}, Simulator: shiftSim{2}, Mechanism: addMech{2}, Observed: []float64{0.5, 1}, Names: []string{"a", "b"}}
}

func TestProblemValidate(t *testing.T) {
	good := goodProblem()
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	private, err := simulate.NewPrivate(shiftSim{2}, addMech{2})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(p *Problem){
		"nil prior":           func(p *Problem) { p.Prior = nil },
		"nil simulator":       func(p *Problem) { p.Simulator = nil },
		"zero prior dim":      func(p *Problem) { p.Prior = normalPrior{0} },
		"zero stat dim":       func(p *Problem) { p.Simulator = shiftSim{0} },
		"prior/sim mismatch":  func(p *Problem) { p.Prior = normalPrior{3} },
		"names length":        func(p *Problem) { p.Names = []string{"a"} },
		"empty name":          func(p *Problem) { p.Names = []string{"a", ""} },
		"repeated name":       func(p *Problem) { p.Names = []string{"a", "a"} },
		"observed length":     func(p *Problem) { p.Observed = []float64{1} },
		"observed empty":      func(p *Problem) { p.Observed = nil },
		"observed NaN":        func(p *Problem) { p.Observed = []float64{math.NaN(), 1} },
		"observed Inf":        func(p *Problem) { p.Observed = []float64{1, math.Inf(-1)} },
		"mechanism dimension": func(p *Problem) { p.Mechanism = addMech{3} },
		"noise added twice":   func(p *Problem) { p.Simulator = private },
		"typed nil prior":     func(p *Problem) { p.Prior = (*simulate.MVNormal)(nil) },
		"typed nil simulator": func(p *Problem) { p.Simulator = (*simulate.PrivateSimulator)(nil) },
		"typed nil mechanism": func(p *Problem) { p.Mechanism = (*mechanism.Laplace)(nil) },
	}
	for name, mutate := range cases {
		p := goodProblem()
		mutate(&p)
		err := p.Validate()
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: got %v, want ErrInvalid", name, err)
		}
	}
	var nilp *Problem
	if err := nilp.Validate(); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil problem: %v", err)
	}
	if err := (&Problem{}).Validate(); !errors.Is(err, ErrInvalid) {
		t.Errorf("zero problem: %v", err)
	}
	if got := good.ParamNames(); strings.Join(got, ",") != "a,b" {
		t.Errorf("ParamNames = %v", got)
	}
	good.Names = nil
	if got := good.ParamNames(); strings.Join(got, ",") != "θ[0],θ[1]" {
		t.Errorf("default ParamNames = %v", got)
	}
}

func TestProblemCapabilities(t *testing.T) {
	p := goodProblem()
	if err := p.Require(NeedRelease | NeedDensity | NeedTransform); err != nil {
		t.Fatal(err)
	}
	if err := p.Require(NeedRecords); !errors.Is(err, ErrNoRecords) || !strings.Contains(err.Error(), "MeanStat") {
		t.Errorf("records of a summary simulator: %v", err)
	}
	p.Mechanism = releaseOnly{}
	if err := p.Require(NeedRelease); err != nil {
		t.Errorf("release-only mechanism for ABC: %v", err)
	}
	if err := p.Require(NeedDensity); !errors.Is(err, ErrNoDensity) || !strings.Contains(err.Error(), "mechanism.Density") {
		t.Errorf("no density: %v", err)
	}
	if err := p.Require(NeedTransform); !errors.Is(err, ErrNoTransform) {
		t.Errorf("no transform: %v", err)
	}
	p.Mechanism = nil
	if err := p.Require(NeedTransform | NeedRelease); err != nil {
		t.Errorf("non-private problem for SPPE: %v", err)
	}
	if err := p.Require(NeedDensity); !errors.Is(err, ErrNoMechanism) {
		t.Errorf("density of a non-private problem: %v", err)
	}
	if _, err := p.Transform(); !errors.Is(err, ErrNoMechanism) {
		t.Errorf("transform of a non-private problem: %v", err)
	}
	p.Observed = []float64{math.NaN(), 0}
	if err := p.Require(NeedRelease); !errors.Is(err, ErrInvalid) {
		t.Errorf("Require does not validate: %v", err)
	}

	ms, err := simulate.NewMeanStat(oneRecord{}, 7)
	if err != nil {
		t.Fatal(err)
	}
	rp := Problem{Prior: normalPrior{1}, Simulator: ms, Mechanism: addMech{1}, Observed: []float64{0.3}}
	if err := rp.Require(NeedDensity | NeedRecords); err != nil {
		t.Fatal(err)
	}
	m, n, err := rp.Records()
	if err != nil || n != 7 || m == nil {
		t.Errorf("Records = %v, %d, %v", m, n, err)
	}
}

// TestReleaseSimulator checks that the release simulator draws s then
// η(·|s) with the same stream, exactly as composing by hand.
func TestReleaseSimulator(t *testing.T) {
	p := goodProblem()
	rs, err := p.ReleaseSimulator()
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{0.2, -1}
	got := make([]float64, 2)
	if err := rs.Simulate(rand.New(rand.NewPCG(3, 4)), theta, got); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	s, want := make([]float64, 2), make([]float64, 2)
	_ = shiftSim{2}.Simulate(r, theta, s)
	_ = addMech{2}.Release(r, s, want)
	if got[0] != want[0] || got[1] != want[1] {
		t.Errorf("release simulator %v, by hand %v", got, want)
	}
	p.Mechanism = nil
	if rs, err := p.ReleaseSimulator(); err != nil || rs != p.Simulator {
		t.Errorf("non-private release simulator = %v, %v", rs, err)
	}
	p.Prior = nil
	if _, err := p.ReleaseSimulator(); !errors.Is(err, ErrInvalid) {
		t.Errorf("invalid problem: %v", err)
	}
}

func TestProgress(t *testing.T) {
	var got []Progress
	f := ProgressFunc(func(p Progress) { got = append(got, p) })
	f.Report(Progress{Stage: "sample", Round: 3, Step: 400, Total: 1000, Elapsed: 12500e6, Message: "tolerance 0.21"})
	var none ProgressFunc
	none.Report(Progress{}) // a nil ProgressFunc is a no-op
	if len(got) != 1 {
		t.Fatalf("%d events", len(got))
	}
	if s := got[0].String(); s != "round 3 sample 400/1000 (12.5s): tolerance 0.21" {
		t.Errorf("String = %q", s)
	}
	if f := got[0].Fraction(); f != 0.4 {
		t.Errorf("Fraction = %v", f)
	}
	if f := (Progress{Step: 5}).Fraction(); f != 0 {
		t.Errorf("unknown total: Fraction = %v", f)
	}
	if s := (Progress{Stage: "epoch", Step: 7}).String(); s != "epoch 7 (0s)" {
		t.Errorf("String = %q", s)
	}
	if s := (Progress{Stage: "round", Round: 3}).String(); s != "round 3 (0s)" {
		t.Errorf("a round event repeats its stage: String = %q", s)
	}
	if s := (Progress{Stage: "round", Round: 2, Step: 2, Total: 10}).String(); s != "round 2/10 (0s)" {
		t.Errorf("a round event repeats its stage: String = %q", s)
	}
	if s := (Progress{Stage: "round"}).String(); s != "round (0s)" {
		t.Errorf("String = %q", s)
	}
}
