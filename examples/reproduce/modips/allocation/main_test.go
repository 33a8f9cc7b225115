package main

import (
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/modips/out"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
)

func TestProgram(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	out.Check(t, cli.Runner("t", parse, run))
}
