package main

import (
	"testing"

	"github.com/privinfer/privinfer/examples/internal/cli"
	"github.com/privinfer/privinfer/examples/modips/internal/out"
)

func TestProgram(t *testing.T) {
	out.Check(t, cli.Runner("t", parse, run))
}
