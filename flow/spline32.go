package flow

import "github.com/privinfer/privinfer/flow/internal/rqs32"

// The splines of the float32 training step (TrainConfig.Float32): spline
// s of layer l (coordinate tIdx[s mod |T|] of row ⌊s/|T|⌋) is lane s mod 8
// of block ⌊s/8⌋ of package rqs32. A layer whose splines are shared by
// groups of rows (contextOnly) keeps the float64 splines.

// uses32 reports whether layer l's splines run in float32 on w.
func (f *Flow) uses32(w *work, l int) bool {
	return w.s32 && f.spl32 != nil && !f.contextOnly(w, l)
}

// states32 returns the float32 state of layer l's spline block b: its
// place in w.k32[l] when the forward pass keeps the states for backward
// (allocated on first use), else one block's scratch.
func (f *Flow) states32(w *work, l, b int, keep bool) []float32 {
	sl := f.spl32.StateLen()
	if !keep {
		return w.s32st
	}
	if w.k32[l] == nil {
		nb := (w.cap*len(f.layers[l].tIdx) + rqs32.Lanes - 1) / rqs32.Lanes
		w.k32[l] = make([]float32, nb*sl)
	}
	return w.k32[l][b*sl : (b+1)*sl]
}

// block32 loads block b of layer l into w: the inputs of its splines from
// h into w.x32 and, with params, their parameters into w.r32 (the width
// and height parameters multiplied by the flow's scale, f.scale32), zeros
// in the lanes past the last spline. It returns the number of splines in
// the block.
func (f *Flow) block32(w *work, l, b int, h []float64, params bool) int {
	c := f.layers[l]
	D, P, nt := f.cfg.Dim, f.nsp, len(c.tIdx)
	ns := w.n * nt
	s0 := b * rqs32.Lanes
	m := min(rqs32.Lanes, ns-s0)
	raw := w.raw[l]
	if params && m == rqs32.Lanes {
		rqs32.Load(w.r32, raw[s0*P:(s0+m)*P], f.scale32)
		params = false
	}
	for lane := 0; lane < rqs32.Lanes; lane++ {
		if lane >= m {
			w.x32[lane] = 0
			if params {
				for j := 0; j < P; j++ {
					w.r32[j*rqs32.Lanes+lane] = 0
				}
			}
			continue
		}
		s := s0 + lane
		w.x32[lane] = float32(h[(s/nt)*D+c.tIdx[s%nt]])
		if !params {
			continue
		}
		for j, v := range raw[s*P : (s+1)*P] {
			w.r32[j*rqs32.Lanes+lane] = float32(v * f.scale32[j])
		}
	}
	return m
}

// inside32 reports whether input x lies where the float32 spline acts:
// rqs32 decides on x rounded to float32.
func (f *Flow) inside32(x float64) bool {
	v := float32(x)
	return v >= -f.spl32.B && v <= f.spl32.B
}

// forward32 applies layer l's splines in float32 to the transformed
// coordinates of hin, writing them into hout (which holds a copy of hin)
// and adding their log-derivatives to w.ld. Inputs outside [−B, B] pass
// through unrounded.
func (f *Flow) forward32(w *work, l int, hin, hout []float64) {
	c := f.layers[l]
	D, nt := f.cfg.Dim, len(c.tIdx)
	nb := (w.n*nt + rqs32.Lanes - 1) / rqs32.Lanes
	for b := 0; b < nb; b++ {
		m := f.block32(w, l, b, hin, true)
		st := f.states32(w, l, b, w.kept)
		f.spl32.Knots(st, w.r32)
		f.spl32.Forward(st, &w.x32, &w.y32, &w.l32)
		for lane := 0; lane < m; lane++ {
			s := b*rqs32.Lanes + lane
			i := s / nt
			k := i*D + c.tIdx[s%nt]
			if f.inside32(hin[k]) {
				hout[k] = float64(w.y32[lane])
				w.ld[i] += float64(w.l32[lane])
			}
		}
	}
}

// backward32 back-propagates g (n×D, with respect to layer l's outputs,
// overwritten with the gradient with respect to its inputs hin) and the
// log-determinant weights dlogq through layer l's float32 splines,
// writing the gradient with respect to the conditioner's outputs into
// w.graw. The states come from the forward pass when it kept them.
func (f *Flow) backward32(w *work, l int, hin, g, dlogq []float64) {
	c := f.layers[l]
	D, P, nt := f.cfg.Dim, f.nsp, len(c.tIdx)
	nb := (w.n*nt + rqs32.Lanes - 1) / rqs32.Lanes
	for b := 0; b < nb; b++ {
		m := f.block32(w, l, b, hin, !w.kept)
		st := f.states32(w, l, b, w.kept)
		if !w.kept {
			f.spl32.Knots(st, w.r32)
		}
		for lane := 0; lane < rqs32.Lanes; lane++ {
			w.gy32[lane], w.gl32[lane] = 0, 0
			if lane < m {
				s := b*rqs32.Lanes + lane
				i := s / nt
				w.gy32[lane] = float32(g[i*D+c.tIdx[s%nt]])
				w.gl32[lane] = float32(dlogq[i])
			}
		}
		f.spl32.Backward(st, &w.x32, &w.gy32, &w.gl32, &w.gx32, w.r32)
		s0 := b * rqs32.Lanes
		if m == rqs32.Lanes {
			rqs32.Store(w.graw[s0*P:(s0+m)*P], w.r32, f.scale32)
		}
		for lane := 0; lane < m; lane++ {
			s := s0 + lane
			i := s / nt
			k := i*D + c.tIdx[s%nt]
			if f.inside32(hin[k]) {
				g[k] = float64(w.gx32[lane]) // outside, the identity leaves g as it is
			}
			if m == rqs32.Lanes {
				continue
			}
			for j := 0; j < P; j++ {
				w.graw[s*P+j] = float64(w.r32[j*rqs32.Lanes+lane]) * f.scale32[j]
			}
		}
	}
}
