package main

// The sequential mode: -sequential snpe,snle runs our SNPE (sbi.SPPE
// without a mechanism: SNPE-C/APT) and SNLE (sbi.SPLE without a
// mechanism) for -rounds rounds of -sims-per-round simulations on each
// task and observation 1..-obs, with the package defaults, and scores
// the final posterior against the reference with the same C2ST as the
// amortized mode. See the program documentation in main.go.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/plot"
	"github.com/privinfer/privinfer/flow/sbi"
	"github.com/privinfer/privinfer/simulate/sbibm"
)

// seqConfig holds the flags of the sequential mode.
type seqConfig struct {
	raw      string
	methods  []string
	rounds   int
	perRound int
	chains   int // SNLE's MCMC chains; 0 is the package default
	// carry continues SNLE's chains from round to round
	// (sbi.Config.CarryChains).
	carry bool
	// proposals writes every trained cell's proposed parameters.
	proposals bool
	// ckpt is the -checkpoints folder: every cell keeps its state there
	// after each round and continues from it when run again.
	ckpt *string
	// afterRound, when set (by tests), is called after the ledger of a
	// checkpointed cell has recorded a round.
	afterRound func(round int)
}

// seqMethods are the sequential methods, in the order they run.
var seqMethods = []string{"snpe", "snle"}

// registerSequential adds -sequential, -rounds and -sims-per-round to fs.
func registerSequential(fs *flag.FlagSet) *seqConfig {
	s := &seqConfig{}
	fs.StringVar(&s.raw, "sequential", "", "comma-separated sequential methods (snpe, snle) to run instead of amortized NPE")
	fs.IntVar(&s.rounds, "rounds", 10, "rounds of the sequential methods")
	fs.IntVar(&s.perRound, "sims-per-round", 1000, "simulations per round of the sequential methods")
	s.ckpt = cli.Checkpoints(fs)
	fs.IntVar(&s.chains, "chains", 0, "SNLE's adaptive Metropolis chains (sbi.Config.Chains; 0: the package default, 20 up to 8 parameters; sbibm's SNLE runs 100 slice-sampling chains)")
	fs.BoolVar(&s.carry, "carry-chains", false, "SNLE's chains continue from round to round, keeping the modes' shares of chains (sbi.Config.CarryChains; sbi's SNLE does so)")
	fs.BoolVar(&s.proposals, "proposals", false, "write the parameters every trained cell proposed in rounds 2..rounds as <cell>_ours_proposals.csv (round, θ), as the peer's <cell>_sims.csv has sbi's")
	return s
}

// on reports whether the sequential mode was selected.
func (s *seqConfig) on() bool { return s != nil && s.raw != "" }

// check validates the sequential flags after parsing (-quick: 2 rounds of
// 500 simulations unless given).
func (s *seqConfig) check(fs *flag.FlagSet, quick, simOnly bool) error {
	if !s.on() {
		return nil
	}
	if err := cli.QuickDefaults(fs, quick, map[string]string{"rounds": "2", "sims-per-round": "500"}); err != nil {
		return err
	}
	for _, m := range strings.Split(s.raw, ",") {
		m = strings.ToLower(strings.TrimSpace(m))
		switch {
		case !slices.Contains(seqMethods, m):
			return cli.Usagef("-sequential: unknown method %q (want snpe or snle)", m)
		case slices.Contains(s.methods, m):
			return cli.Usagef("-sequential: method %q given twice", m)
		}
		s.methods = append(s.methods, m)
	}
	switch {
	case s.rounds < 1 || s.rounds > 100:
		return cli.Usagef("-rounds must be in [1, 100], got %d", s.rounds)
	case s.perRound < 20 || s.perRound > 1_000_000:
		return cli.Usagef("-sims-per-round must be in [20, 10⁶], got %d", s.perRound)
	case s.chains < 0 || s.chains > 1000:
		return cli.Usagef("-chains must be in [0, 1000], got %d", s.chains)
	case simOnly:
		return cli.Usagef("-simulate-only does not apply to -sequential (each tool simulates its own proposals)")
	}
	return cli.PrepareCheckpoints(*s.ckpt)
}

