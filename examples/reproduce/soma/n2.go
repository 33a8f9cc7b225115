package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/plot"
	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/mixture"
)

// The slides' n = 2 example states only "all chains start from (0.3, 0.3),
// 500 iterations, SOMA against Ran-IMwG and Sys-IMwG". The setting chosen
// here is the simplest one of that form: two records x_1, x_2 ~ Uniform[0,
// 1] (θ fixed), their mean released by the Laplace mechanism (sensitivity
// 1/2, budget ε) with the observed release n2Release, and the record
// proposal the model itself, q = Uniform[0, 1]. The imputation target is
// then π(x) ∝ η(s_dp | (x_1 + x_2)/2) on the unit square, a ridge along x_1
// + x_2 = 2·n2Release whose width shrinks with 1/ε, and the start (0.3,
// 0.3) lies off it. An iteration is one record-step attempt (one fresh
// proposal): SOMA offers it to both slots, Ran-IMwG to a random slot,
// Sys-IMwG to the slots in turn.
const (
	n2Release  = 0.5 // the released mean: the ridge is x_1 + x_2 = 1
	n2TraceEps = 10  // ε of the trace plots and acceptance rates
	n2Iters    = 500 // iterations of the trace plots
)

// n2Eps are the budgets at which Theorem (5) is checked.
var n2Eps = []float64{0.5, 1, 2, 5, 10}

// fixedTheta is a θ-step that keeps θ: the n = 2 example samples the
// records given θ only.
type fixedTheta struct{}

// SampleTheta leaves theta unchanged.
func (fixedTheta) SampleTheta(*rand.Rand, []float64, int, []float64) error { return nil }

// n2Problem returns the n = 2 problem at budget eps: records Uniform[0, 1]
// (the two-component uniform mixture with weights (1, 0)), their mean
// released by the Laplace mechanism, observed n2Release.
func n2Problem(eps float64) (privinfer.Problem, error) {
	model, err := mixture.NewUniform(2)
	if err != nil {
		return privinfer.Problem{}, err
	}
	prior, err := mixture.Prior(2)
	if err != nil {
		return privinfer.Problem{}, err
	}
	sim, err := simulate.NewMeanStat(model, 2)
	if err != nil {
		return privinfer.Problem{}, err
	}
	lap, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 0.5, Epsilon: eps, Dim: 1})
	if err != nil {
		return privinfer.Problem{}, err
	}
	return privinfer.Problem{Prior: prior, Simulator: sim, Mechanism: lap, Observed: []float64{n2Release}, Names: []string{"w1", "w2"}}, nil
}

// n2Chain runs iters record-step attempts of kernel k from (0.3, 0.3) on
// the problem at eps and returns the path (x_1 and x_2 after every
// attempt) and the acceptance rate.
func n2Chain(eps float64, k mcmc.RecordStep, iters int, seed uint64) (x1, x2 []float64, acc float64, err error) {
	p, err := n2Problem(eps)
	if err != nil {
		return nil, nil, 0, err
	}
	r := rand.New(rand.NewPCG(seed, uint64(k)))
	c, err := mcmc.NewDAChain(p, mcmc.DAConfig{ThetaStep: fixedTheta{}, RecordStep: k}, r, []float64{1, 0})
	if err != nil {
		return nil, nil, 0, err
	}
	if err := c.SetRecords([]float64{0.3, 0.3}); err != nil {
		return nil, nil, 0, err
	}
	x1, x2 = make([]float64, 0, iters+1), make([]float64, 0, iters+1)
	x1, x2 = append(x1, 0.3), append(x2, 0.3)
	for range iters {
		if err := c.Step(r); err != nil {
			return nil, nil, 0, err
		}
		rec := c.Records()
		x1, x2 = append(x1, rec[0]), append(x2, rec[1])
	}
	a, n := c.Acceptance()
	return x1, x2, float64(a) / float64(n), nil
}

// somaRateBound is the slides' Theorem (5): for n = 2 the convergence rate
// of SOMA under an ε-DP release is at most this.
func somaRateBound(eps float64) float64 {
	e := math.Exp(eps)
	return (e*e + 3*e - 2 + math.Sqrt(e*e*e*e+2*e*e*e+9*e*e-8*e)) / (2 * (1 + e) * (1 + e))
}

// gridChain is the n = 2 example on a grid: each record takes the m
// values (j + 1/2)/m, the proposal is uniform on them, and the release
// density is the continuous Laplace density of scale (1/2)/ε at the mean.
// States are (a, b) ↦ a·m + b.
type gridChain struct {
	m   int
	eta []float64 // η(s_dp | s) at every state, unnormalised
	pi  []float64 // stationary law: η normalised (q is uniform)
}

