package simulate_test

import (
	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/simulate"
)

// Every prior is an mcmc.Target: Dim and LogDensity.
var (
	_ mcmc.Target = simulate.Prior(nil)
	_ mcmc.Target = (*simulate.Independent)(nil)
	_ mcmc.Target = (*simulate.MVNormal)(nil)
	_ mcmc.Target = (*simulate.Dirichlet)(nil)
	_ mcmc.Target = (*simulate.Concat)(nil)
)
