// Package beam runs the curator's differentially private aggregations of
// mechanism/aggregate on Apache Beam, for data larger than one machine:
// per-unit contribution bounding, per-key counts, sums, means and distinct
// units with exact lattice noise, DP partition selection or public
// partitions, and one budget charged on the driver.
//
// It is a nested module (github.com/privinfer/privinfer/mechanism/beam)
// so that the core stays free of Beam's dependencies; import it under a
// name of your choice beside Beam's own beam package, for example
//
//	import (
//		"github.com/apache/beam/sdks/v2/go/pkg/beam"
//		privbeam "github.com/privinfer/privinfer/mechanism/beam"
//	)
//
// # A pipeline
//
//	budget, _ := privbeam.NewBudget(mechanism.Budget{Epsilon: 1, Delta: 1e-6})
//	pc, _ := privbeam.MakePrivate(s, visits, visitUser, budget) // func(Visit) string
//	days, _ := privbeam.ByKey(s, pc, visitDaySpend)              // func(Visit) (string, float64)
//	counts, _ := privbeam.CountPerKey(s, days, privbeam.Params{
//		Epsilon: 0.4, MaxPartitionsContributed: 3, MaxContributionsPerPartition: 2,
//		SelectionEpsilon: 0.2, SelectionDelta: 1e-6,
//	})
//	// counts is a PCollection of KV<string, aggregate.Result>.
//	err := privbeam.Run(ctx, p, budget, accountant, func(ctx context.Context, p *beam.Pipeline) error {
//		return beamx.Run(ctx, p)
//	})
//
// A PrivatePCollection has no accessor for its records: they leave it only
// through CountPerKey, SumPerKey, MeanPerKey, DistinctUnitsPerKey and
// SelectPartitions. Each of them
//
//   - groups the records by privacy unit and bounds each unit's
//     contribution with the core's functions (aggregate.BoundPartitions:
//     at most L0 partitions, a uniform sample; aggregate.CapContributions:
//     at most L∞ records per partition; the accumulators clamp each value
//     to [Lo, Hi], and sums and means drop NaN values before bounding);
//   - merges the units' partial states per key with a Beam CombineFn
//     whose accumulator is the core's integer-lattice accumulator
//     (aggregate.CountAccumulator, SumAccumulator, MeanAccumulator) and
//     whose coder is its MarshalBinary: Merge is integer addition, so no
//     merge order a runner chooses can change a released bit;
//   - keeps a partition only if aggregate.PartitionSelector does (keys not
//     known in advance), or releases exactly the public partitions
//     (Params.PublicPartitions: every public key is released, one without
//     data with noise only, and records of other keys are dropped before
//     bounding);
//   - releases with the accumulator's Release, drawing exact discrete
//     Laplace (or discrete Gaussian) noise from the operating system's
//     generator on the worker, and emits KV<K, aggregate.Result>: the value
//     with its noise model (Result.Noise: mechanism, lattice, scale), so
//     that Result.Mechanism() and Result.Observed() give the Mechanism and
//     Observed of a privinfer.Problem for a noise-aware posterior.
//
// Parameters are checked when the graph is built, and every problem is an
// error there, not a worker crash: lo ≥ hi or infinite bounds, L0 < 1, a
// missing or ill-typed privacy ID or key function, keys without a
// deterministic coder, public partitions of the wrong type, a share that
// would take the Budget beyond its total (wrapping
// mechanism.ErrBudgetExceeded), and a seeded generator (Budget.TestMode
// outside a test binary). The Budget is charged once, by Budget.Commit or
// Run, before the pipeline runs; an accountant that refuses the charge
// stops the pipeline before it starts. Workers receive only plain
// parameters, never the accountant or a generator.
//
// # Runners
//
// The same pipeline runs on every Beam runner; the package registers its
// DoFns, combiner and coders (register.DoFnN, register.CombinerN,
// beam.RegisterType, beam.RegisterCoder), and the privacy ID and key
// functions given to MakePrivate and ByKey must be registered by the
// program too (register.Function1x1, register.Function1x2).
//
//   - Locally, in process, on Beam's prism runner: run with beamx.Run and
//     --runner=prism (the default of beamx in this Beam version), or
//     ptest.Run in tests. No Java, Docker or network is needed; prism
//     holds the data in memory (see cmd/beambench for its footprint).
//   - On Flink or Spark, through their Beam job servers: start the job
//     server matching the cluster (Beam publishes them as the
//     apache/beam_flink<version>_job_server and apache/beam_spark3_job_server
//     images, pointed at the cluster with --flink-master or
//     --spark-master-url), then run the program
//     with --runner=flink (or spark, or universal)
//     --endpoint=localhost:8099 --environment_type=DOCKER (or LOOPBACK for
//     a local cluster).
//   - On Google Cloud Dataflow: --runner=dataflow --project=… --region=…
//     --staging_location=gs://…/staging; Beam cross-compiles the program
//     as the worker binary.
//
// # Tests
//
// Budget.TestMode makes a pipeline reproducible in tests only (bounding
// samples and noise from generators seeded by (seed, unit) and (seed,
// key), or no noise at all); it is refused outside a test binary.
package beam
