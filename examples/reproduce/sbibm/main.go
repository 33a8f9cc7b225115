// Command sbibm runs amortized neural posterior estimation (one round of
// SPPE without a mechanism: plain NPE) on four tasks of the sbibm
// benchmark (Lueckmann et al. 2021) — two moons, Gaussian linear, SLCP and
// Gaussian mixture — and scores the posterior at each of the benchmark's
// observations against its reference samples with the benchmark's C2ST.
//
// For every task and simulation budget N it draws N pairs (θ, x) from the
// prior and the simulator, trains one posterior flow on them with the
// package defaults (sbi.Config.DefaultFlow: the sbi package's neural
// spline flow, 5 layers of 2 residual blocks of 50 units, after a learned
// location and scale of θ that follow the data; sbi.DefaultTrain: batches
// of 50, learning rate 5·10⁻⁴, early stopping with patience 20 and the
// parameters' moving average), conditions the amortized posterior on each
// observation (sbi.Posterior.At) and draws -samples samples there. The
// table gives the C2ST averaged over the observations and the training
// time, wall and process CPU (the CPU time does not depend on how many
// cores were free).
//
// Side by side with the sbi package: -out DIR writes the simulations as
// DIR/<task>_<N>_sims.csv (θ columns, then x columns); peer_sbi.py (in
// this directory) trains sbi's NPE (v0.22, density_estimator="nsf") on
// the same file and writes its samples as <task>_<N>_sbi_o<k>.csv and its
// training wall and CPU time as <task>_<N>_sbi_time.txt; -peer DIR then scores those
// samples with the same C2ST and adds them to the table
// (-simulate-only writes the simulations without training). -shift sets
// sbi.Config.RegressionShift of our amortized NPE: auto (the default: the
// package's rule, which of these tasks leaves the shift out on SLCP only,
// the one with a box prior of 5 or more dimensions), on or off. -out also
// draws, for every task and budget, the corner plot of our posterior at
// observation 1 over the reference samples (<task>_<N>_o1.svg and .png),
// and the C2ST against the budget for every task (sbibm_c2st.svg and .png):
//
//	go run ./examples/reproduce/sbibm -simulate-only -out /tmp/sbibm
//	python3 examples/reproduce/sbibm/peer_sbi.py /tmp/sbibm     # sbi v0.22 on the same simulations
//	go run ./examples/reproduce/sbibm -peer /tmp/sbibm          # both tools, one table
//
// The reference files are read from -dir (default: $PRIVINFER_SBIBM,
// $PRIVINFER_SHARED/sbibm, or ../shared/sbibm next to the repository); the
// program fails without them. -quick runs two moons at 1,000 simulations
// on 2 observations with 2,000 draws.
//
// # Sequential SNPE and SNLE
//
// -sequential snpe,snle runs, for every task and observation 1..-obs, our
// SNPE (sbi.SPPE without a mechanism: SNPE-C with the atomic loss) and
// SNLE (sbi.SPLE without a mechanism: a likelihood flow, with the
// context-dependent affine layer of sbi.Config.DefaultFlow, and adaptive
// Metropolis chains on the posterior) for -rounds rounds of
// -sims-per-round simulations with the package defaults, and gives the
// C2ST of the final posterior (-samples draws) against the reference, the
// training time (CPU of the process over all threads, and wall time,
// summed over the rounds) and the total time. A sequential method draws
// every round's parameters from its own proposal, so the two tools cannot
// share simulations: peer_sbi_seq.py runs sbi v0.22's SNPE-C and SNLE
// with simulators of its own and writes
// <task>_<method>_<R>x<N>_o<k>_sbi.csv and <…>_sbi_time.txt, which -peer
// DIR scores with the same C2ST. With -out every result is kept
// (<task>_<method>_<R>x<N>_o<k>_ours.csv and .txt; _ours_affine,
// _ours_plain and _ours_choose where -affine or -choose-affine change the
// package's flow) and a later run with the
// same -seed and -samples reads it instead of training, so a long run can
// be resumed or split by -tasks and -obs (the peer script likewise keeps
// its finished outputs). -out also draws the corner plot of every task and
// method's posterior at observation 1 over the reference, with sbi's draws
// when -peer has them (seq_<task>_<method>_o1.svg and .png), and each
// method's C2ST against the observation for every task and tool
// (seq_<method>_c2st.svg and .png). The comparison of 10 rounds of 1,000 simulations
// at observations 1–3 of the four tasks:
//
//	go run ./examples/reproduce/sbibm -sequential snpe,snle -rounds 10 -sims-per-round 1000 -obs 3 -out /tmp/sbibm-seq
//	python3 examples/reproduce/sbibm/peer_sbi_seq.py /tmp/sbibm-seq --obs 3 --rounds 10 --sims-per-round 1000
//	go run ./examples/reproduce/sbibm -sequential snpe,snle -rounds 10 -sims-per-round 1000 -obs 3 -out /tmp/sbibm-seq -peer /tmp/sbibm-seq
//
// (the last command only reads the cached results and scores the peer's).
// The CPU comparison runs both tools on one thread: the peer scripts set
// torch's threads to 1 by default (on two, torch's CPU time includes the
// threads' waiting: about 1.7 times the one-thread time on two moons'
// SNPE), and GOMAXPROCS=1 does the same for ours (our draws do not depend
// on it).
// -chains N runs SNLE with N adaptive Metropolis chains instead of the
// package default (sbibm's SNLE runs 100 slice-sampling chains); its
// cells are kept as <…>_ours_c<N>. -carry-chains sets
// sbi.Config.CarryChains for SNLE: the chains that draw each round's
// parameters stay in their modes and, from round 4's parameters on,
// continue from the previous round's, as sbi's do (sbibm's SNLE resamples
// its chains' starts after rounds 1 and 2 and continues them with
// "latest_sample" from round 3 on); its cells are kept as
// <…>_ours[_c<N>]_carry.
// -proposals also writes, for every cell it trains, the parameters that
// rounds 2..R simulated (the posterior draws of the round before) as
// <cell>_ours_proposals.csv with columns round, θ: with the peer's
// <cell>_sims.csv they show where each tool's rounds put their
// simulations (SLCP's sign quadrants of θ₃ and θ₄, say).
// With -checkpoints DIR every cell also keeps its state in DIR after each
// round, and an interrupted cell continues from its last round when run
// again, with the same draws as an uninterrupted run; its training and
// total CPU times then add the earlier processes' (recorded beside the
// checkpoint in a .times file) to its own.
// With -quick the sequential mode runs 2 rounds of 500 simulations.
//
// SNLE's posterior draws come from adaptive Metropolis chains that do not
// cross between the two crescents of the two-moons posterior, so the
// chains (20 by default) start at candidates importance-resampled by
// posterior weight and are then shared out between the modes they find in
// proportion to the modes' estimated masses (see flow/sbi's documentation;
// sbi samples with 100 slice-sampling chains). The results, and a quick
// two-moons check at 2 rounds of 500 simulations, are in
// examples/reproduce/sbibm/RESULTS.md.
package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/plot"
	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/flow/metrics"
	"github.com/privinfer/privinfer/flow/sbi"
	"github.com/privinfer/privinfer/simulate/sbibm"
)

