package combine_test

import (
	"encoding/json"
	"fmt"

	"github.com/privinfer/privinfer/combine"
)

// A pooled result as JSON: a normal reference distribution has DF = +Inf,
// which JSON numbers cannot hold, so it is written as the string "+Inf".
func ExampleResult_MarshalJSON() {
	q := []float64{1.1, 0.9, 1.05, 0.97, 1.2}
	u := []float64{0.04, 0.05, 0.045, 0.041, 0.05}
	r, _ := combine.Pool(combine.Raab, q, u, combine.Options{})
	b, _ := json.Marshal(r)
	fmt.Println(string(b))
	var back combine.Result
	_ = json.Unmarshal(b, &back)
	fmt.Println(back.DF)
	// Output:
	// {"rule":"raab","m":5,"mean":1.044,"within":0.045200000000000004,"between":0.013429999999999997,"var":0.06328,"df":"+Inf"}
	// +Inf
}
