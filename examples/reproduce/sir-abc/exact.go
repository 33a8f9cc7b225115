package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
)

// runExact samples the exact posterior of (log β, log γ) given the release
// by importance sampling with the mechanism's binomial density as the ABC
// kernel (abc.KernelIS): no tolerance, so no tolerance bias. The first
// stage proposes from a Student-t fitted to an initial sample (our SMC-ABC
// population, else the authors' sample) with doubled scale.
func runExact(o options, stdout, stderr io.Writer) error {
	if err := o.Prepare(); err != nil {
		return err
	}
	l := &logger{w: stdout}
	ref, err := reference(o, l)
	if err != nil {
		return err
	}
	init := o.exactInit
	if root, err := cli.RepoRoot(); init == "" && err == nil {
		if p := filepath.Join(root, "abc", "testdata", csvName(o.eps)); fileExists(p) {
			init = p
		}
	}
	start := ref
	if init != "" {
		if start, err = cli.ReadDraws(init, names...); err != nil {
			return err
		}
	}
	if start == nil {
		return cli.Usagef("-exact needs an initial sample: give -exact-init (no SMC-ABC population or authors' sample found for ε = %s)", epsName(o.eps))
	}
	cov := start.Cov()
	for i := range cov {
		cov[i] *= 4 // doubled scale
	}
	// KernelIS needs the mechanism's density (it checks and says so).
	p, err := problem(o.eps)
	if err != nil {
		return err
	}
	l.f("SIR eps=%s exact posterior by kernel importance sampling (kernel: the mechanism's binomial pmf), %d stages x %d simulations, seed %d\n",
		epsName(o.eps), o.exactStages, o.exact, o.Seed)
	l.f("initial proposal: Student-t (5 df) fitted to %s, scale doubled\n", map[bool]string{true: "the authors' sample", false: filepath.Base(init)}[init == ""])
	prog := cli.NewProgress(stderr)
	var res *abc.KernelISResult
	err = prog.While(3*time.Second, "kernel importance sampling", func() (err error) {
		res, err = abc.KernelIS(context.Background(), p, abc.KernelISConfig{
			Simulations: o.exact, Stages: o.exactStages, Mean: start.Mean(), Cov: cov, Seed: o.Seed,
			Progress: prog.Func(),
		})
		return err
	})
	if err != nil {
		return err
	}
	rounds(l, res.Stages)
	return finish(o, l, "exact kernel importance sampling", "sir_eps"+epsName(o.eps)+"_exact.csv", res.Stages[len(res.Stages)-1], ref)
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
