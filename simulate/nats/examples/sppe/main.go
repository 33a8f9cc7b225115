// Command sppe runs SPPE (flow/sbi) on the SBI paper's private linear
// regression with its simulations on worker processes, through NATS
// JetStream, and checks the draws against an in-process run.
//
// By default it starts an embedded NATS server on a loopback port and
// -workers worker processes on this machine (this program started again
// as a worker); with -server it uses a running server and the workers
// already serving it (for example privinfer-worker on other machines):
//
//	go run ./examples/sppe -workers 3
//	go run ./examples/sppe -server nats://broker:4222 -compare=false
//
// It prints the posterior mean, the time of each run, what the executor
// did and whether the NATS draws equal the in-process draws bit for bit.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"syscall"
	"time"

	natsio "github.com/nats-io/nats.go"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/flow/sbi"
	"github.com/privinfer/privinfer/simulate/nats"
	"github.com/privinfer/privinfer/simulate/nats/internal/embedded"
	"github.com/privinfer/privinfer/simulate/nats/models"
)

// envWorker makes this program a worker process serving the given URL.
const envWorker = "PRIVINFER_SPPE_EXAMPLE_WORKER"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if url := os.Getenv(envWorker); url != "" {
		err = worker(ctx, url)
	} else {
		err = run(ctx, os.Args[1:], os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sppe:", err)
		os.Exit(1)
	}
}

// worker serves the library's models until ctx ends.
func worker(ctx context.Context, url string) error {
	nc, err := natsio.Connect(url, natsio.MaxReconnects(-1))
	if err != nil {
		return err
	}
	defer nc.Close()
	reg, err := models.Registry()
	if err != nil {
		return err
	}
	return nats.Serve(ctx, nc, reg, nats.ServeOptions{Parallelism: 1})
}

type options struct {
	server   string
	workers  int
	eps      float64
	rounds   int
	sims     int
	block    int
	epochs   int
	seed     uint64
	compare  bool
	progress bool
}

func run(ctx context.Context, args []string, w io.Writer) error {
	var o options
	fs := flag.NewFlagSet("sppe", flag.ContinueOnError)
	fs.StringVar(&o.server, "server", "", "NATS server URL (empty: an embedded server on 127.0.0.1 with -workers worker processes)")
	fs.IntVar(&o.workers, "workers", 2, "worker processes to start with the embedded server")
	fs.Float64Var(&o.eps, "eps", 1, "privacy budget ε of the release (10, 1 or 0.1)")
	fs.IntVar(&o.rounds, "rounds", 2, "SPPE rounds")
	fs.IntVar(&o.sims, "sims", 1000, "simulations per round")
	fs.IntVar(&o.block, "block", 0, "rows per block (0: 64)")
	fs.IntVar(&o.epochs, "epochs", 30, "training epochs per round")
	fs.Uint64Var(&o.seed, "seed", 1, "seed")
	fs.BoolVar(&o.compare, "compare", true, "also run in process and compare the draws")
	fs.BoolVar(&o.progress, "progress", false, "print the executor's progress")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.server == "" && o.workers < 1 {
		return fmt.Errorf("-workers must be >= 1 with the embedded server, got %d", o.workers)
	}
	url := o.server
	if url == "" {
		dir, err := os.MkdirTemp("", "sppe-nats")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		srv, err := embedded.Start(embedded.Options{Dir: dir})
		if err != nil {
			return err
		}
		defer srv.WaitForShutdown()
		defer srv.Shutdown()
		url = srv.ClientURL()
		stopWorkers, err := startWorkers(url, o.workers)
		if err != nil {
			return err
		}
		defer stopWorkers()
		fmt.Fprintf(w, "embedded NATS server on %s, %d worker processes\n", url, o.workers)
	}

	reg, err := models.Registry()
	if err != nil {
		return err
	}
	p, err := models.LinRegProblem(reg, o.eps)
	if err != nil {
		return err
	}
	nc, err := natsio.Connect(url, natsio.MaxReconnects(-1))
	if err != nil {
		return err
	}
	defer nc.Close()
	ecfg := nats.Config{Registry: reg, BlockRows: o.block}
	if o.progress {
		ecfg.Progress = func(p privinfer.Progress) { fmt.Fprintln(w, "  ", p) }
	}
	ex, err := nats.New(ctx, nc, ecfg)
	if err != nil {
		return err
	}
	defer ex.Close()

	cfg := config(o)
	cfg.Executor = ex
	start := time.Now()
	res, err := sbi.SPPE(ctx, p, cfg)
	if err != nil {
		return err
	}
	st := ex.Stats()
	fmt.Fprintf(w, "SPPE on NATS: %d simulations in %v; posterior mean %.3f\n", res.Simulations, time.Since(start).Round(time.Millisecond), res.Draws.Mean())
	fmt.Fprintf(w, "executor: %d blocks merged (%d published, %d resent, %d duplicates dropped)\n", st.Blocks, st.Published, st.Resent, st.Duplicates)
	if !o.compare {
		return nil
	}
	start = time.Now()
	ref, err := sbi.SPPE(ctx, p, config(o))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "SPPE in process: %v\n", time.Since(start).Round(time.Millisecond))
	same := slices.Equal(res.Draws.Theta, ref.Draws.Theta)
	fmt.Fprintf(w, "draws identical to the in-process run: %v\n", same)
	if !same {
		return fmt.Errorf("the NATS draws differ from the in-process draws")
	}
	return nil
}

// config is a small SPPE for the three coefficients.
func config(o options) sbi.Config {
	var c sbi.Config
	c.Rounds, c.SimsPerRound, c.Seed = o.rounds, o.sims, o.seed
	c.InnerPoints, c.Atoms = 8, 5
	fc := flow.DefaultConfig(3, 9)
	fc.Layers, fc.Hidden, fc.Blocks, fc.Bins = 3, 32, 1, 8
	c.Flow = &fc
	tc := flow.DefaultTrainConfig()
	tc.BatchSize, tc.MaxEpochs, tc.LearningRate = 100, o.epochs, 3e-3
	c.Train = &tc
	c.Chains, c.Warmup, c.PosteriorSamples = 4, 200, 1000
	return c
}

// startWorkers starts n copies of this program as worker processes and
// returns a function that stops them.
func startWorkers(url string, n int) (func(), error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var cmds []*exec.Cmd
	stop := func() {
		for _, c := range cmds {
			_ = c.Process.Signal(syscall.SIGTERM)
		}
		for _, c := range cmds {
			done := make(chan struct{})
			go func() { _ = c.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				_ = c.Process.Kill()
				<-done
			}
		}
	}
	for range n {
		c := exec.Command(self)
		c.Env = append(os.Environ(), envWorker+"="+url)
		c.Stderr = os.Stderr
		if err := c.Start(); err != nil {
			stop()
			return nil, err
		}
		cmds = append(cmds, c)
	}
	return stop, nil
}