type config struct {
	cli.Common
	tasks   []string
	sims    []int
	obs     int
	samples int
	dir     string
	peer    string
	simOnly bool
	float32 bool          // -float32: flow.TrainConfig.Float32
	affine  optBool       // -affine: flow.Config.ContextAffine (unset: the package default)
	choose  bool          // -choose-affine: with and without it, by validation loss
	shift   sbi.ShiftMode // -shift: sbi.Config.RegressionShift of amortized NPE
	seq     *seqConfig    // -sequential and its flags (sequential.go)
}

func main() { cli.Program("sbibm", parse, run) }

func parse(fs *flag.FlagSet, args []string) (config, error) {
	var c config
	tasks := fs.String("tasks", strings.Join(sbibm.Names(), ","), "comma-separated tasks")
	sims := fs.String("sims", "1000,10000", "comma-separated simulation budgets")
	fs.IntVar(&c.obs, "obs", sbibm.Observations, "observations 1..obs to score")
	fs.IntVar(&c.samples, "samples", 10000, "posterior draws per observation (the C2ST uses as many reference draws)")
	fs.StringVar(&c.dir, "dir", "", "sbibm reference directory (default $PRIVINFER_SBIBM, $PRIVINFER_SHARED/sbibm or ../shared/sbibm)")
	fs.StringVar(&c.peer, "peer", "", "directory of the peer's samples written by peer_sbi.py, scored beside ours")
	fs.Var(&c.affine, "affine", "give the flow a context-dependent affine layer before the first coupling (flow.Config.ContextAffine); -affine=false removes it (default: sbi.Config.DefaultFlow's choice: on for amortized NPE's and SNLE's flows, off for sequential SNPE's)")
	fs.BoolVar(&c.choose, "choose-affine", false, "train the flow with and without the context-dependent affine layer and keep the one of lower validation loss (sbi.Config.FlowCandidates)")
	fs.BoolVar(&c.float32, "float32", false, "train with float32 products and splines in the flow's training steps (flow.TrainConfig.Float32)")
	shift := fs.String("shift", "auto", "amortized NPE's regression shift, sbi.Config.RegressionShift: auto (the package's rule), on or off")
	fs.BoolVar(&c.simOnly, "simulate-only", false, "only write the simulations to -out (for the peer), without training")
	common := cli.Register(fs, 1)
	c.seq = registerSequential(fs)
	if err := cli.Parse(fs, args); err != nil {
		return c, err
	}
	if err := cli.QuickDefaults(fs, common.Quick, map[string]string{
		"tasks": sbibm.TwoMoons, "sims": "1000", "obs": "2", "samples": "2000"}); err != nil {
		return c, err
	}
	c.Common = *common
	for _, t := range strings.Split(*tasks, ",") {
		if _, err := sbibm.New(strings.TrimSpace(t)); err != nil {
			return c, cli.Usagef("-tasks: %v", err)
		}
		c.tasks = append(c.tasks, strings.TrimSpace(t))
	}
	for _, s := range strings.Split(*sims, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 20 {
			return c, cli.Usagef("-sims: %q is not a budget of at least 20 simulations", s)
		}
		c.sims = append(c.sims, n)
	}
	switch *shift {
	case "auto":
		c.shift = sbi.ShiftAuto
	case "on":
		c.shift = sbi.ShiftOn
	case "off":
		c.shift = sbi.ShiftOff
	default:
		return c, cli.Usagef("-shift must be auto, on or off, got %q", *shift)
	}
	switch {
	case c.affine.set && c.choose:
		return c, cli.Usagef("-affine and -choose-affine exclude each other (-choose-affine tries the layer itself)")
	case c.obs < 1 || c.obs > sbibm.Observations:
		return c, cli.Usagef("-obs must be in [1, %d], got %d", sbibm.Observations, c.obs)
	case c.samples < 100 || c.samples > 10000:
		return c, cli.Usagef("-samples must be in [100, 10000] (the reference has 10,000), got %d", c.samples)
	}
	if err := c.seq.check(fs, c.Quick, c.simOnly); err != nil {
		return c, err
	}
	if c.dir == "" {
		c.dir = sbibm.Dir()
	}
	if c.dir == "" {
		if p, ok := cli.SharedFile("sbibm/two_moons/task.py.txt"); ok {
			c.dir = filepath.Dir(filepath.Dir(p))
		}
	}
	return c, nil
}

