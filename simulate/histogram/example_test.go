package histogram_test

import (
	"fmt"

	"github.com/privinfer/privinfer/simulate/histogram"
)

// A record of the LDP paper's histogram model contributes the one-hot
// encoding of its item.
func Example() {
	m, err := histogram.New(4)
	if err != nil {
		panic(err)
	}
	t := make([]float64, m.ContribDim())
	m.Contribution([]float64{2}, t)
	fmt.Println(t)
	// Output: [0 0 1 0]
}
