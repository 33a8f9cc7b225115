package metrics

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/flow/nn"
	"github.com/privinfer/privinfer/flow/optim"
	"github.com/privinfer/privinfer/internal/parallel"
)

// C2STOptions configures C2ST. The zero value is the sbibm protocol:
// 5-fold cross-validation, an MLP with two hidden ReLU layers of 10·d units,
// Adam with learning rate 10⁻³, L2 penalty 10⁻⁴, mini-batches of
// min(200, n), stopping when the training loss has not improved by 10⁻⁴ for
// 10 consecutive epochs (the defaults of scikit-learn's MLPClassifier that
// sbibm uses) or after MaxEpochs epochs.
type C2STOptions struct {
	Folds        int     // cross-validation folds, ≥ 2; 0 means 5
	Hidden       int     // units per hidden layer, ≤ 2^16; 0 means 10·d
	MaxEpochs    int     // 0 means 1000
	BatchSize    int     // 0 means 200
	LearningRate float64 // 0 means 1e-3
	L2           float64 // L2 penalty α; 0 means 1e-4, negative disables
	Tol          float64 // 0 means 1e-4
	NoChange     int     // 0 means 10
	Seed         uint64  // seeds the fold split, initialisation and batch order
}

func (o *C2STOptions) defaults(d int) error {
	if o.Folds == 0 {
		o.Folds = 5
	}
	if o.Folds < 2 {
		return fmt.Errorf("%w: C2STOptions.Folds: must be ≥ 2, got %d", ErrInvalid, o.Folds)
	}
	if o.Hidden == 0 {
		o.Hidden = 10 * d
	}
	if o.MaxEpochs == 0 {
		o.MaxEpochs = 1000
	}
	if o.BatchSize == 0 {
		o.BatchSize = 200
	}
	if o.LearningRate == 0 {
		o.LearningRate = 1e-3
	}
	if o.L2 == 0 {
		o.L2 = 1e-4
	}
	if o.L2 < 0 {
		o.L2 = 0
	}
	if o.Tol == 0 {
		o.Tol = 1e-4
	}
	if o.NoChange == 0 {
		o.NoChange = 10
	}
	const positive = "must be positive and finite (or 0 for the default)"
	for _, f := range []struct {
		name string
		bad  bool
		v    any
		want string
	}{
		{"Hidden", o.Hidden < 1, o.Hidden, positive},
		{"MaxEpochs", o.MaxEpochs < 1, o.MaxEpochs, positive},
		{"BatchSize", o.BatchSize < 1, o.BatchSize, positive},
		{"LearningRate", !(o.LearningRate > 0) || math.IsInf(o.LearningRate, 0), o.LearningRate, positive},
		{"NoChange", o.NoChange < 1, o.NoChange, positive},
		{"Tol", !(o.Tol >= 0) || math.IsInf(o.Tol, 0), o.Tol, positive},
		{"L2", math.IsNaN(o.L2) || math.IsInf(o.L2, 0), o.L2, "must be finite (0 for the default, negative for no penalty)"},
	} {
		if f.bad {
			return fmt.Errorf("%w: C2STOptions.%s: %s, got %v", ErrInvalid, f.name, f.want, f.v)
		}
	}
	if o.Hidden > 1<<16 {
		return fmt.Errorf("%w: C2STOptions.Hidden: must be at most 2^16, got %d", ErrInvalid, o.Hidden)
	}
	return nil
}