// flows returns the flow architecture (nil: sbi's default) and the
// candidate architectures of method's flow ("npe" for amortized NPE,
// "snpe" or "snle"), of dimension dim and context dimension ctx: with
// -affine the default with flow.Config.ContextAffine as given, with
// -choose-affine the default and, as the candidate, the default with the
// layer switched.
func (c config) flows(method string, dim, ctx int) (*flow.Config, []flow.Config) {
	if !c.affine.set && !c.choose {
		return nil, nil
	}
	fc := c.defaultFlow(method, dim, ctx)
	if c.choose {
		fc.ContextAffine = !fc.ContextAffine
		return nil, []flow.Config{fc}
	}
	fc.ContextAffine = c.affine.v
	return &fc, nil
}

// hasAffine reports whether method's flow has flow.Config.ContextAffine:
// -affine's value when given, the package default otherwise.
func (c config) hasAffine(method string) bool {
	if c.affine.set {
		return c.affine.v
	}
	return c.defaultAffine(method)
}

// defaultAffine reports whether the package's default flow for method has
// the context-dependent affine layer (SNLE's and amortized NPE's have it,
// sequential SNPE's has not).
func (c config) defaultAffine(method string) bool {
	return c.defaultFlow(method, 1, 1).ContextAffine
}

// defaultFlow returns sbi.Config.DefaultFlow for method's flow with this
// run's rounds: one for amortized NPE, -rounds for the sequential methods
// (the package default without -sequential's flags).
func (c config) defaultFlow(method string, dim, ctx int) flow.Config {
	var cfg sbi.Config
	switch {
	case method == "npe":
		cfg.Rounds = 1
	case c.seq != nil:
		cfg.Rounds = c.seq.rounds
	}
	return cfg.DefaultFlow(role(method), dim, ctx)
}

