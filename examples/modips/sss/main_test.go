package main

import (
	"testing"

	"github.com/privinfer/privinfer/examples/modips/out"
	"github.com/privinfer/privinfer/examples/support/cli"
)

func TestProgram(t *testing.T) {
	out.Check(t, cli.Runner("t", parse, run))
}