// seqRecord is one tool's outcome at one task, observation and method:
// the C2ST of its final posterior and its times in seconds, summed over
// the rounds (NaN when unknown).
type seqRecord struct {
	c2st                 float64
	trainCPU, trainWall  float64
	totalCPU, totalWall  float64
	epochs               int
	roundEpochs          string
	cached, peerNotFound bool
}

func noRecord() seqRecord {
	n := math.NaN()
	return seqRecord{c2st: n, trainCPU: n, trainWall: n, totalCPU: n, totalWall: n}
}

// seqResult is one task, observation and method.
type seqResult struct {
	task, method string
	obs          int
	ours, peer   seqRecord
	ref          *privinfer.Draws // the reference posterior at obs
}

// seqBase is the file-name stem of a task, method, budget and observation.
func seqBase(task, method string, rounds, perRound, obs int) string {
	return fmt.Sprintf("%s_%s_%dx%d_o%d", task, method, rounds, perRound, obs)
}

// ours is the file-name suffix of our results: _ours with the package's
// flow, _ours_affine or _ours_plain when -affine adds the context-dependent
// affine layer to a flow that does not have it by default (sequential
// SNPE's) or removes it from one that does (SNLE's), _ours_choose with
// -choose-affine, followed by _c<N> for SNLE with -chains N and by _carry
// for SNLE with -carry-chains, so that the variants' cached results are
// kept apart.
func (c config) ours(method string) string {
	s := "_ours"
	has, def := c.hasAffine(method), c.defaultAffine(method)
	switch {
	case has && !def:
		s = "_ours_affine"
	case !has && def:
		s = "_ours_plain"
	case c.choose:
		s = "_ours_choose"
	}
	if method == "snle" && c.seq != nil && c.seq.chains > 0 {
		s += fmt.Sprintf("_c%d", c.seq.chains)
	}
	if c.carries(method) {
		s += "_carry"
	}
	return s
}

// carries reports whether a cell of method runs with carried chains
// (-carry-chains acts on SNLE only).
func (c config) carries(method string) bool {
	return method == "snle" && c.seq != nil && c.seq.carry
}

// seqSeed is the training seed of a task, method and observation.
func seqSeed(seed uint64, task, method string, obs int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s/%s/%d", seed, task, method, obs)
	return h.Sum64()
}

func runSequential(ctx context.Context, c config, stdout, stderr io.Writer) error {
	if c.dir == "" {
		return errors.New("no sbibm reference directory: set -dir or $PRIVINFER_SBIBM")
	}
	if err := c.Prepare(); err != nil {
		return err
	}
	prog := cli.NewProgress(stderr)
	var results []*seqResult
	for _, name := range c.tasks {
		for k := 1; k <= c.obs; k++ {
			for _, m := range c.seq.methods {
				r, err := runSeqOne(ctx, c, name, m, k, prog)
				if err != nil {
					return fmt.Errorf("%s, %s, observation %d: %w", name, m, k, err)
				}
				results = append(results, r)
			}
		}
	}
	seqReport(stdout, c, results)
	return seqPlots(c, results)
}