// role returns the role of method's flow: SNLE's models the data given θ,
// NPE's and SNPE's θ given the data.
func role(method string) sbi.Role {
	if method == "snle" {
		return sbi.LikelihoodFlow
	}
	return sbi.PosteriorFlow
}

// optBool is a boolean flag that knows whether it was given: -name sets
// it, -name=false clears it, and without either the default applies.
type optBool struct{ set, v bool }

// String returns the value, or "default" when the flag was not given.
func (b *optBool) String() string {
	if b == nil || !b.set {
		return "default"
	}
	return strconv.FormatBool(b.v)
}

// Set parses a boolean as strconv.ParseBool does.
func (b *optBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true or false")
	}
	b.set, b.v = true, v
	return nil
}

// IsBoolFlag lets the flag be given without a value.
func (*optBool) IsBoolFlag() bool { return true }

// chosen describes the architecture kept by -choose-affine in round 1;
// def tells whether the default flow (index 0; the candidate is 1) has the
// affine layer.
func chosen(rr sbi.RoundResult, def bool) string {
	if rr.Candidates == nil {
		return ""
	}
	with, without := rr.Candidates[0], rr.Candidates[1]
	if !def {
		with, without = without, with
	}
	name := map[bool]string{true: "with", false: "without"}[keptAffine(rr, def)]
	return fmt.Sprintf(", kept the flow %s the affine layer (validation loss %.4f without, %.4f with)", name, without, with)
}

// keptAffine reports whether the flow -choose-affine kept in round 1 has
// the context-dependent affine layer; def tells whether the default flow
// (index 0) has it.
func keptAffine(rr sbi.RoundResult, def bool) bool {
	return (rr.Selected == 0) == def
}

// result is one task and budget.
type result struct {
	task       string
	n          int
	ours, peer []float64 // C2ST per observation (peer nil without -peer)
	train      time.Duration
	trainCPU   time.Duration // process CPU time of the training; 0 when unknown
	epochs     int
	kept       string  // with -choose-affine: the kept flow ("affine" or "plain", without the layer)
	peerTrain  float64 // seconds; NaN when unknown
	peerCPU    float64 // CPU seconds; NaN when unknown
	peerEpochs int
	first      *privinfer.Draws // our draws at observation 1
	firstRef   *privinfer.Draws // the reference draws at observation 1
}

func run(ctx context.Context, c config, stdout, stderr io.Writer) error {
	if c.seq.on() {
		return runSequential(ctx, c, stdout, stderr)
	}
	if c.simOnly && c.Out == "" {
		return cli.Usagef("-simulate-only needs -out")
	}
	if c.dir == "" && !c.simOnly {
		return errors.New("no sbibm reference directory: set -dir or $PRIVINFER_SBIBM")
	}
	if err := c.Prepare(); err != nil {
		return err
	}
	prog := cli.NewProgress(stderr)
	var results []*result
	for _, name := range c.tasks {
		for _, n := range c.sims {
			res, err := runTask(ctx, c, name, n, prog)
			if err != nil {
				return fmt.Errorf("%s, %d simulations: %w", name, n, err)
			}
			if res != nil {
				results = append(results, res)
			}
		}
	}
	if c.simOnly {
		fmt.Fprintf(stdout, "simulations written to %s\n", c.Out)
		return nil
	}
	report(stdout, c, results)
	return writePlots(c, results)
}

