package main

import (
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/internal/cli"
	"github.com/privinfer/privinfer/examples/reproduce/modips/out"
	"github.com/privinfer/privinfer/internal/testenv"
)

func TestProgram(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	out.Check(t, cli.Runner("t", parse, run))
}