// seqPlots draws, with -out, the corner plot of every task and method's
// final posterior at observation 1 over the reference (with sbi's draws
// when -peer has them), seq_<task>_<method>_o1.svg and .png, and for each
// method the C2ST of every task against the observation, ours and sbi's,
// seq_<method>_c2st.svg and .png.
func seqPlots(c config, results []*seqResult) error {
	if c.Out == "" || len(results) == 0 {
		return nil
	}
	charts := map[string][]plot.Series{}
	for _, r := range results {
		if math.IsNaN(r.ours.c2st) {
			continue
		}
		base := seqBase(r.task, r.method, c.seq.rounds, c.seq.perRound, r.obs)
		tools := []struct {
			name string
			rec  seqRecord
		}{{"ours", r.ours}, {"sbi", r.peer}}
		for _, tool := range tools {
			if math.IsNaN(tool.rec.c2st) {
				continue
			}
			name := r.task + " (" + tool.name + ")"
			series := charts[r.method]
			k := slices.IndexFunc(series, func(s plot.Series) bool { return s.Name == name })
			if k < 0 {
				series = append(series, plot.Series{Name: name})
				k = len(series) - 1
			}
			series[k].X = append(series[k].X, float64(r.obs))
			series[k].Y = append(series[k].Y, tool.rec.c2st)
			charts[r.method] = series
		}
		if r.obs != 1 {
			continue
		}
		d := r.ref.Dim
		ours, err := readDraws(c.Path(base+c.ours(r.method)+".csv"), d, c.samples)
		if err != nil {
			return err
		}
		cfg := cornerConfig(fmt.Sprintf("%s, %s, %d × %d sims, obs. 1 (C2ST %.3f)", r.task, strings.ToUpper(r.method), c.seq.rounds, c.seq.perRound, r.ours.c2st), "ours", r.ref)
		if !math.IsNaN(r.peer.c2st) {
			if peer, err := readDraws(filepath.Join(c.peer, base+"_sbi.csv"), d, c.samples); err == nil {
				cfg.Compare = append(cfg.Compare, peer)
				cfg.CompareLabels = append(cfg.CompareLabels, fmt.Sprintf("sbi (C2ST %.3f)", r.peer.c2st))
			}
		}
		if _, err := c.WriteCorner(fmt.Sprintf("seq_%s_%s_o1", r.task, r.method), ours, cfg); err != nil {
			return err
		}
	}
	for _, m := range c.seq.methods {
		series := charts[m]
		if len(series) == 0 {
			continue
		}
		cv, err := plot.LineChart{Title: fmt.Sprintf("sbibm: C2ST of %s (%d rounds × %d simulations) against the reference; 0.5: indistinguishable", strings.ToUpper(m), c.seq.rounds, c.seq.perRound),
			XLabel: "observation", YLabel: "C2ST", Series: series, HLines: []float64{0.5}}.Draw()
		if err != nil {
			return err
		}
		if _, err := c.WritePlot("seq_"+m+"_c2st", cv); err != nil {
			return err
		}
	}
	return nil
}

// cpuClock sums the process CPU time spent training, from the progress
// events of a run: a round trains from its "simulate" event to its last
// "epoch" event.
type cpuClock struct {
	mark, last, train time.Duration
	ok                bool
}

func (k *cpuClock) observe(e privinfer.Progress) {
	now, ok := cli.ProcessCPU()
	k.ok = ok
	switch e.Stage {
	case "simulate":
		k.mark, k.last = now, now
	case "epoch":
		k.last = now
	case "round":
		k.train += k.last - k.mark
	}
}

// cellTimes are a cell's training CPU, total CPU and total wall time in
// seconds, summed over its rounds so far.
type cellTimes struct{ TrainCPU, TotalCPU, TotalWall float64 }

// cellLedger keeps, beside a cell's checkpoint (the file path), the
// times the cell had spent when each of its rounds ended, so that a cell
// continued from its checkpoint reports the times of the whole run: sbi
// restores the rounds' wall times, but the CPU times are the processes'.
// The ledger is written after sbi has written the round's checkpoint.
type cellLedger struct {
	path   string
	rounds map[int]cellTimes
}

// loadLedger reads the ledger at path; a missing or unreadable ledger is
// empty (its times are then those of this process only).
func loadLedger(path string) *cellLedger {
	l := &cellLedger{path: path, rounds: map[int]cellTimes{}}
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &l.rounds)
	}
	return l
}