// writePlots draws, with -out, the corner plot of our posterior at
// observation 1 over the reference for every task and budget, and the
// C2ST averaged over the observations against the budget for every task.
func writePlots(c config, results []*result) error {
	if c.Out == "" || len(results) == 0 {
		return nil
	}
	var series []plot.Series
	index := map[string]int{}
	for _, r := range results {
		cfg := cornerConfig(fmt.Sprintf("%s, %d sims, obs. 1 (C2ST %.3f)", r.task, r.n, r.ours[0]), "NPE (ours)", r.firstRef)
		if _, err := c.WriteCorner(fmt.Sprintf("%s_%d_o1", r.task, r.n), r.first, cfg); err != nil {
			return err
		}
		k, ok := index[r.task]
		if !ok {
			k = len(series)
			index[r.task] = k
			series = append(series, plot.Series{Name: r.task})
		}
		m, se := cli.MeanSE(r.ours)
		s := &series[k]
		s.X, s.Y = append(s.X, float64(r.n)), append(s.Y, m)
		s.Lo, s.Hi = append(s.Lo, m-se), append(s.Hi, m+se)
	}
	cv, err := plot.LineChart{Title: fmt.Sprintf("sbibm: C2ST of NPE against the reference (mean ± s.e. over %d observations; 0.5: indistinguishable)", c.obs),
		XLabel: "simulations", YLabel: "C2ST", LogX: true, Series: series, HLines: []float64{0.5}}.Draw()
	if err != nil {
		return err
	}
	_, err = c.WritePlot("sbibm_c2st", cv)
	return err
}

// cornerConfig returns the corner plot settings of our draws (labelled
// label) over the reference ref, with smaller panels above 5 dimensions.
func cornerConfig(title, label string, ref *privinfer.Draws) privinfer.CornerConfig {
	cfg := privinfer.CornerConfig{Title: title, Label: label, Compare: []*privinfer.Draws{ref},
		CompareLabels: []string{"reference"}, MaxPoints: 1000}
	if ref.Dim > 5 {
		cfg.Panel = 110
	}
	return cfg
}

// stream returns the generator of a task and budget.
func stream(seed uint64, name string, n int) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", name, n)
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

