package main

import (
	"testing"

	"github.com/privinfer/privinfer/examples/modips/out"
	"github.com/privinfer/privinfer/examples/support/cli"
	"github.com/privinfer/privinfer/examples/support/testenv"
)

func TestProgram(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	out.Check(t, cli.Runner("t", parse, run))
}