// record stores the times at the end of round and writes the ledger.
func (l *cellLedger) record(round int, t cellTimes) error {
	l.rounds[round] = t
	return cli.WriteAtomic(l.path, func(w io.Writer) error { return json.NewEncoder(w).Encode(l.rounds) })
}

func runSeqOne(ctx context.Context, c config, name, method string, k int, prog *cli.Progress) (*seqResult, error) {
	task, err := sbibm.New(name)
	if err != nil {
		return nil, err
	}
	d := task.Dim()
	base := seqBase(name, method, c.seq.rounds, c.seq.perRound, k)
	ref, err := task.Reference(c.dir, k)
	if err != nil {
		return nil, err
	}
	res := &seqResult{task: name, method: method, obs: k, ours: noRecord(), peer: noRecord(), ref: ref}
	if rec, ok := loadOurs(c, base, method); ok {
		res.ours = rec
		prog.Printf("%s, %s, observation %d: cached in %s (C2ST %.3f)", name, method, k, c.Path(base+c.ours(method)+".txt"), rec.c2st)
	} else if res.ours, err = trainSeq(ctx, c, task, method, k, base, ref, prog); err != nil {
		return nil, err
	}
	if c.peer != "" {
		if res.peer, err = peerSeq(c, base, ref, d); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// trainSeq runs our method at observation k, scores its final draws and
// writes them and the record with -out.
func trainSeq(ctx context.Context, c config, task *sbibm.Task, method string, k int, base string, ref *privinfer.Draws, prog *cli.Progress) (seqRecord, error) {
	rec := noRecord()
	name, d := task.Name(), task.Dim()
	xk, err := task.Observation(c.dir, k)
	if err != nil {
		return rec, err
	}
	p, err := task.Problem(xk)
	if err != nil {
		return rec, err
	}
	label := fmt.Sprintf("%s, %s, observation %d", name, method, k)
	clock := &cpuClock{}
	every := prog.Every(5*time.Second, label)
	tc := sbi.DefaultTrain()
	tc.Float32 = c.float32
	dim, ctxDim := task.Prior().Dim(), task.Simulator().StatDim()
	if method == "snle" {
		dim, ctxDim = ctxDim, dim // the likelihood flow models the data given θ
	}
	fc, cand := c.flows(method, dim, ctxDim)
	cpu0, _ := cli.ProcessCPU()
	wall0 := time.Now()
	ckpt := ""
	if c.seq.ckpt != nil {
		key := []any{name, k, c.seq.rounds, c.seq.perRound, c.seq.chains, c.samples, c.Seed, c.float32, c.hasAffine(method), c.choose}
		if c.seq.carry {
			key = append(key, "carry") // only then, so that earlier cells keep their files
		}
		ckpt = cli.CheckpointFile(*c.seq.ckpt, method, key...)
	}
	var ledger *cellLedger
	var before cellTimes // the times of earlier processes, from the ledger
	if ckpt != "" {
		ledger = loadLedger(ckpt + ".times")
	}
	var props []float64 // rows of round, θ: the parameters proposed for rounds 2..rounds
	cfg := sbi.Config{Rounds: c.seq.rounds, SimsPerRound: c.seq.perRound, PosteriorSamples: c.samples, Train: &tc,
		Flow: fc, FlowCandidates: cand, Checkpoint: ckpt,
		Seed: seqSeed(c.Seed, name, method, k), Chains: c.seq.chains, CarryChains: c.seq.carry,
		Progress: func(e privinfer.Progress) {
			clock.observe(e)
			every(e)
			switch {
			case ledger == nil:
			case e.Stage == "resume":
				before = ledger.rounds[e.Round]
			case e.Stage == "round" && e.Round < c.seq.rounds:
				now, _ := cli.ProcessCPU()
				if err := ledger.record(e.Round, cellTimes{TrainCPU: before.TrainCPU + clock.train.Seconds(),
					TotalCPU: before.TotalCPU + (now - cpu0).Seconds(), TotalWall: before.TotalWall + time.Since(wall0).Seconds()}); err != nil {
					prog.Printf("%s: round %d's times not recorded beside the checkpoint (a continued run reports less): %v", label, e.Round, err)
				}
				if c.seq.afterRound != nil {
					c.seq.afterRound(e.Round)
				}
			}
		}}
	if c.seq.proposals { // only then: a resumed run rebuilds every saved round's estimate for OnRound
		cfg.OnRound = func(round int, _ sbi.Estimate, dr *privinfer.Draws) {
			if round < c.seq.rounds {
				for i := range dr.Len() {
					props = append(append(props, float64(round+1)), dr.Row(i)...)
				}
			}
		}
	}
	var out *sbi.Result
	err = prog.While(5*time.Second, label, func() error {
		switch method {
		case "snpe":
			r, err := sbi.SPPE(ctx, p, cfg)
			if err != nil {
				return err
			}
			out = &r.Result
		default:
			r, err := sbi.SPLE(ctx, p, cfg)
			if err != nil {
				return err
			}
			out = &r.Result
		}
		return nil
	})
	if err != nil {
		return rec, err
	}
	cpu1, cpuOK := cli.ProcessCPU()
	rec.totalWall = before.TotalWall + time.Since(wall0).Seconds()
	rec.trainWall = out.TrainTime.Seconds()
	if cpuOK && clock.ok {
		rec.totalCPU, rec.trainCPU = before.TotalCPU+(cpu1-cpu0).Seconds(), before.TrainCPU+clock.train.Seconds()
	}
	if ledger != nil {
		_ = os.Remove(ledger.path) // sbi removed the finished run's checkpoint
	}
	var eps []string
	for _, r := range out.Rounds {
		rec.epochs += r.Epochs
		eps = append(eps, strconv.Itoa(r.Epochs))
	}
	rec.roundEpochs = strings.Join(eps, ",")
	err = prog.While(5*time.Second, label+": C2ST", func() (err error) {
		rec.c2st, err = c2st(out.Draws.Theta, ref, d, c.samples, c.Seed)
		return err
	})
	if err != nil {
		return rec, err
	}
	rec = rec.saved()
	prog.Printf("%s: C2ST %.3f, training %.1fs CPU (%.1fs wall), total %.1fs CPU%s", label, rec.c2st, rec.trainCPU, rec.trainWall, rec.totalCPU, chosen(out.Rounds[0], c.defaultAffine(method)))
	draws := &privinfer.Draws{Names: task.ParamNames(), Dim: d, Theta: out.Draws.Theta}
	if _, err := c.WriteFile(base+c.ours(method)+".csv", draws.WriteCSV); err != nil {
		return rec, err
	}
	if c.seq.proposals {
		rounds := &privinfer.Draws{Names: append([]string{"round"}, task.ParamNames()...), Dim: d + 1, Theta: props}
		if _, err := c.WriteFile(base+c.ours(method)+"_proposals.csv", rounds.WriteCSV); err != nil {
			return rec, err
		}
	}
	_, err = c.WriteFile(base+c.ours(method)+".txt", func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "c2st=%.6f %s seed=%d samples=%d%s\n", rec.c2st, rec.times(), c.Seed, c.samples, c.carried(method))
		return err
	})
	return rec, err
}