// C2ST returns the classifier two-sample test accuracy between the sample x
// and the reference sample ref (both of dimension d) in the protocol of the
// sbibm benchmark (Lueckmann et al. 2021): both samples are z-scored with the
// mean and standard deviation of ref, labelled 0 (ref) and 1 (x), and an MLP
// classifier (see C2STOptions) is trained and scored by stratification-free
// shuffled K-fold cross-validation; the mean held-out accuracy is returned.
// The samples must have equal sizes, as in sbibm, so that chance accuracy is
// 0.5. Values near 0.5 mean the classifier cannot tell the samples apart;
// 1 means they are perfectly separable. The folds are trained in parallel, each on
// its own random stream, so the result depends on the options' Seed only.
func C2ST(x, ref []float64, d int, opt C2STOptions) (float64, error) {
	n, m, err := checkPair(x, ref, d)
	if err != nil {
		return 0, err
	}
	if n != m {
		return 0, fmt.Errorf("%w: x, ref: must hold as many points each (chance accuracy is max(n, m)/(n+m) otherwise), got %d and %d", ErrInvalid, n, m)
	}
	if err := opt.defaults(d); err != nil {
		return 0, err
	}
	N := n + m
	if N < 2*opt.Folds {
		return 0, fmt.Errorf("%w: x, ref: must hold at least %d points in total (2·C2STOptions.Folds), got %d", ErrInvalid, 2*opt.Folds, N)
	}
	// z-score by the reference.
	mean := make([]float64, d)
	sd := make([]float64, d)
	for i := 0; i < m; i++ {
		for k := 0; k < d; k++ {
			mean[k] += ref[i*d+k]
		}
	}
	for k := range mean {
		mean[k] /= float64(m)
	}
	for i := 0; i < m; i++ {
		for k := 0; k < d; k++ {
			t := ref[i*d+k] - mean[k]
			sd[k] += t * t
		}
	}
	for k := range sd {
		sd[k] = math.Sqrt(sd[k] / float64(max(m-1, 1)))
		if !(sd[k] > 0) {
			sd[k] = 1
		}
	}
	data := make([]float64, N*d)
	label := make([]float64, N)
	for i := 0; i < m; i++ {
		for k := 0; k < d; k++ {
			data[i*d+k] = (ref[i*d+k] - mean[k]) / sd[k]
		}
	}
	for i := 0; i < n; i++ {
		for k := 0; k < d; k++ {
			data[(m+i)*d+k] = (x[i*d+k] - mean[k]) / sd[k]
		}
		label[m+i] = 1
	}
	// Shuffled K-fold split (fold sizes differ by at most one).
	perm := rand.New(rand.NewPCG(opt.Seed, 0x6332737466)).Perm(N)
	acc := make([]float64, opt.Folds)
	err = parallel.Map(context.Background(), opt.Folds, opt.Seed, func(f int, r *rand.Rand) error {
		lo, hi := f*N/opt.Folds, (f+1)*N/opt.Folds
		test := perm[lo:hi]
		train := make([]int, 0, N-(hi-lo))
		train = append(train, perm[:lo]...)
		train = append(train, perm[hi:]...)
		c := newMLP(d, opt.Hidden, r)
		c.fit(data, label, train, opt, r)
		acc[f] = c.accuracy(data, label, test)
		return nil
	})
	if err != nil {
		return 0, err
	}
	s := 0.0
	for _, a := range acc {
		s += a
	}
	return s / float64(opt.Folds), nil
}

// mlp is a binary classifier d → h → h → 1 (ReLU hidden layers, logistic
// output) built on the flow engine's fused layer kernels.
type mlp struct {
	d, h       int
	l1, l2, l3 nn.Linear
	p, g       []float64
	// batch workspaces
	x, a1, r1, a2, r2, out, dOut, dr2, dr1 []float64
}

func newMLP(d, h int, r *rand.Rand) *mlp {
	c := &mlp{d: d, h: h}
	c.l1 = nn.Linear{In: d, Out: h, Off: 0}
	c.l2 = nn.Linear{In: h, Out: h, Off: c.l1.NumParams()}
	c.l3 = nn.Linear{In: h, Out: 1, Off: c.l1.NumParams() + c.l2.NumParams()}
	np := c.l1.NumParams() + c.l2.NumParams() + c.l3.NumParams()
	c.p = make([]float64, np)
	c.g = make([]float64, np)
	// Glorot-uniform initialisation, as scikit-learn does: a = √(6/(in+out)).
	for _, l := range []nn.Linear{c.l1, c.l2, c.l3} {
		a := math.Sqrt(6 / float64(l.In+l.Out))
		l.Init(c.p, r, a*math.Sqrt(float64(l.In)))
	}
	return c
}

func (c *mlp) ensure(b int) {
	if len(c.out) >= b {
		return
	}
	c.x = make([]float64, b*c.d)
	c.a1 = make([]float64, b*c.h)
	c.r1 = make([]float64, b*c.h)
	c.a2 = make([]float64, b*c.h)
	c.r2 = make([]float64, b*c.h)
	c.out = make([]float64, b)
	c.dOut = make([]float64, b)
	c.dr2 = make([]float64, b*c.h)
	c.dr1 = make([]float64, b*c.h)
}

