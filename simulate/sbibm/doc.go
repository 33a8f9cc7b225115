// Package sbibm provides four tasks of the simulation-based inference
// benchmark sbibm (J.-M. Lueckmann, J. Boelts, D. S. Greenberg, P. J.
// Gonçalves and J. H. Macke (2021), Benchmarking simulation-based
// inference, AISTATS, PMLR 130:343–351; github.com/sbi-benchmark/sbibm):
// two moons, Gaussian linear, SLCP and Gaussian mixture, each as a prior
// and a simulator exactly as the benchmark's task definitions state them,
// with their likelihoods, and loaders for the benchmark's observations,
// true parameters and reference posterior samples.
//
// A Task gives its Prior, its Simulator and a privinfer.Problem for an
// observation, so every engine of the library runs on it unchanged (with
// no mechanism: the tasks are non-private). The reference files are not
// part of the module: the loaders read the benchmark's directory layout
//
//	<dir>/<task name>/num_observation_<k>/observation.csv
//	<dir>/<task name>/num_observation_<k>/true_parameters.csv
//	<dir>/<task name>/num_observation_<k>/reference_posterior_samples.csv.bz2
//
// from a directory given as an argument; Dir finds it from the
// environment. Errors wrap simulate.ErrInvalid (simulate.ErrInvalidTheta
// for a bad θ); a missing file gives an error wrapping fs.ErrNotExist.
package sbibm