// carrySchedule names sbi.Config.CarryChains' schedule in a carried cell's
// record: its chains are carried from round 3's proposals on. Records
// written under the option's first schedule (from round 2's) lack it and
// are not read as results of this one.
const carrySchedule = "round3"

// carried is the field a cell's record adds for its carried chains
// (" carried_from=round3"), or "" for a cell without them.
func (c config) carried(method string) string {
	if c.carries(method) {
		return " carried_from=" + carrySchedule
	}
	return ""
}

// saved returns the record rounded as its file stores it (times to
// 0.01 s, the C2ST to 1e-6), so that a table printed from a fresh result
// and one read back from -out show the same digits.
func (r seqRecord) saved() seqRecord {
	round := func(x float64, digits int) float64 {
		v, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', digits, 64), 64)
		if err != nil { // NaN and ±Inf format and parse back; nothing else fails
			return x
		}
		return v
	}
	r.c2st = round(r.c2st, 6)
	r.trainCPU, r.trainWall = round(r.trainCPU, 2), round(r.trainWall, 2)
	r.totalCPU, r.totalWall = round(r.totalCPU, 2), round(r.totalWall, 2)
	return r
}

// times formats the record's times and epochs as key=value fields, the
// layout peer_sbi_seq.py writes.
func (r seqRecord) times() string {
	return fmt.Sprintf("train_cpu_s=%.2f train_wall_s=%.2f total_cpu_s=%.2f total_wall_s=%.2f epochs=%d rounds_epochs=%s",
		r.trainCPU, r.trainWall, r.totalCPU, r.totalWall, r.epochs, r.roundEpochs)
}

