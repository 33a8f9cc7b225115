package sbibm

import (
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/internal/testutil/simcheck"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInputSeams runs the generic simulator and prior rows (simcheck)
// for every task.
func TestBadInputSeams(t *testing.T) {
	var cs []testutil.BadInput
	for _, name := range Names() {
		task, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		th := make([]float64, task.Dim())
		task.Prior().Sample(rnd(), th)
		cs = append(cs, simcheck.Simulator(name, task.Simulator(), th, nil, nil)...)
		cs = append(cs, simcheck.Prior(name+" prior", task.Prior())...)
	}
	testutil.RunBadInput(t, simulate.ErrInvalid, cs)
}

func rnd() *rand.Rand { return rand.New(rand.NewPCG(31, 32)) }
