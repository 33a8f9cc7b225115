// Package train lets flow/sbi drive the optimiser steps of package flow
// (custom losses, losses summed over groups of rows, contexts shared by a
// group) without making them part of flow's API: package flow implements
// Trainer and installs NewTrainer when it is initialised.
package train

import (
	"fmt"
	"math"
)

// LossFunc evaluates a loss ℓ(log q_1, …, log q_n) of a batch of
// log-densities: it returns ℓ and writes ∂ℓ/∂log q_i into dlogq[i]. It
// must not retain its arguments.
type LossFunc func(logq, dlogq []float64) float64

// GroupLossFunc evaluates one part of a loss that is a sum over groups of
// consecutive rows, each group's term depending on its own log-densities
// only (the atomic loss of sequential posterior estimation, or any
// per-row loss with groups of one row). Given the rows [lo, lo+len(logq))
// of the batch, a whole number of groups, it returns the part's
// contribution to the loss and writes ∂ℓ/∂log q_i of those rows into
// dlogq. It is called from several goroutines at once on disjoint parts,
// so it must only read shared state.
type GroupLossFunc func(lo int, logq, dlogq []float64) float64

// Trainer takes optimiser steps on one flow; see package flow's trainer
// for the semantics of each method. It must be closed, and must not be
// used concurrently.
type Trainer interface {
	// Close stops the trainer's worker goroutines.
	Close()
	// SwapAverage exchanges the flow's parameters with their moving
	// average (TrainConfig.EMA); it does nothing without EMA.
	SwapAverage()
	// LogDensities writes log q(y_i | z_i) of the n rows into dst.
	LogDensities(y, z []float64, n int, dst []float64) error
	// LogDensitiesShared is LogDensities for rows in consecutive groups of
	// group rows sharing one context row of z.
	LogDensitiesShared(y, z []float64, n, group int, dst []float64) error
	// StepLoss takes one step on a custom loss of the batch's
	// log-densities and returns the loss.
	StepLoss(y, z []float64, n int, loss LossFunc) (float64, error)
	// StepGroupLoss takes one step on a loss summed over groups of group
	// rows sharing one context row of z, and returns the loss.
	StepGroupLoss(y, z []float64, n, group int, loss GroupLossFunc) (float64, error)
}

// NewTrainer returns a trainer for f (a *flow.Flow) with the optimiser
// and parallelism settings of cfg (a flow.TrainConfig). Package flow sets
// it once, when it is initialised, and never changes it; any package that
// imports flow can call it.
//
// It is a variable written by flow's init, the one piece of package-level
// state in flow/**, kept by decision: it is link-time wiring (one value,
// fixed before main runs, holding no data and no randomness), not state a
// run reads or changes. The alternatives cost more than they save:
//
//   - An exported method of *flow.Flow returning a Trainer (directly, or
//     promoted from an embedded field of an internal type) would let any
//     user call it: the trainer would be exported API in all but name.
//   - An interface with an unexported method can only be implemented in
//     the package that declares it, so flow/sbi cannot reach an unexported
//     method of *flow.Flow through one.
//   - Moving the trainer here needs the flow's layers, workspaces and
//     parameter layout, so the whole flow would move into an internal
//     package with flow.Flow an alias of it, and its methods would vanish
//     from flow's documentation.
//
// The arguments are typed any because this package cannot import flow
// (flow imports it); the function refuses other types with an error
// wrapping flow.ErrInvalid.
var NewTrainer func(f, cfg any) (Trainer, error)

// EpochMessage formats the losses of a training epoch as the Message of an
// "epoch" progress event: "train loss 1.234, validation loss 1.301", the
// validation part omitted when valLoss is NaN (no validation set).
func EpochMessage(trainLoss, valLoss float64) string {
	if math.IsNaN(valLoss) {
		return fmt.Sprintf("train loss %.4g", trainLoss)
	}
	return fmt.Sprintf("train loss %.4g, validation loss %.4g", trainLoss, valLoss)
}