func newGridChain(m int, eps float64) *gridChain {
	g := &gridChain{m: m, eta: make([]float64, m*m), pi: make([]float64, m*m)}
	b, sum := 0.5/eps, 0.0
	for a := range m {
		for c := range m {
			s := (float64(a) + float64(c) + 1) / float64(2*m)
			g.eta[a*m+c] = math.Exp(-math.Abs(n2Release-s) / b)
			sum += g.eta[a*m+c]
		}
	}
	for i, v := range g.eta {
		g.pi[i] = v / sum
	}
	return g
}

// transition returns the one-attempt transition matrix of kernel k
// (SOMA or RandomScanIMwG) and the probability of accepting a move from
// every state, following the slides' definitions with the weights
// w_0 = η(s(x)), w_i = η(s([x_{−i}, y])).
func (g *gridChain) transition(k mcmc.RecordStep) (p [][]float64, accept []float64) {
	m, ns := g.m, g.m*g.m
	p = make([][]float64, ns)
	accept = make([]float64, ns)
	q := 1 / float64(m)
	for a := range m {
		for b := range m {
			x := a*m + b
			row := make([]float64, ns)
			w0 := g.eta[x]
			for c := range m {
				to := [2]int{c*m + b, a*m + c}              // slot 1 or slot 2 replaced by y = c
				w := [2]float64{g.eta[to[0]], g.eta[to[1]]} // w_1, w_2
				for i := range 2 {
					var move float64
					if k == mcmc.SOMA {
						wsum := w[0] + w[1]
						move = q * (w[i] / wsum) * math.Min(1, wsum/(wsum+w0-w[i]))
					} else {
						move = q * 0.5 * math.Min(1, w[i]/w0)
					}
					row[to[i]] += move
					accept[x] += move
				}
			}
			stay := 1.0
			for j, v := range row {
				if j != x {
					stay -= v
				}
			}
			row[x] = stay
			p[x] = row
		}
	}
	return p, accept
}

// slem returns the second-largest eigenvalue modulus of the π-reversible
// transition matrix p (its convergence rate from the worst start) and the
// largest violation of detailed balance, max |π_i p_ij − π_j p_ji|. The
// eigenvalues are those of the symmetric D^{1/2} P D^{−1/2}, D = diag(π).
func (g *gridChain) slem(p [][]float64) (rate, asym float64, err error) {
	ns := len(p)
	s := make([][]float64, ns)
	for i := range ns {
		s[i] = make([]float64, ns)
		for j := range ns {
			asym = math.Max(asym, math.Abs(g.pi[i]*p[i][j]-g.pi[j]*p[j][i]))
			s[i][j] = math.Sqrt(g.pi[i]/g.pi[j]) * p[i][j]
		}
	}
	for i := range ns {
		for j := range i {
			v := (s[i][j] + s[j][i]) / 2
			s[i][j], s[j][i] = v, v
		}
	}
	ev, err := symEigenvalues(s)
	if err != nil {
		return 0, 0, err
	}
	slices.Sort(ev)
	// The largest is 1 (the constant function); the rate is the largest
	// modulus of the others.
	return math.Max(math.Abs(ev[0]), math.Abs(ev[ns-2])), asym, nil
}

// stationaryAcceptance returns Σ_x π(x)·accept(x).
func (g *gridChain) stationaryAcceptance(accept []float64) float64 {
	s := 0.0
	for i, v := range accept {
		s += g.pi[i] * v
	}
	return s
}

// n2Check is one row of the Theorem (5) table.
type n2Check struct {
	eps, soma, imwg, bound, asym float64
}

// theorem5 computes the SOMA and Ran-IMwG rates of the grid chain with m
// values per record at every ε of n2Eps, beside the bound (5).
func theorem5(m int) ([]n2Check, error) {
	var out []n2Check
	for _, eps := range n2Eps {
		g := newGridChain(m, eps)
		ps, _ := g.transition(mcmc.SOMA)
		rs, as, err := g.slem(ps)
		if err != nil {
			return nil, err
		}
		pr, _ := g.transition(mcmc.RandomScanIMwG)
		ri, ai, err := g.slem(pr)
		if err != nil {
			return nil, err
		}
		out = append(out, n2Check{eps: eps, soma: rs, imwg: ri, bound: somaRateBound(eps), asym: math.Max(as, ai)})
	}
	return out, nil
}

