package privinfer_test

import (
	"os"
	"time"

	"github.com/privinfer/privinfer"
)

// A throttled progress printer for a long run: the first and last event
// of each stage are written, and otherwise at most one line per interval
// (here an hour, so the 998 events in between are dropped).
func ExampleProgressPrinter() {
	progress := privinfer.ProgressPrinter(os.Stdout, time.Hour)
	for epoch := 1; epoch <= 1000; epoch++ {
		progress(privinfer.Progress{Stage: "epoch", Round: 1, Step: epoch, Total: 1000})
	}
	// Output:
	// round 1 epoch 1/1000 (0s)
	// round 1 epoch 1000/1000 (0s)
}
