package sbi

import (
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/qmc"
)

// pointSet draws the M inner uniform points of one simulated pair.
type pointSet struct {
	m, dim int
	integ  Integration
	sob    *qmc.Sobol
}

func newPointSet(m, dim int, integ Integration, r *rand.Rand) (*pointSet, error) {
	ps := &pointSet{m: m, dim: dim, integ: integ}
	if dim == 0 {
		ps.integ = MC // no noise: nothing to fill
	}
	if ps.integ == RQMC {
		s, err := qmc.NewSobol(qmc.SobolConfig{Dim: dim, Scramble: qmc.Owen}, r)
		if err != nil {
			return nil, fmt.Errorf("sbi: inner points: %w", err)
		}
		ps.sob = s
	}
	return ps, nil
}

// fill writes a fresh randomization of the M points (M×dim) into u.
func (ps *pointSet) fill(r *rand.Rand, u []float64) {
	if ps.integ == RQMC {
		ps.sob.Randomize(r)
		// Fill cannot fail: the buffer is long enough and M ≪ 2^32.
		_ = ps.sob.Fill(u, ps.m)
		return
	}
	for i := range u[:ps.m*ps.dim] {
		u[i] = r.Float64()
	}
}

// Role tells InnerIntegral and Config.DefaultFlow which density
// a flow represents.
type Role int

const (
	// PosteriorFlow is q(θ | s_dp): y = θ, context = s_dp (SPPE).
	PosteriorFlow Role = iota
	// LikelihoodFlow is q(s_dp | θ): y = s_dp, context = θ (SPLE).
	LikelihoodFlow
)

// InnerIntegral estimates the inner integral of eq. 9–11,
//
//	I(θ, x) = ∫ η(s_dp | s(x)) g(s_dp, θ) ds_dp ≈ (1/M) Σ_m g(τ(v_m; s), θ),
//
// with g = log q(θ | s_dp) for a PosteriorFlow and log q(s_dp | θ) for a
// LikelihoodFlow, from M points v_m of one fresh randomization drawn from r
// (Owen-scrambled Sobol for RQMC, independent uniforms for MC). For Sobol
// points M should be a power of two.
func InnerIntegral(f *flow.Flow, role Role, mech mechanism.Transform, theta, s []float64, m int, integ Integration, r *rand.Rand) (float64, error) {
	switch {
	case f == nil:
		return 0, invalidf("f: must not be nil")
	case argcheck.Nil(mech):
		return 0, invalidf("mech: must not be nil")
	case r == nil:
		return 0, invalidf("r: must not be nil")
	case m < 1:
		return 0, invalidf("m: must be >= 1, got %d", m)
	}
	dTheta, dS := f.Dim(), f.ContextDim()
	if role == LikelihoodFlow {
		dTheta, dS = dS, dTheta
	}
	if len(theta) != dTheta || len(s) != dS {
		return 0, invalidf("theta, s: have lengths %d and %d, the flow needs %d and %d", len(theta), len(s), dTheta, dS)
	}
	nd := mech.NoiseDim(dS)
	ps, err := newPointSet(m, nd, integ, r)
	if err != nil {
		return 0, err
	}
	u := make([]float64, m*nd)
	ps.fill(r, u)
	sdp := make([]float64, m*dS)
	th := make([]float64, m*dTheta)
	for j := 0; j < m; j++ {
		mech.Apply(u[j*nd:(j+1)*nd], s, sdp[j*dS:(j+1)*dS])
		copy(th[j*dTheta:], theta)
	}
	lq := make([]float64, m)
	if role == LikelihoodFlow {
		err = f.LogDensityBatch(sdp, th, m, lq)
	} else {
		err = f.LogDensityBatch(th, sdp, m, lq)
	}
	if err != nil {
		return 0, err
	}
	sum := 0.0
	for _, v := range lq {
		sum += v
	}
	return sum / float64(m), nil
}