// forward evaluates the logits of the rows idx of data into c.out.
func (c *mlp) forward(data []float64, idx []int) {
	b := len(idx)
	c.ensure(b)
	for i, j := range idx {
		copy(c.x[i*c.d:(i+1)*c.d], data[j*c.d:(j+1)*c.d])
	}
	c.l1.Forward(c.p, c.x[:b*c.d], c.a1[:b*c.h], b)
	nn.ReLU(c.r1[:b*c.h], c.a1[:b*c.h])
	c.l2.Forward(c.p, c.r1[:b*c.h], c.a2[:b*c.h], b)
	nn.ReLU(c.r2[:b*c.h], c.a2[:b*c.h])
	c.l3.Forward(c.p, c.r2[:b*c.h], c.out[:b], b)
}

// step computes the mean cross-entropy of the batch plus the L2 penalty,
// its gradient into c.g, and returns the loss.
func (c *mlp) step(data, label []float64, idx []int, alpha float64) float64 {
	b := len(idx)
	c.forward(data, idx)
	loss := 0.0
	for i, j := range idx {
		z := c.out[i]
		y := label[j]
		// log(1 + e^z) − y z, stably.
		sp := math.Max(z, 0) + math.Log1p(math.Exp(-math.Abs(z)))
		loss += sp - y*z
		c.dOut[i] = (1/(1+math.Exp(-z)) - y) / float64(b)
	}
	loss /= float64(b)
	clear(c.g)
	c.l3.Backward(c.p, c.g, c.r2[:b*c.h], c.dOut[:b], c.dr2[:b*c.h], b)
	nn.ReLUBackward(c.dr2[:b*c.h], c.dr2[:b*c.h], c.a2[:b*c.h])
	c.l2.Backward(c.p, c.g, c.r1[:b*c.h], c.dr2[:b*c.h], c.dr1[:b*c.h], b)
	nn.ReLUBackward(c.dr1[:b*c.h], c.dr1[:b*c.h], c.a1[:b*c.h])
	c.l1.Backward(c.p, c.g, c.x[:b*c.d], c.dr1[:b*c.h], nil, b)
	if alpha > 0 {
		// scikit-learn's penalty 0.5·α‖W‖²/b on the weights (not biases).
		pen := 0.0
		for _, l := range []nn.Linear{c.l1, c.l2, c.l3} {
			w := c.p[l.Off : l.Off+l.In*l.Out]
			gw := c.g[l.Off : l.Off+l.In*l.Out]
			for k, v := range w {
				pen += v * v
				gw[k] += alpha * v / float64(b)
			}
		}
		loss += 0.5 * alpha * pen / float64(b)
	}
	return loss
}

func (c *mlp) fit(data, label []float64, train []int, opt C2STOptions, r *rand.Rand) {
	ad, _ := optim.NewAdamW(len(c.p), optim.AdamWConfig{LearningRate: opt.LearningRate})
	idx := append([]int(nil), train...)
	bs := min(opt.BatchSize, len(idx))
	best := math.Inf(1)
	bad := 0
	for ep := 0; ep < opt.MaxEpochs; ep++ {
		r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		tot := 0.0
		for lo := 0; lo < len(idx); lo += bs {
			hi := min(lo+bs, len(idx))
			l := c.step(data, label, idx[lo:hi], opt.L2)
			tot += l * float64(hi-lo)
			ad.Step(c.p, c.g)
		}
		tot /= float64(len(idx))
		if tot > best-opt.Tol {
			bad++
		} else {
			bad = 0
		}
		if tot < best {
			best = tot
		}
		if bad >= opt.NoChange {
			break
		}
	}
}

func (c *mlp) accuracy(data, label []float64, test []int) float64 {
	correct := 0
	const chunk = 512
	for lo := 0; lo < len(test); lo += chunk {
		hi := min(lo+chunk, len(test))
		c.forward(data, test[lo:hi])
		for i, j := range test[lo:hi] {
			pred := 0.0
			if c.out[i] > 0 {
				pred = 1
			}
			if pred == label[j] {
				correct++
			}
		}
	}
	return float64(correct) / float64(len(test))
}