// readFields reads the key=value fields of a one-line record file.
func readFields(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	kv := map[string]string{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		for _, field := range strings.Fields(s.Text()) {
			if k, v, ok := strings.Cut(field, "="); ok {
				kv[k] = v
			}
		}
	}
	return kv, s.Err()
}

// parseRecord reads the times, epochs and (when present) the C2ST of a
// record; absent or malformed values stay NaN.
func parseRecord(kv map[string]string) seqRecord {
	r := noRecord()
	for key, dst := range map[string]*float64{"c2st": &r.c2st, "train_cpu_s": &r.trainCPU, "train_wall_s": &r.trainWall,
		"total_cpu_s": &r.totalCPU, "total_wall_s": &r.totalWall} {
		if v, err := strconv.ParseFloat(kv[key], 64); err == nil {
			*dst = v
		}
	}
	r.epochs, _ = strconv.Atoi(kv["epochs"])
	r.roundEpochs = kv["rounds_epochs"]
	return r
}

// loadOurs returns the record of an earlier run with the same seed and
// number of draws from -out (and, for carried chains, the same schedule),
// if there is one.
func loadOurs(c config, base, method string) (seqRecord, bool) {
	if c.Out == "" {
		return seqRecord{}, false
	}
	kv, err := readFields(c.Path(base + c.ours(method) + ".txt"))
	if err != nil || kv["seed"] != strconv.FormatUint(c.Seed, 10) || kv["samples"] != strconv.Itoa(c.samples) ||
		(c.carries(method) && kv["carried_from"] != carrySchedule) {
		return seqRecord{}, false
	}
	r := parseRecord(kv)
	r.cached = true
	return r, !math.IsNaN(r.c2st)
}

// peerSeq reads the peer's record and draws of one task, method and
// observation from -peer and scores the draws with our C2ST; the score is
// cached in -out, keyed by the draws file's size and modification time.
// Missing peer files leave the record NaN.
func peerSeq(c config, base string, ref *privinfer.Draws, d int) (seqRecord, error) {
	kv, err := readFields(filepath.Join(c.peer, base+"_sbi_time.txt"))
	if errors.Is(err, os.ErrNotExist) {
		r := noRecord()
		r.peerNotFound = true
		return r, nil
	}
	if err != nil {
		return noRecord(), err
	}
	rec := parseRecord(kv)
	path := filepath.Join(c.peer, base+"_sbi.csv")
	st, err := os.Stat(path)
	if err != nil {
		return rec, err
	}
	key := fmt.Sprintf("seed=%d samples=%d size=%d mtime=%d", c.Seed, c.samples, st.Size(), st.ModTime().UnixNano())
	cache := base + "_sbi_c2st.txt"
	if c.Out != "" {
		if kv, err := readFields(c.Path(cache)); err == nil && fmt.Sprintf("seed=%s samples=%s size=%s mtime=%s",
			kv["seed"], kv["samples"], kv["size"], kv["mtime"]) == key {
			if v, err := strconv.ParseFloat(kv["c2st"], 64); err == nil {
				rec.c2st, rec.cached = v, true
				return rec, nil
			}
		}
	}
	draws, err := readDraws(path, d, c.samples)
	if err != nil {
		return rec, err
	}
	if rec.c2st, err = c2st(draws.Theta, ref, d, c.samples, c.Seed); err != nil {
		return rec, err
	}
	_, err = c.WriteFile(cache, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "c2st=%.6f %s\n", rec.c2st, key)
		return err
	})
	return rec, err
}

