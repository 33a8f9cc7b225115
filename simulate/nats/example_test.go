package nats_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"slices"

	natsio "github.com/nats-io/nats.go"

	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/nats"
	"github.com/privinfer/privinfer/simulate/nats/internal/embedded"
	"github.com/privinfer/privinfer/simulate/nats/models"
)

// Example runs a prior-predictive simulation of the SBI paper's linear
// regression on a worker through an embedded NATS server, and checks it
// against the in-process run. On several machines the server is a
// nats-server of its own, and each worker a privinfer-worker process.
func Example() {
	dir, err := os.MkdirTemp("", "nats-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	srv, err := embedded.Start(embedded.Options{Dir: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.WaitForShutdown()
	defer srv.Shutdown()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// A worker: the library's models under their names.
	reg, err := models.Registry()
	if err != nil {
		log.Fatal(err)
	}
	wc, err := natsio.Connect(srv.ClientURL())
	if err != nil {
		log.Fatal(err)
	}
	defer wc.Close()
	go nats.Serve(ctx, wc, reg, nats.ServeOptions{})

	// The analyst: the same registry names the Problem's simulator.
	p, err := models.LinRegProblem(reg, 1)
	if err != nil {
		log.Fatal(err)
	}
	nc, err := natsio.Connect(srv.ClientURL())
	if err != nil {
		log.Fatal(err)
	}
	defer nc.Close()
	exec, err := nats.New(ctx, nc, nats.Config{Registry: reg, BlockRows: 50})
	if err != nil {
		log.Fatal(err)
	}
	defer exec.Close()

	const n = 1000
	d, sd := p.Prior.Dim(), p.Simulator.StatDim()
	theta, stats := make([]float64, n*d), make([]float64, n*sd)
	if err := simulate.PriorPredictive(ctx, exec, p.Prior, p.Simulator, n, 7, theta, stats); err != nil {
		log.Fatal(err)
	}
	theta2, stats2 := make([]float64, n*d), make([]float64, n*sd)
	if err := simulate.PriorPredictive(ctx, nil, p.Prior, p.Simulator, n, 7, theta2, stats2); err != nil {
		log.Fatal(err)
	}
	st := exec.Stats()
	fmt.Printf("%d simulations in %d blocks; identical to the in-process run: %v\n",
		st.Rows, st.Blocks, slices.Equal(stats, stats2) && slices.Equal(theta, theta2))
	// Output:
	// 1000 simulations in 20 blocks; identical to the in-process run: true
}