// runN2 prints the n = 2 example: acceptance rates of the three kernels
// at ε = n2TraceEps (library chains, and exactly on the grid), the trace
// plots from (0.3, 0.3) with -out, and the check of Theorem (5).
func runN2(ctx context.Context, o *opts, stdout io.Writer, prog *cli.Progress) error {
	m := 24
	if o.common.Quick {
		m = 16
	}
	if o.n2Grid > 0 {
		m = o.n2Grid
	}
	accIters := 200000
	if o.common.Quick {
		accIters = 50000
	}
	fmt.Fprintf(stdout, "\n### Slides' n = 2 example: trace plots, acceptance and Theorem (5)\n\n")
	fmt.Fprintf(stdout, "Setting: x_1, x_2 ~ Uniform[0, 1], their mean released by the Laplace mechanism (sensitivity 1/2) as s_dp = %v, proposal = the model; "+
		"the target is the ridge x_1 + x_2 = %v. Chains start at (0.3, 0.3); an iteration is one proposal.\n\n", n2Release, 2*n2Release)
	g := newGridChain(m, n2TraceEps)
	tab := &cli.Table{Header: []string{"kernel", fmt.Sprintf("acceptance (library, %d iterations)", accIters), fmt.Sprintf("exact on the %d×%d grid", m, m), "lower bound (4)"}}
	var traces [][2]plot.Series
	accOK := true
	rates := map[mcmc.RecordStep]float64{}
	for ki, k := range kernels {
		if err := ctx.Err(); err != nil {
			return err
		}
		x1, x2, _, err := n2Chain(n2TraceEps, k, n2Iters, o.common.Seed+700)
		if err != nil {
			return err
		}
		it := make([]float64, len(x1))
		for i := range it {
			it[i] = float64(i)
		}
		traces = append(traces, [2]plot.Series{{Name: "x1", X: it, Y: x1}, {Name: "x2", X: it, Y: x2, Dashed: true}})
		_, _, acc, err := n2Chain(n2TraceEps, k, accIters, o.common.Seed+710+uint64(ki))
		if err != nil {
			return err
		}
		kk := k
		if k == mcmc.SystematicScanIMwG {
			kk = mcmc.RandomScanIMwG // same stationary acceptance: the slots are exchangeable
		}
		_, accept := g.transition(kk)
		exact := g.stationaryAcceptance(accept)
		lb := math.Exp(-n2TraceEps)
		if k == mcmc.SOMA {
			lb = 2 / (1 + math.Exp(n2TraceEps))
		}
		if acc < lb || math.Abs(acc-exact) > 0.02 {
			accOK = false
		}
		rates[k] = acc
		tab.Add(k.String(), cli.F(acc, 3), cli.F(exact, 3), fmt.Sprintf("%.2g", lb))
		prog.Printf("n=2 %v done", k)
	}
	fmt.Fprintf(stdout, "Acceptance at ε = %v:\n\n", n2TraceEps)
	tab.Markdown(stdout)
	fmt.Fprintln(stdout)
	if rates[mcmc.SOMA] <= max(rates[mcmc.RandomScanIMwG], rates[mcmc.SystematicScanIMwG]) {
		accOK = false
	}
	if accOK {
		cli.PrintVerdict(stdout, cli.Reproduced, "slides n=2 example, acceptance", fmt.Sprintf("at ε = %v SOMA accepts more often than both IMwG scans, every rate is above its DP lower bound (4) and the library's chains agree with the exact grid chain within 0.02", n2TraceEps))
	} else {
		cli.PrintVerdict(stdout, cli.Differs, "slides n=2 example, acceptance", "SOMA does not accept more often than both IMwG scans, or a rate is below its DP lower bound (4) or more than 0.02 from the exact grid chain's")
	}
	if o.common.Out != "" {
		for i, k := range kernels {
			cv, err := plot.LineChart{Title: fmt.Sprintf("n = 2, ε = %v: %v from (0.3, 0.3), %d iterations (ridge x1 + x2 = %v)", n2TraceEps, k, n2Iters, 2*n2Release),
				XLabel: "iteration", YLabel: "record value", Series: traces[i][:]}.Draw()
			if err != nil {
				return err
			}
			if _, err := o.common.WritePlot("soma_n2_trace_"+traceName(k), cv); err != nil {
				return err
			}
		}
	}
	checks, err := theorem5(m)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nTheorem (5): convergence rate (second-largest eigenvalue modulus of the exact one-proposal transition matrix on the %d×%d grid) against the bound:\n\n", m, m)
	rt := &cli.Table{Header: []string{"ε", "SOMA rate", "bound (5)", "Ran-IMwG rate", "max detailed-balance error"}}
	holds := true
	for _, c := range checks {
		rt.Add(cli.F(c.eps, 1), cli.F(c.soma, 5), cli.F(c.bound, 5), cli.F(c.imwg, 5), fmt.Sprintf("%.1e", c.asym))
		if !(c.soma <= c.bound+1e-9) {
			holds = false
		}
	}
	rt.Markdown(stdout)
	fmt.Fprintln(stdout)
	faster, gap := true, 0.0
	for _, c := range checks {
		faster = faster && c.soma < c.imwg
		gap = math.Max(gap, c.imwg-c.soma)
	}
	fmt.Fprint(stdout, "The bound exceeds 0.999 from ε ≈ 2.7 on, where it says little. ")
	if faster {
		fmt.Fprintf(stdout, "Per proposal SOMA's exact rate is below Ran-IMwG's at every ε above, by at most %.4f.\n", gap)
	} else {
		fmt.Fprintln(stdout, "Per proposal SOMA's exact rate is not below Ran-IMwG's at every ε above.")
	}
	fmt.Fprintln(stdout)
	if holds {
		cli.PrintVerdict(stdout, cli.Reproduced, "slides Theorem (5), n=2 SOMA rate bound", fmt.Sprintf("the exact SOMA rate on the %d×%d grid is below the bound at every ε in %v", m, m, n2Eps))
	} else {
		cli.PrintVerdict(stdout, cli.Differs, "slides Theorem (5), n=2 SOMA rate bound", fmt.Sprintf("the exact SOMA rate on the %d×%d grid exceeds the bound at some ε", m, m))
	}
	return nil
}

