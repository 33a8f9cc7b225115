// Package nats runs the simulations of privinfer's engines on worker
// processes, on this machine or many, through a NATS JetStream work queue:
// Executor is a simulate.Executor for the analyst's process, Serve is the
// loop of a worker process.
//
// Every engine that simulates (SPPE, SPLE, SMC-ABC, rejection ABC, ABCDP,
// kernel importance sampling, simulate.PriorPredictive and simulate.Batch)
// hands its batches to the executor of its Config; with an Executor from
// this package, a batch is cut into blocks of rows, the blocks are
// published to a JetStream stream with work-queue retention, workers pull
// them one at a time, simulate them and publish the statistics to a result
// stream, and the Executor merges them into the batch.
//
// # Running it on several machines
//
// Start one NATS server with JetStream somewhere every machine can reach
// (nats-server -js -sd /var/lib/nats, or a cluster), then one worker
// process per machine, each using all its cores:
//
//	privinfer-worker -server nats://broker:4222
//
// (the command in cmd/privinfer-worker serves the library's models; a
// program with simulators of its own calls Serve with its own Registry).
// The analyst connects to the same server and gives the engine an
// Executor:
//
//	nc, _ := natsio.Connect("nats://broker:4222", natsio.MaxReconnects(-1))
//	reg, _ := models.Registry()
//	p, _ := models.SIRProblem(reg, 1)
//	exec, _ := nats.New(ctx, nc, nats.Config{Registry: reg})
//	defer exec.Close()
//	res, err := sbi.SPPE(ctx, p, sbi.Config{…, Executor: exec})
//
// Workers can join and leave at any time; the streams and the workers'
// consumer are created by whichever process comes first, with the
// settings of its Streams (give every process the same Prefix and
// AckWait). Use a distinct Prefix for independent pools on one server.
//
// # What a worker must register
//
// Code does not travel: a block carries the name of its simulator and
// the worker looks it up in its Registry. Engines hand executors the
// Problem's confidential Simulator and apply the mechanism, the ABC
// distance and the importance weights on the analyst's machine (see
// simulate.Executor), so a worker registers exactly the Problem's
// Simulator — the same model with the same settings — under the name the
// analyst's Executor uses: the name under which the same value is in
// Config.Registry, else Config.Name. Nothing about the mechanism or the
// privacy budget is configured on workers, and workers never see the
// confidential data of a curator: they simulate synthetic data from θ.
// Unless Config.SkipCheck is set, the first call for each name also
// simulates its first row on the analyst's machine and fails with
// ErrMismatch if the workers' bits differ; a worker without the name
// fails the run with ErrUnknownSimulator.
//
// # Guarantees
//
// Row First+k of a block is simulated with simulate.Stream(Seed, First+k)
// (by simulate.RunBlock), so each statistic depends on (seed, index, θ)
// only: a run on NATS workers gives the draws of the in-process run, bit
// for bit, whatever the number of workers, the block size or the order in
// which blocks finish.
//
// Delivery is at least once and the merge is idempotent. A block is
// acknowledged after its result is stored; if its worker dies, loses its
// connection or is killed, the server redelivers it after AckWait (workers
// send heartbeats every AckWait/3 while they simulate, so long blocks are
// not redelivered). Once every block of a call is out, a block that stays
// unanswered for Config.Resend (by default four times the median block
// time) is published again, so a slow worker cannot hold a round hostage.
// Whichever answer for a block arrives first is merged; later ones are
// dropped (Stats.Duplicates), so no row is lost or counted twice. With
// file storage (the default) the streams survive a restart of the server
// in the middle of a run, and clients reconnect (connect with
// natsio.MaxReconnects(-1)).
//
// Failures are errors, never hangs: a row whose simulator returns an
// error, panics or returns a non-finite statistic fails the call with the
// *simulate.RowError of the lowest such row (its Err a *RemoteError that
// matches simulate.PanicError, simulate.ErrNonFinite or
// simulate.ErrInvalidTheta as the in-process error would); a block
// delivered MaxDeliver times without an answer (a simulator that crashes
// its worker) fails with ErrDeliveries; cancelling the context returns
// ctx.Err() at once, purges the call's blocks from the stream and tells
// workers to drop the ones they hold.
//
// # Limits
//
// A block and its result are single messages, so they must fit in the
// server's max_payload (1 MiB by default): a row costs 8 bytes per
// parameter and 8 per statistic. By default a block has 64 rows, fewer if
// they would not fit; a Config.BlockRows that does not fit, or a single
// row that does not, is an error wrapping ErrTooLarge. Each block costs a
// few round trips through the server: about 0.8 ms for one block alone
// and 0.4 ms per block when several are in flight, at most about 2,500
// blocks per second, measured on a loaded 2-core machine running the
// server, the analyst and the workers (BenchmarkExecutor,
// TestThroughputTable with PRIVINFER_LONG=1), against 0.5 µs for a block
// run in process. NATS therefore pays off for simulations of a millisecond
// or more, with blocks holding at least tens of milliseconds of work;
// simulations of microseconds run faster in process. Blocks in flight are
// bounded by Config.MaxInFlight.
//
// The wire format is little-endian binary with float64 values as their
// IEEE-754 bits, a run ID (random per Executor) and a call number in
// every block and result, so results of another run or of an earlier call
// are ignored.
package nats
