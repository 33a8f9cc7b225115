// Command privinfer-worker is a worker process of simulate/nats: it
// connects to a NATS server with JetStream, registers the library's model
// simulators (package models: sir/synthetic, sir/outbreaks, linreg/paper)
// and simulates the blocks analysts publish, until interrupted.
//
// Usage:
//
//	privinfer-worker -server nats://host:4222 [-prefix privinfer] [-ackwait 30s]
//	                 [-concurrency 1] [-parallelism 0] [-id name] [-v]
//
// Start one per machine (it uses every core: -parallelism 0 means
// GOMAXPROCS) against the server the analyst's Executor uses, with the
// same -prefix and -ackwait as the analyst's nats.Streams. SIGINT or
// SIGTERM stops it cleanly: blocks in progress are handed back to the
// server for other workers. A program with simulators of its own writes
// the same few lines with its own nats.Registry (see nats.Serve).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	natsio "github.com/nats-io/nats.go"

	"github.com/privinfer/privinfer/simulate/nats"
	"github.com/privinfer/privinfer/simulate/nats/models"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "privinfer-worker:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("privinfer-worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("server", natsio.DefaultURL, "NATS server URL(s), comma-separated")
	prefix := fs.String("prefix", "", "subject prefix shared with the analyst (empty: privinfer)")
	ackWait := fs.Duration("ackwait", 0, "redelivery timeout of a block, as the analyst's Streams.AckWait (0: 30s)")
	conc := fs.Int("concurrency", 0, "blocks simulated at once (0: 1)")
	par := fs.Int("parallelism", 0, "goroutines per block (0: GOMAXPROCS)")
	id := fs.String("id", "", "worker name in error messages (empty: host:pid)")
	verbose := fs.Bool("v", false, "log lost connections and refused blocks")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	reg, err := models.Registry()
	if err != nil {
		return err
	}
	logger := log.New(stderr, "privinfer-worker: ", log.LstdFlags)
	nc, err := natsio.Connect(*url, natsio.Name("privinfer-worker"), natsio.MaxReconnects(-1), natsio.ReconnectWait(time.Second))
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", *url, err)
	}
	defer nc.Close()
	opt := nats.ServeOptions{Streams: nats.Streams{Prefix: *prefix, AckWait: *ackWait}, Concurrency: *conc, Parallelism: *par, ID: *id}
	if *verbose {
		opt.Logf = logger.Printf
	}
	logger.Printf("serving %v on %s", reg.Names(), nc.ConnectedUrlRedacted())
	err = nats.Serve(ctx, nc, reg, opt)
	if errors.Is(err, nats.ErrConnClosed) && ctx.Err() != nil {
		err = nil
	}
	return err
}
