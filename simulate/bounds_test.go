package simulate

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSupportBox checks the boxes of the package's priors against their
// components' supports, that a prior without the capability is treated as
// unbounded, and that every draw lies in the stated box.
func TestSupportBox(t *testing.T) {
	inf := math.Inf(1)
	u, _ := NewUniform(UniformConfig{Lo: -1, Hi: 2})
	n, _ := NewNormal(NormalConfig{Mu: 0, Sigma: 1})
	g, _ := NewGamma(GammaConfig{Shape: 2, Scale: 1})
	b, _ := NewBeta(BetaConfig{Alpha: 2, Beta: 3})
	tn, _ := Truncate(n, -0.5, 1.5)
	ind, _ := NewIndependent(u, n, g, b, tn)
	mvn, _ := NewDiagNormal(DiagNormalConfig{Mean: []float64{0, 1}, Variances: []float64{1, 2}})
	dir, _ := NewDirichlet([]float64{1, 2, 3})
	box, _ := NewIndependent(u, u)
	cat, _ := NewConcat(box, dir, mvn)
	cases := []struct {
		name   string
		p      Prior
		lo, hi []float64
	}{
		{"independent", ind, []float64{-1, -inf, 0, 0, -0.5}, []float64{2, inf, inf, 1, 1.5}},
		{"mvnormal", mvn, []float64{-inf, -inf}, []float64{inf, inf}},
		{"dirichlet (no capability)", dir, []float64{-inf, -inf, -inf}, []float64{inf, inf, inf}},
		{"concat", cat, []float64{-1, -1, -inf, -inf, -inf, -inf, -inf}, []float64{2, 2, inf, inf, inf, inf, inf}},
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range cases {
		lo, hi, err := SupportBox(c.p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(lo, c.lo) || !slices.Equal(hi, c.hi) {
			t.Errorf("%s: box %v, %v, want %v, %v", c.name, lo, hi, c.lo, c.hi)
		}
		theta := make([]float64, c.p.Dim())
		for range 2000 {
			c.p.Sample(r, theta)
			for i, v := range theta {
				if v < lo[i] || v > hi[i] {
					t.Fatalf("%s: draw %v leaves the box in coordinate %d", c.name, theta, i)
				}
			}
		}
		// The slices are the caller's: changing them changes nothing.
		lo[0], hi[0] = 7, 8
		lo2, _, _ := SupportBox(c.p)
		if lo2[0] == 7 {
			t.Errorf("%s: SupportBox returned a slice the prior keeps", c.name)
		}
	}
	if _, ok := Prior(dir).(Bounded); ok {
		t.Error("Dirichlet implements Bounded, but its support is a simplex")
	}
}

// badBox is a Prior whose Bounds break the contract of Bounded.
type badBox struct {
	d      int
	lo, hi []float64
}

func (b badBox) Dim() int                           { return b.d }
func (b badBox) Sample(*rand.Rand, []float64)       {}
func (b badBox) LogDensity(theta []float64) float64 { return 0 }
func (b badBox) Bounds() (lo, hi []float64)         { return b.lo, b.hi }

// TestSupportBoxBadInput checks that SupportBox refuses a nil prior, a
// zero-value prior, a prior of dimension below 1 and Bounds that break
// the contract, with errors wrapping ErrInvalid, and accepts a point-mass
// coordinate (lo = hi).
func TestSupportBoxBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	bad := map[string]Prior{
		"nil":              nil,
		"nil Independent":  (*Independent)(nil),
		"nil Concat":       (*Concat)(nil),
		"nil MVNormal":     (*MVNormal)(nil),
		"zero Independent": &Independent{},
		"zero Concat":      &Concat{},
		"zero MVNormal":    &MVNormal{},
		"dimension 0":      badBox{d: 0},
		"short":            badBox{d: 2, lo: []float64{0}, hi: []float64{1, 1}},
		"nil slices":       badBox{d: 1},
		"NaN lower":        badBox{d: 1, lo: []float64{nan}, hi: []float64{1}},
		"NaN upper":        badBox{d: 1, lo: []float64{0}, hi: []float64{nan}},
		"reversed":         badBox{d: 2, lo: []float64{0, 2}, hi: []float64{1, 1}},
		"lower +Inf":       badBox{d: 1, lo: []float64{inf}, hi: []float64{inf}},
		"upper −Inf":       badBox{d: 1, lo: []float64{-inf}, hi: []float64{-inf}},
	}
	for name, p := range bad {
		if _, _, err := SupportBox(p); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
	}
	for name, b := range map[string]Bounded{"Independent": (*Independent)(nil), "Concat": (*Concat)(nil), "MVNormal": (*MVNormal)(nil)} {
		if lo, hi := b.Bounds(); len(lo) != 0 || len(hi) != 0 {
			t.Errorf("nil %s: Bounds() = %v, %v, want empty slices", name, lo, hi)
		}
	}
	lo, hi, err := SupportBox(badBox{d: 2, lo: []float64{0, -inf}, hi: []float64{0, inf}})
	if err != nil || lo[0] != 0 || hi[0] != 0 {
		t.Errorf("point-mass coordinate: %v, %v, %v", lo, hi, err)
	}
	// A Concat whose block breaks the contract states no bound there.
	u, _ := NewUniform(UniformConfig{Lo: 0, Hi: 1})
	ind, _ := NewIndependent(u)
	cat, err := NewConcat(ind, badBox{d: 1, lo: []float64{nan}, hi: []float64{1}})
	if err != nil {
		t.Fatal(err)
	}
	lo, hi, err = SupportBox(cat)
	if err != nil || !slices.Equal(lo, []float64{0, -inf}) || !slices.Equal(hi, []float64{1, inf}) {
		t.Errorf("concat with a bad block: %v, %v, %v", lo, hi, err)
	}
}