func runTask(ctx context.Context, c config, name string, n int, prog *cli.Progress) (*result, error) {
	task, err := sbibm.New(name)
	if err != nil {
		return nil, err
	}
	d, sd := task.Dim(), task.DataDim()
	res := &result{task: name, n: n, peerTrain: math.NaN(), peerCPU: math.NaN()}

	// The simulations: n prior draws and their data, written for the peer.
	r := stream(c.Seed, name, n)
	sims := &sbi.Simulations{Theta: make([]float64, n*d), Stats: make([]float64, n*sd)}
	for i := range n {
		th := sims.Theta[i*d : (i+1)*d]
		task.Prior().Sample(r, th)
		if err := task.Simulator().Simulate(r, th, sims.Stats[i*sd:(i+1)*sd]); err != nil {
			return nil, err
		}
	}
	if _, err := c.WriteFile(fmt.Sprintf("%s_%d_sims.csv", name, n), func(w io.Writer) error {
		return writeSims(w, task, sims, n)
	}); err != nil {
		return nil, err
	}
	if c.simOnly {
		return nil, nil
	}

	// One round of NPE on them, at observation 1; the posterior is
	// amortized and At moves it to the other observations.
	x1, err := task.Observation(c.dir, 1)
	if err != nil {
		return nil, err
	}
	p, err := task.Problem(x1)
	if err != nil {
		return nil, err
	}
	prog.Printf("%s: training on %d simulations", name, n)
	var out *sbi.SPPEResult
	cpu0, cpuOK := cli.ProcessCPU()
	err = prog.While(3*time.Second, fmt.Sprintf("%s, %d simulations: training", name, n), func() (err error) {
		tc := sbi.DefaultTrain()
		tc.Float32 = c.float32
		fc, cand := c.flows("npe", d, sd)
		out, err = sbi.SPPE(ctx, p, sbi.Config{Rounds: 1, SimsPerRound: n, Simulations: sims, PosteriorSamples: 1, Seed: c.Seed, Train: &tc, Flow: fc, FlowCandidates: cand,
			RegressionShift: c.shift, Progress: prog.Every(3*time.Second, fmt.Sprintf("%s, %d simulations", name, n))})
		return err
	})
	if err != nil {
		return nil, err
	}
	res.train, res.epochs = out.TrainTime, out.Rounds[0].Epochs
	if rr := out.Rounds[0]; rr.Candidates != nil {
		res.kept = map[bool]string{true: "affine", false: "plain"}[keptAffine(rr, c.defaultAffine("npe"))]
	}
	if cpu1, ok := cli.ProcessCPU(); ok && cpuOK {
		res.trainCPU = cpu1 - cpu0
	}
	prog.Printf("%s: %d simulations, %d epochs in %s%s", name, n, res.epochs, res.train.Round(time.Millisecond), chosen(out.Rounds[0], c.defaultAffine("npe")))

	for k := 1; k <= c.obs; k++ {
		xk, err := task.Observation(c.dir, k)
		if err != nil {
			return nil, err
		}
		ref, err := task.Reference(c.dir, k)
		if err != nil {
			return nil, err
		}
		post, err := out.Posterior.At(xk)
		if err != nil {
			return nil, err
		}
		draws := make([]float64, c.samples*d)
		if err := post.Sample(stream(c.Seed^uint64(k), name, n), c.samples, draws); err != nil {
			return nil, err
		}
		if _, err := c.WriteFile(fmt.Sprintf("%s_%d_ours_o%d.csv", name, n, k), func(w io.Writer) error {
			return (&privinfer.Draws{Names: task.ParamNames(), Dim: d, Theta: draws}).WriteCSV(w)
		}); err != nil {
			return nil, err
		}
		if k == 1 {
			res.first = &privinfer.Draws{Names: task.ParamNames(), Dim: d, Theta: draws}
			res.firstRef = ref
		}
		var score float64
		err = prog.While(3*time.Second, fmt.Sprintf("%s: %d simulations, observation %d: C2ST", name, n, k), func() (err error) {
			score, err = c2st(draws, ref, d, c.samples, c.Seed)
			return err
		})
		if err != nil {
			return nil, err
		}
		res.ours = append(res.ours, score)
		if c.peer != "" {
			ps, err := peerScore(c, name, n, k, ref, d)
			if err != nil {
				return nil, err
			}
			res.peer = append(res.peer, ps)
		}
		prog.Printf("%s: %d simulations, observation %d: C2ST %.3f", name, n, k, score)
	}
	if c.peer != "" {
		res.peerTrain, res.peerCPU, res.peerEpochs = peerTime(c.peer, name, n)
	}
	return res, nil
}

// c2st scores m draws (m×d) against the first m reference draws with the
// sbibm protocol.
func c2st(draws []float64, ref *privinfer.Draws, d, m int, seed uint64) (float64, error) {
	if ref.Len() < m {
		return 0, fmt.Errorf("the reference has %d draws, fewer than %d", ref.Len(), m)
	}
	return metrics.C2ST(draws[:m*d], ref.Theta[:m*d], d, metrics.C2STOptions{Seed: seed})
}

