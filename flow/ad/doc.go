// Package ad is a small reverse-mode automatic differentiation engine over
// float64 matrices: a Tape records operations on row-major tensors and
// Backward propagates gradients through them in reverse order. It serves
// networks that the fused kernels of package flow/nn do not cover, such as
// the embedding networks that summarise a high-dimensional context (a time
// series, a set of records) before it reaches a flow's conditioners.
//
// # Tensors and the tape
//
// A Tensor is a Rows×Cols row-major matrix recorded on one Tape. Leaves are
// constants (Tape.Const) or variables (Tape.Var) whose gradient accumulates
// into a buffer the caller owns, so the parameters of a network can live in
// one flat vector with one flat gradient vector. Every operation returns a
// new tensor:
//
//   - matrix product (MatMul), broadcast bias (AddBias), sum, product and
//     scaling of tensors (Add, Mul, Scale);
//   - elementwise maps: ReLU, Tanh, Sigmoid, Exp, Log, Softplus;
//   - reductions: Sum and Mean (to 1×1), RowSums (to Rows×1);
//   - concatenation of columns (Concat) and the row-wise Softmax;
//   - one-dimensional convolution (Conv1D) with stride and zero padding,
//     over rows that hold a time series of Length steps of Channels values
//     each, time-major ([t][c]), and average pooling over windows of steps
//     (AvgPool1D).
//
// Tape.Backward seeds the gradient of an output tensor (1 for a 1×1 loss,
// or any upstream gradient) and accumulates the gradients of every variable
// it depends on.
//
// # Errors
//
// Operations never panic on shapes: the first invalid operation (mismatched
// shapes, a nil tensor, a leaf shorter than its shape) is recorded, later
// operations return an empty tensor, and Tape.Err and Tape.Backward report
// the first error, naming the operation and the shapes.
//
// # Memory
//
// Values, gradients and scratch come from an arena owned by the tape.
// Tape.Reset forgets the recording and keeps the memory (grown to what the
// last recording needed), so a training step recorded again on a reset tape
// allocates nothing once warm. Tensors of a recording are invalid after
// Reset. Sums are taken in a fixed order, so results depend on the inputs
// only. A Tape must not be used by several goroutines at once; data-parallel
// training uses one tape per goroutine with separate gradient buffers.
//
// # Networks
//
// Net describes a feed-forward network over a flat parameter vector: an
// optional stack of 1-D convolutions, each optionally followed by average
// pooling (a CNN for time series), followed by
// fully connected ReLU layers and a linear output (an MLP when there are no
// convolutions). Net.Apply records it on a tape. Package flow uses a Net
// as the embedding network of a flow's context (flow.Config.Embedding) and
// trains it jointly with the flow.
//
// Every operation is checked against central finite differences in the
// tests, and the dense layer and gated residual block of flow/nn are
// checked against the same networks built on the tape.
package ad
