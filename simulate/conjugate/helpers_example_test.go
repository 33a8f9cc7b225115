package conjugate_test

import "math/rand/v2"

func newExampleRand() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