// writeSims writes the simulations as CSV: a header (the θ names, then
// x[0], …) and one row per pair.
func writeSims(w io.Writer, task *sbibm.Task, sims *sbi.Simulations, n int) error {
	d, sd := task.Dim(), task.DataDim()
	cw := csv.NewWriter(w)
	header := task.ParamNames()
	for j := range sd {
		header = append(header, fmt.Sprintf("x[%d]", j))
	}
	cw.Write(header)
	row := make([]string, d+sd)
	for i := range n {
		for j := range d {
			row[j] = strconv.FormatFloat(sims.Theta[i*d+j], 'g', -1, 64)
		}
		for j := range sd {
			row[d+j] = strconv.FormatFloat(sims.Stats[i*sd+j], 'g', -1, 64)
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// peerScore reads the peer's draws at observation k and scores them like
// ours.
func peerScore(c config, name string, n, k int, ref *privinfer.Draws, d int) (float64, error) {
	draws, err := readDraws(filepath.Join(c.peer, fmt.Sprintf("%s_%d_sbi_o%d.csv", name, n, k)), d, c.samples)
	if err != nil {
		return 0, err
	}
	return c2st(draws.Theta, ref, d, c.samples, c.Seed)
}

// readDraws reads a draws CSV file and checks that it holds at least n
// draws of dimension d.
func readDraws(path string, d, n int) (*privinfer.Draws, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	draws, err := privinfer.ReadCSV(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if draws.Dim != d || draws.Len() < n {
		return nil, fmt.Errorf("%s: %d draws of dimension %d, want %d of dimension %d", path, draws.Len(), draws.Dim, n, d)
	}
	return draws, nil
}

// peerTime reads the training wall and CPU seconds and the epochs
// peer_sbi.py recorded ("train_s=… cpu_s=… epochs=…"); NaN and 0 when
// absent.
func peerTime(dir, name string, n int) (secs, cpu float64, epochs int) {
	secs, cpu = math.NaN(), math.NaN()
	f, err := os.Open(filepath.Join(dir, fmt.Sprintf("%s_%d_sbi_time.txt", name, n)))
	if err != nil {
		return secs, cpu, 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		for _, field := range strings.Fields(s.Text()) {
			k, v, ok := strings.Cut(field, "=")
			switch {
			case !ok:
			case k == "train_s":
				secs, _ = strconv.ParseFloat(v, 64)
			case k == "cpu_s":
				cpu, _ = strconv.ParseFloat(v, 64)
			case k == "epochs":
				epochs, _ = strconv.Atoi(v)
			}
		}
	}
	return secs, cpu, epochs
}

func report(w io.Writer, c config, results []*result) {
	fmt.Fprintf(w, "### Amortized NPE on sbibm tasks (C2ST against the reference, mean over observations 1–%d, %d draws each; seed %d)\n", c.obs, c.samples, c.Seed)
	t := cli.Table{Header: []string{"task", "simulations", "C2ST ours", "train ours", "CPU ours", "epochs"}}
	if c.choose {
		t.Header = append(t.Header, "kept flow")
	}
	if c.peer != "" {
		t.Header = append(t.Header, "C2ST sbi", "train sbi", "CPU sbi", "epochs sbi", "time ours/sbi", "CPU ours/sbi")
	}
	for _, r := range results {
		m, se := cli.MeanSE(r.ours)
		cpu := math.NaN()
		if r.trainCPU > 0 {
			cpu = r.trainCPU.Seconds()
		}
		row := []string{r.task, strconv.Itoa(r.n), fmt.Sprintf("%.3f ± %.3f", m, se),
			r.train.Round(100 * time.Millisecond).String(), seconds(cpu), strconv.Itoa(r.epochs)}
		if c.choose {
			row = append(row, r.kept)
		}
		if c.peer != "" {
			pm, pse := cli.MeanSE(r.peer)
			row = append(row, fmt.Sprintf("%.3f ± %.3f", pm, pse), seconds(r.peerTrain), seconds(r.peerCPU),
				strconv.Itoa(r.peerEpochs), cli.F(r.train.Seconds()/r.peerTrain, 2), cli.F(cpu/r.peerCPU, 2))
		}
		t.Add(row...)
	}
	t.Markdown(w)
	fmt.Fprintln(w, "Per observation (C2ST 0.5: indistinguishable from the reference):")
	d := cli.Table{Header: []string{"task", "simulations", "tool"}}
	for k := 1; k <= c.obs; k++ {
		d.Header = append(d.Header, strconv.Itoa(k))
	}
	for _, r := range results {
		add := func(tool string, v []float64) {
			row := []string{r.task, strconv.Itoa(r.n), tool}
			for _, x := range v {
				row = append(row, cli.F(x, 3))
			}
			d.Add(row...)
		}
		add("ours", r.ours)
		if r.peer != nil {
			add("sbi", r.peer)
		}
	}
	d.Markdown(w)
}
