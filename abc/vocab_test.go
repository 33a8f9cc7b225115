package abc

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/privinfer/privinfer"
)

// TestConfigValidate checks every engine Config's Validate: the zero value
// is refused with ErrInvalid, a usable configuration passes.
func TestConfigValidate(t *testing.T) {
	for name, v := range map[string]interface{ Validate() error }{
		"RejectionConfig": &RejectionConfig{},
		"SMCConfig":       &SMCConfig{},
		"KernelISConfig":  &KernelISConfig{},
		"ABCDPConfig":     &ABCDPConfig{},
	} {
		if err := v.Validate(); !errors.Is(err, ErrInvalid) {
			t.Errorf("zero %s: Validate() = %v, want ErrInvalid", name, err)
		}
	}
	for name, v := range map[string]interface{ Validate() error }{
		"RejectionConfig": &RejectionConfig{Distance: Euclidean{}, Tolerance: 0.1, Simulations: 10},
		"SMCConfig":       &SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: ToleranceList{1}},
		"KernelISConfig":  &KernelISConfig{Simulations: 10, Stages: 1, Mean: []float64{0}, Cov: []float64{1}},
		"ABCDPConfig":     &ABCDPConfig{EpsTotal: 1, EpsABC: 0.1, C: 1, Clip: 1},
	} {
		if err := v.Validate(); err != nil {
			t.Errorf("%s: Validate() = %v, want nil", name, err)
		}
	}
}

// TestDrawsCarryNames checks that every engine's Draws are named after the
// Problem's parameters and validate.
func TestDrawsCarryNames(t *testing.T) {
	p, err := privateNormalMean()
	if err != nil {
		t.Fatal(err)
	}
	p.Names = []string{"mu"}
	ctx := context.Background()
	check := func(engine string, d *privinfer.Draws, weighted bool) {
		t.Helper()
		if d == nil || d.Validate() != nil || !slices.Equal(d.Names, []string{"mu"}) || d.Dim != 1 || d.Len() == 0 || d.Weighted() != weighted {
			t.Errorf("%s: draws %+v", engine, d)
		}
	}
	rej, err := Rejection(ctx, p, RejectionConfig{Distance: Euclidean{}, Accept: 20, Simulations: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	check("Rejection", rej.Draws, false)
	smc, err := SMC(ctx, p, SMCConfig{Distance: Euclidean{}, Particles: 50, Schedule: ToleranceList{2, 1}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	check("SMC", smc.Draws, true)
	for _, r := range smc.Rounds {
		check("SMC round", r.Draws, true)
	}
	kis, err := KernelIS(ctx, p, KernelISConfig{Simulations: 100, Stages: 2, Mean: []float64{0}, Cov: []float64{1}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	check("KernelIS", kis.Draws, true)
	pub := p
	pub.Mechanism = nil
	res, err := ABCDP(ctx, pub, ABCDPConfig{EpsTotal: 100, EpsABC: 0.5, C: 5, Clip: 2, Distance: Euclidean{}, Simulations: 500, Seed: 1, Reproducible: true})
	if err != nil {
		t.Fatal(err)
	}
	check("ABCDP", res.Draws, false)
	check("ABCDP public", res.Public, false)
	if res.Draws.Len() != len(res.Accepted) || res.Public.Len() != 500 {
		t.Fatalf("ABCDP: %d accepted draws for %d accepted indices, %d public", res.Draws.Len(), len(res.Accepted), res.Public.Len())
	}
	for k, i := range res.Accepted {
		if res.Draws.Row(k)[0] != res.Public.Row(i)[0] {
			t.Fatalf("accepted draw %d is not public draw %d", k, i)
		}
	}
}

// TestABCDPRefusesMechanism checks that ABCDP, being itself the
// mechanism, refuses a Problem with one.
func TestABCDPRefusesMechanism(t *testing.T) {
	p, err := privateNormalMean()
	if err != nil {
		t.Fatal(err)
	}
	_, err = ABCDP(context.Background(), p, ABCDPConfig{EpsTotal: 1, EpsABC: 0.5, C: 1, Clip: 2, Distance: Euclidean{}, Simulations: 10})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "Mechanism must be nil") {
		t.Fatalf("ABCDP with a mechanism: %v", err)
	}
}

// TestProgressEvents checks the events of Rejection and ABCDP: stages,
// counts, and no distance in ABCDP's messages. ABCDP runs with the
// operating system's noise here: the events do not depend on it.
func TestProgressEvents(t *testing.T) {
	p, err := privateNormalMean()
	if err != nil {
		t.Fatal(err)
	}
	var ev []privinfer.Progress
	rec := func(e privinfer.Progress) { ev = append(ev, e) }
	res, err := Rejection(context.Background(), p, RejectionConfig{Distance: Euclidean{}, Tolerance: 0.3, Accept: 10, Simulations: 5000, Seed: 1, Progress: rec})
	if err != nil {
		t.Fatal(err)
	}
	last := ev[len(ev)-1]
	if last.Stage != "simulate" || last.Total != 5000 || last.Step != res.Simulations || !strings.HasPrefix(last.Message, "10 accepted") {
		t.Fatalf("last rejection event %+v for %d simulations", last, res.Simulations)
	}
	ev = nil
	pub := p
	pub.Mechanism = nil
	out, err := ABCDP(context.Background(), pub, ABCDPConfig{EpsTotal: 10, EpsABC: 0.5, C: 3, Clip: 2, Distance: Euclidean{}, Simulations: 200, Seed: 1, Progress: rec})
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != 2 || ev[0].Stage != "simulate" || ev[0].Step != 200 || ev[1].Stage != "select" || ev[1].Step != len(out.Indicators) || ev[0].Message != "" {
		t.Fatalf("ABCDP events %+v", ev)
	}
}