// seconds formats a time in seconds ("—" when unknown).
func seconds(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return cli.F(v, 1) + "s"
}

func seqReport(w io.Writer, c config, results []*seqResult) {
	s := c.seq
	fmt.Fprintf(w, "### Sequential SNPE and SNLE on sbibm tasks (%d rounds × %d simulations; C2ST of the final posterior against the reference, %d draws; seed %d)\n",
		s.rounds, s.perRound, c.samples, c.Seed)
	fmt.Fprintln(w, "Each tool simulates its own rounds (the proposals differ). Times are sums over the rounds; CPU is the process's, over all threads; * marks results read from -out.")
	t := cli.Table{Header: []string{"task", "obs", "method", "C2ST ours", "train CPU ours", "train wall ours", "total wall ours", "epochs ours"}}
	peer := c.peer != ""
	if peer {
		t.Header = append(t.Header, "C2ST sbi", "train CPU sbi", "train wall sbi", "total wall sbi", "epochs sbi", "train CPU ours/sbi")
	}
	for _, r := range results {
		mark := ""
		if r.ours.cached {
			mark = "*"
		}
		row := []string{r.task, strconv.Itoa(r.obs), r.method, cli.F(r.ours.c2st, 3) + mark, seconds(r.ours.trainCPU),
			seconds(r.ours.trainWall), seconds(r.ours.totalWall), strconv.Itoa(r.ours.epochs)}
		if peer {
			epochs := "—"
			if !r.peer.peerNotFound {
				epochs = strconv.Itoa(r.peer.epochs)
			}
			row = append(row, cli.F(r.peer.c2st, 3), seconds(r.peer.trainCPU), seconds(r.peer.trainWall),
				seconds(r.peer.totalWall), epochs, cli.F(r.ours.trainCPU/r.peer.trainCPU, 2))
		}
		t.Add(row...)
	}
	t.Markdown(w)
	if !peer {
		return
	}
	fmt.Fprintln(w, "Per task and method (means over the observations with both tools' results; the goal: C2ST ours ≤ sbi's, training CPU ≤ 0.5× sbi's):")
	sum := cli.Table{Header: []string{"task", "method", "observations", "C2ST ours", "C2ST sbi", "train CPU ours/sbi", "C2ST ≤ sbi", "train ≤ 0.5×"}}
	for _, name := range c.tasks {
		for _, m := range s.methods {
			var ours, theirs []float64
			var cpuOurs, cpuSbi float64
			for _, r := range results {
				if r.task != name || r.method != m || math.IsNaN(r.peer.c2st) {
					continue
				}
				ours, theirs = append(ours, r.ours.c2st), append(theirs, r.peer.c2st)
				cpuOurs += r.ours.trainCPU
				cpuSbi += r.peer.trainCPU
			}
			if len(ours) == 0 {
				continue
			}
			mo, so := cli.MeanSE(ours)
			mt, st := cli.MeanSE(theirs)
			ratio := cpuOurs / cpuSbi
			sum.Add(name, m, strconv.Itoa(len(ours)), fmt.Sprintf("%.3f ± %.3f", mo, so), fmt.Sprintf("%.3f ± %.3f", mt, st),
				cli.F(ratio, 2), yesNo(mo <= mt), yesNo(ratio <= 0.5))
		}
	}
	sum.Markdown(w)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
