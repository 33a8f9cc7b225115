package study_test

import (
	"context"
	"fmt"

	"github.com/privinfer/privinfer/examples/reproduce/modips/study"
)

// ExampleScenario_Run reruns one row of the modips paper's Table 1 with a
// few repetitions and prints the coverage of the Theorem 7 rule's nominal
// 95% interval next to the paper's.
func ExampleScenario_Run() {
	sc := study.Table1Scenarios()[0]
	cov, err := sc.Run(context.Background(), 1, 400)
	if err != nil {
		fmt.Println(err)
		return
	}
	c := study.Column(1) // the Theorem 7 rule
	fmt.Printf("%s: paper %.3f, ours within 0.04: %v\n", study.ColumnNames[c], sc.Paper[c], cov[c] > sc.Paper[c]-0.04 && cov[c] < sc.Paper[c]+0.04)
	// Output: thm7: paper 0.948, ours within 0.04: true
}
