package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/examples/internal/cli"
	"github.com/privinfer/privinfer/simulate/sir"
)

// exactName is the file -exact writes into -out.
func exactName(eps float64) string { return "sir_eps" + epsName(eps) + "_exact.csv" }

// runExact samples the exact posterior of (log β, log γ) given the release
// by importance sampling with the mechanism's binomial density as the ABC
// kernel (abc.KernelIS): no tolerance, so no tolerance bias. The first
// stage proposes from a Student-t fitted to an initial sample (our SMC-ABC
// population, else the authors' sample) with doubled scale.
func runExact(o options, stdout io.Writer) error {
	eps := o.eps
	if err := o.Prepare(); err != nil {
		return err
	}
	init := o.exactInit
	if init == "" {
		if root, err := cli.RepoRoot(); err == nil {
			if p := filepath.Join(root, "abc", "testdata", csvName(eps)); fileExists(p) {
				init = p
			}
		}
		if init == "" {
			if p, ok := cli.SharedFile(referenceFile(eps)); ok {
				init = p
			}
		}
		if init == "" {
			return cli.Usagef("-exact needs an initial sample: give -exact-init (no SMC-ABC population or authors' sample found for ε = %s)", epsName(eps))
		}
	}
	x, w, err := readSample(init)
	if err != nil {
		return err
	}
	start := &privinfer.Draws{Dim: 2, Theta: x, Weights: w}
	cov := start.Cov()
	for i := range cov {
		cov[i] *= 4 // doubled scale
	}
	ps, err := sir.SyntheticSimulator(eps)
	if err != nil {
		return err
	}
	obs, err := sir.SyntheticRelease(eps)
	if err != nil {
		return err
	}
	// KernelIS needs the mechanism's density (it checks and says so).
	p := privinfer.Problem{Prior: sir.Prior(), Simulator: ps.Confidential(), Mechanism: ps.Mechanism(), Observed: obs, Names: []string{"log_beta", "log_gamma"}}
	var sb []byte
	logf := func(format string, args ...any) {
		s := fmt.Sprintf(format, args...)
		sb = append(sb, s...)
		fmt.Fprint(stdout, s)
	}
	logf("SIR eps=%s exact posterior by kernel importance sampling (kernel: the mechanism's binomial pmf), %d stages x %d simulations, seed %d\n",
		epsName(eps), o.exactStages, o.exact, o.Seed)
	logf("initial proposal: Student-t (5 df) fitted to %s, scale doubled\n", filepath.Base(init))
	logf("%5s %9s %9s %10s %10s %10s %10s\n", "stage", "sims", "ESS", "elapsed", "E[logb]", "E[logg]", "sd[logg]")
	kres, err := abc.KernelIS(context.Background(), p, abc.KernelISConfig{
		Simulations: o.exact, Stages: o.exactStages, Mean: start.Mean(), Cov: cov, Seed: o.Seed,
		Progress: func(q privinfer.Progress) { fmt.Fprintf(stdout, "kernel IS %v\n", q) },
	})
	if err != nil {
		return err
	}
	elapsed := time.Duration(0)
	for _, q := range kres.Stages {
		elapsed += q.Elapsed
		m, c := q.Draws.Mean(), q.Draws.Cov()
		logf("%5d %9d %9.1f %10s %10.4f %10.4f %10.4f\n", q.Round, q.Simulations, q.ESS, elapsed.Round(time.Second), m[0], m[1], math.Sqrt(c[3]))
	}
	pop := kres.Stages[len(kres.Stages)-1]
	logf("%-10s %10s %10s %10s\n", "quantity", "mean", "q2.5", "q97.5")
	for _, q := range []struct {
		name string
		f    func([]float64) float64
	}{{"log beta", func(t []float64) float64 { return t[0] }}, {"log gamma", func(t []float64) float64 { return t[1] }},
		{"R0", func(t []float64) float64 { return math.Exp(t[0] - t[1]) }}} {
		m, lo, hi := summarize(pop.Draws, q.f)
		logf("%-10s %10.4f %10.4f %10.4f\n", q.name, m, lo, hi)
	}
	var ref []float64
	if p, ok := cli.SharedFile(referenceFile(eps)); ok && o.authors != "none" {
		if ref, err = readRef(p); err != nil {
			return err
		}
		if err := compare(logf, pop, ref); err != nil {
			return err
		}
	}
	verdict(stdout, "exact kernel importance sampling", eps, pop, ref)
	if o.Out != "" {
		if err := writeCSV(o.Path(exactName(eps)), pop); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", o.Path(exactName(eps)))
	}
	if o.summary != "" {
		return os.WriteFile(o.summary, sb, 0o644)
	}
	return nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// readSample reads either this project's population format (header
// log_beta,log_gamma,weight) or the authors' format (index, log β, log γ;
// equal weights).
func readSample(path string) (x, w []float64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, nil, err
	}
	if len(recs) < 3 {
		return nil, nil, fmt.Errorf("%s: fewer than two rows", path)
	}
	ours := recs[0][0] == "log_beta"
	for _, r := range recs[1:] {
		if len(r) != 3 {
			return nil, nil, fmt.Errorf("%s: want 3 columns, got %d", path, len(r))
		}
		var v [3]float64
		for j, s := range r {
			if v[j], err = strconv.ParseFloat(s, 64); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		if ours {
			x, w = append(x, v[0], v[1]), append(w, v[2])
		} else {
			x, w = append(x, v[1], v[2]), append(w, 1)
		}
	}
	return x, w, nil
}
