package mcmc

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/linalg"
	"github.com/privinfer/privinfer/mechanism"
)

// transitionMatrix returns the exact one-attempt transition matrix of
// record step k (θ fixed) on the 3^n states of the small categorical model,
// built from the chain's own weight computation and the slot acceptance
// probabilities; for systematic scan it returns the kernel of the attempt
// at slot `slot`.
func transitionMatrix(t *testing.T, m *daModel, theta []float64, k RecordStep, slot int) [][]float64 {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 1))
	ch, err := newDAChain(m, k, r, theta)
	if err != nil {
		t.Fatal(err)
	}
	n := m.n
	ns := 1
	for range n {
		ns *= 3
	}
	decode := func(s int) []float64 {
		rec := make([]float64, n)
		for i := n - 1; i >= 0; i-- {
			rec[i] = float64(s % 3)
			s /= 3
		}
		return rec
	}
	encode := func(rec []float64) int {
		s := 0
		for _, v := range rec {
			s = 3*s + int(v)
		}
		return s
	}
	P := make([][]float64, ns)
	soma, imwg := make([]float64, n), make([]float64, n)
	for s := range ns {
		P[s] = make([]float64, ns)
		rec := decode(s)
		if err := ch.SetRecords(rec); err != nil {
			t.Fatal(err)
		}
		for y := range 3 {
			ch.y[0] = float64(y)
			m.rec.Contribution(ch.y, ch.ty)
			for i := range ch.ty {
				ch.ty[i] *= ch.scale
			}
			ch.weights()
			slotAcceptProbs(ch.logE, ch.logw, soma, imwg)
			W := 0.0
			for _, v := range ch.logw {
				W += math.Exp(v)
			}
			for i := range n {
				var pi, a float64
				switch k {
				case SOMA:
					pi, a = math.Exp(ch.logw[i])/W, soma[i]
				case RandomScanIMwG:
					pi, a = 1/float64(n), imwg[i]
				default:
					if i != slot {
						continue
					}
					pi, a = 1, imwg[i]
				}
				to := append([]float64(nil), rec...)
				to[i] = float64(y)
				ts := encode(to)
				mass := theta[y] * pi
				P[s][ts] += mass * a
				P[s][s] += mass * (1 - a)
			}
		}
	}
	return P
}

// TestKernelInvarianceExact checks π P = π to 1e-12 for the exact
// transition matrices of SOMA, random-scan IMwG and each slot update of
// systematic-scan IMwG on the 27-state conditional π(x | θ, s_dp), and
// that SOMA's acceptance of every (x, y) dominates random-scan IMwG's.
// Unlike a sampling test it is exact, so it detects any non-invariant
// acceptance rule. (Replacing SOMA's denominator W + w_0 − w_I by W + w_0
// gives a Barker-type kernel that is still reversible, since W + w_0 is
// symmetric in (x, x'); it is caught by the dominance check below and by
// TestSomaChooseMatchesProbs instead.)
func TestKernelInvarianceExact(t *testing.T) {
	for _, eps := range []float64{0.5, 2, 6} {
		m, tp := smallModel(t, eps)
		joint := exactJoint(m, tp)
		for a, theta := range tp.thetas {
			pi := append([]float64(nil), joint[a*27:(a+1)*27]...)
			z := 0.0
			for _, v := range pi {
				z += v
			}
			for i := range pi {
				pi[i] /= z
			}
			var mats [][][]float64
			for _, k := range []RecordStep{SOMA, RandomScanIMwG} {
				mats = append(mats, transitionMatrix(t, m, theta, k, 0))
			}
			for slot := range 3 {
				mats = append(mats, transitionMatrix(t, m, theta, SystematicScanIMwG, slot))
			}
			for mi, P := range mats {
				worst := 0.0
				for j := range 27 {
					s := 0.0
					for i := range 27 {
						s += pi[i] * P[i][j]
					}
					worst = math.Max(worst, math.Abs(s-pi[j]))
				}
				if worst > 1e-12 {
					t.Errorf("eps=%v θ%d kernel %d: max |πP − π| = %.3g", eps, a, mi, worst)
				}
				for i := range 27 {
					rs := 0.0
					for _, v := range P[i] {
						rs += v
					}
					if math.Abs(rs-1) > 1e-12 {
						t.Errorf("row %d sums to %v", i, rs)
					}
				}
			}
			// Overall acceptance dominance A_SOMA(x) ≥ A_RAN(x) ≥ e^−ε·(1 − P(stay put by y = x_i)).
			for i := range 27 {
				if mats[0][i][i] > mats[1][i][i]+1e-12 {
					t.Errorf("eps=%v state %d: SOMA stays with prob %v > IMwG %v", eps, i, mats[0][i][i], mats[1][i][i])
				}
			}
		}
	}
	_ = mechanism.ErrInvalid
}

// TestSOMARateBoundN2 computes the exact convergence rate (second-largest
// eigenvalue modulus of the reversible one-attempt kernel) of SOMA with
// n = 2 records on ε-DP targets and compares it with the slides' upper
// bound (5), r ≤ (e^{2ε} + 3e^ε − 2 + √(e^{4ε} + 2e^{3ε} + 9e^{2ε} −
// 8e^ε)) / (2(1 + e^ε)²).
func TestSOMARateBoundN2(t *testing.T) {
	for _, eps := range []float64{0.25, 1, 2, 4} {
		m, tp := smallModel(t, eps)
		m.n = 2
		lap, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 1, Epsilon: eps, Dim: 3}) // one-hot mean of 2 records: ℓ1 sensitivity 1
		if err != nil {
			t.Fatal(err)
		}
		m.mech = lap
		for a, theta := range tp.thetas {
			P := transitionMatrix(t, m, theta, SOMA, 0)
			ns := len(P)
			// Stationary law: π(x) ∝ Π θ_{x_i} η(s_dp | s(x)).
			pi := make([]float64, ns)
			z := 0.0
			s := make([]float64, 3)
			for st := range ns {
				x := []int{st / 3, st % 3}
				clear(s)
				for _, v := range x {
					s[v] += 0.5
				}
				pi[st] = theta[x[0]] * theta[x[1]] * math.Exp(lap.LogDensity(m.sdp, s))
				z += pi[st]
			}
			sym := make([]float64, ns*ns)
			for i := range ns {
				for j := range ns {
					sym[i*ns+j] = math.Sqrt(pi[i]/z) * P[i][j] / math.Sqrt(pi[j]/z)
				}
			}
			vals, vecs := make([]float64, ns), make([]float64, ns*ns)
			if err := linalg.SymEigen(sym, ns, vals, vecs); err != nil {
				t.Fatal(err)
			}
			if math.Abs(vals[ns-1]-1) > 1e-9 {
				t.Fatalf("top eigenvalue %v", vals[ns-1])
			}
			slem := math.Max(math.Abs(vals[0]), math.Abs(vals[ns-2]))
			e := math.Exp(eps)
			bound := (e*e + 3*e - 2 + math.Sqrt(e*e*e*e+2*e*e*e+9*e*e-8*e)) / (2 * (1 + e) * (1 + e))
			t.Logf("eps=%v θ%d: exact rate %.4f, slides' bound %.4f", eps, a, slem, bound)
			if slem > bound+1e-9 {
				t.Errorf("eps=%v θ%d: rate %.4f exceeds the bound %.4f", eps, a, slem, bound)
			}
		}
	}
}