func traceName(k mcmc.RecordStep) string {
	switch k {
	case mcmc.SOMA:
		return "soma"
	case mcmc.SystematicScanIMwG:
		return "sysimwg"
	}
	return "ranimwg"
}

// symEigenvalues returns the eigenvalues of the symmetric matrix a
// (overwritten) by Householder reduction to tridiagonal form and the
// implicit QL iteration.
func symEigenvalues(a [][]float64) ([]float64, error) {
	n := len(a)
	if n == 0 {
		return nil, nil
	}
	d, e := make([]float64, n), make([]float64, n)
	for i := n - 1; i > 0; i-- {
		l := i - 1
		h, scale := 0.0, 0.0
		if l > 0 {
			for k := 0; k <= l; k++ {
				scale += math.Abs(a[i][k])
			}
			if scale == 0 {
				e[i] = a[i][l]
			} else {
				for k := 0; k <= l; k++ {
					a[i][k] /= scale
					h += a[i][k] * a[i][k]
				}
				f := a[i][l]
				g := math.Sqrt(h)
				if f >= 0 {
					g = -g
				}
				e[i] = scale * g
				h -= f * g
				a[i][l] = f - g
				f = 0
				for j := 0; j <= l; j++ {
					g = 0
					for k := 0; k <= j; k++ {
						g += a[j][k] * a[i][k]
					}
					for k := j + 1; k <= l; k++ {
						g += a[k][j] * a[i][k]
					}
					e[j] = g / h
					f += e[j] * a[i][j]
				}
				hh := f / (h + h)
				for j := 0; j <= l; j++ {
					f = a[i][j]
					g = e[j] - hh*f
					e[j] = g
					for k := 0; k <= j; k++ {
						a[j][k] -= f*e[k] + g*a[i][k]
					}
				}
			}
		} else {
			e[i] = a[i][l]
		}
	}
	for i := range n {
		d[i] = a[i][i]
	}
	// Implicit QL on the tridiagonal (d, e), e[i] coupling i−1 and i.
	for i := 1; i < n; i++ {
		e[i-1] = e[i]
	}
	e[n-1] = 0
	for l := range n {
		for iter := 0; ; iter++ {
			m := l
			for ; m < n-1; m++ {
				dd := math.Abs(d[m]) + math.Abs(d[m+1])
				if math.Abs(e[m]) <= 0x1p-53*dd {
					break
				}
			}
			if m == l {
				break
			}
			if iter == 100 {
				return nil, errors.New("soma: QL iteration did not converge")
			}
			g := (d[l+1] - d[l]) / (2 * e[l])
			r := math.Hypot(g, 1)
			g = d[m] - d[l] + e[l]/(g+math.Copysign(r, g))
			s, c, p := 1.0, 1.0, 0.0
			underflow := false
			for i := m - 1; i >= l; i-- {
				f, b := s*e[i], c*e[i]
				r = math.Hypot(f, g)
				e[i+1] = r
				if r == 0 {
					d[i+1] -= p
					e[m] = 0
					underflow = true
					break
				}
				s, c = f/r, g/r
				g = d[i+1] - p
				r = (d[i]-g)*s + 2*c*b
				p = s * r
				d[i+1] = g + p
				g = c*r - b
			}
			if underflow {
				continue
			}
			d[l] -= p
			e[l] = g
			e[m] = 0
		}
	}
	return d, nil
}
