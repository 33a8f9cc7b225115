package rqs32

import "math"

// The portable twin of the assembly: the same steps, lane by lane.

// Cephes' expf and logf constants.
const (
	expHi   = 88.3762626647949
	expLo   = -87.3365478515625
	log2e   = 1.44269504088896341
	ln2C1   = 0.693359375
	ln2C2   = -2.12194440e-4
	sqrtHf  = 0.707106781186547524
	expP0   = 1.9875691500e-4
	expP1   = 1.3981999507e-3
	expP2   = 8.3334519073e-3
	expP3   = 4.1665795894e-2
	expP4   = 1.6666665459e-1
	expP5   = 5.0000001201e-1
	logP0   = 7.0376836292e-2
	logP1   = -1.1514610310e-1
	logP2   = 1.1676998740e-1
	logP3   = -1.2420140846e-1
	logP4   = 1.4249322787e-1
	logP5   = -1.6668057665e-1
	logP6   = 2.0000714765e-1
	logP7   = -2.4999993993e-1
	logP8   = 3.3333331174e-1
	float1  = float32(1)
	float05 = float32(0.5)
)

// expf returns e^x for x clamped to [expLo, expHi] (NaN stays NaN).
func expf(x float32) float32 {
	if x > expHi {
		x = expHi
	} else if x < expLo {
		x = expLo
	}
	fx := float32(math.RoundToEven(float64(x * log2e)))
	x = x - fx*ln2C1
	x = x - fx*ln2C2
	z := x * x
	y := ((((expP0*x+expP1)*x+expP2)*x+expP3)*x+expP4)*x + expP5
	y = y*z + x + 1
	return y * math.Float32frombits(uint32(int32(fx)+127)<<23)
}

// logf returns log x for a positive normal x.
func logf(x float32) float32 {
	b := math.Float32bits(x)
	e := float32(int32(b>>23) - 126)
	m := math.Float32frombits(b&0x007fffff | 0x3f000000) // in [0.5, 1)
	if m < sqrtHf {
		e--
		m = m + m - 1
	} else {
		m = m - 1
	}
	z := m * m
	y := (((((((logP0*m+logP1)*m+logP2)*m+logP3)*m+logP4)*m+logP5)*m+logP6)*m+logP7)*m + logP8
	y = y * m * z
	y += ln2C2 * e
	y -= 0.5 * z
	return m + y + ln2C1*e
}

// softplusSigmoid returns log(1 + e^x) and σ(x).
func softplusSigmoid(x float32) (sp, sg float32) {
	u := expf(-float32(math.Abs(float64(x))))
	w := 1 + u
	lp := u
	if w != 1 {
		lp = logf(w) * (u / (w - 1))
	}
	sp = max(x, 0) + lp
	if x >= 0 {
		sg = 1 / w
	} else {
		sg = u / w
	}
	if x != x {
		sp, sg = x, x
	}
	return sp, sg
}

func (s *Spline) knotsGo(st, raw []float32) {
	K := s.K
	v := func(a []float32, j, l int) *float32 { return &a[j*Lanes+l] }
	for l := 0; l < Lanes; l++ {
		for h := 0; h < 2; h++ {
			off, pOff, kOff := h*K, s.offPW(), s.offX()
			m, a := s.MinW, s.AW
			if h == 1 {
				pOff, kOff = s.offPH(), s.offY()
				m, a = s.MinH, s.AH
			}
			mx := float32(math.Inf(-1))
			for j := 0; j < K; j++ {
				mx = max(mx, *v(raw, off+j, l))
			}
			sum := float32(0)
			for j := 0; j < K; j++ {
				e := expf(*v(raw, off+j, l) - mx)
				*v(st, pOff+j, l) = e
				sum += e
			}
			c := float32(0)
			*v(st, kOff, l) = -s.B
			for j := 0; j < K; j++ {
				p := *v(st, pOff+j, l) / sum
				*v(st, pOff+j, l) = p
				if j < K-1 {
					c += m + a*p
					*v(st, kOff+j+1, l) = -s.B + s.B2*c
				}
			}
			*v(st, kOff+K, l) = s.B
		}
		*v(st, s.offD(), l), *v(st, s.offD()+K, l) = 1, 1
		for j := 1; j < K; j++ {
			sp, sg := softplusSigmoid(*v(raw, 2*K+j-1, l))
			*v(st, s.offD()+j, l) = s.MinD + sp
			*v(st, s.offSG()+j-1, l) = sg
		}
	}
}

// segment returns lane l's bin k for x and its knots.
func (s *Spline) segment(st []float32, l int, x float32) (k int, xk, xk1, yk, yk1, dk, dk1 float32) {
	at := func(j int) float32 { return st[j*Lanes+l] }
	for k < s.K-1 && x >= at(s.offX()+k+1) {
		k++
	}
	return k, at(s.offX() + k), at(s.offX() + k + 1), at(s.offY() + k), at(s.offY() + k + 1), at(s.offD() + k), at(s.offD() + k + 1)
}

func (s *Spline) forwardGo(st []float32, x, y, ld *[Lanes]float32) {
	for l, xv := range x {
		if !(xv >= -s.B && xv <= s.B) {
			y[l], ld[l] = xv, 0
			continue
		}
		_, xk, xk1, yk, yk1, dk, dk1 := s.segment(st, l, xv)
		wk, hk := xk1-xk, yk1-yk
		sk := hk / wk
		th := min(max((xv-xk)/wk, 0), 1)
		T := th * (1 - th)
		// sk + (δk + δk+1 − 2sk)T, summed without cancellation.
		den := sk*(1-2*T) + (dk+dk1)*T
		y[l] = yk + hk*(sk*th*th+dk*T)/den
		E := dk1*th*th + 2*sk*T + dk*(1-th)*(1-th)
		r := sk / den
		ld[l] = logf(r * r * E)
	}
}

func (s *Spline) backwardGo(st []float32, x, gy, gl, gx *[Lanes]float32, graw []float32) {
	K := s.K
	for l, xv := range x {
		k, a := -2, [6]float32{} // no bin: no knot gradient
		if !(xv >= -s.B && xv <= s.B) {
			gx[l] = gy[l]
		} else {
			k, gx[l], a = s.laneBackward(st, l, xv, gy[l], gl[l])
		}
		cumBackward(st[s.offPW()*Lanes:], l, k, a[0], a[1], s.B2*s.AW, K, graw[:K*Lanes])
		cumBackward(st[s.offPH()*Lanes:], l, k, a[2], a[3], s.B2*s.AH, K, graw[K*Lanes:2*K*Lanes])
		for j := 1; j < K; j++ {
			gd := float32(0)
			if j == k {
				gd = a[4]
			} else if j == k+1 {
				gd = a[5]
			}
			graw[(2*K+j-1)*Lanes+l] = gd * st[(s.offSG()+j-1)*Lanes+l]
		}
	}
}

// laneBackward returns the bin k of lane l, which is inside [−B, B], its
// gradient with respect to x, and its knot gradients: those of X[k],
// X[k+1], Y[k], Y[k+1], D[k] and D[k+1], in this order.
func (s *Spline) laneBackward(st []float32, l int, x, gy, gl float32) (k int, gx float32, a [6]float32) {
	k, xk, xk1, yk, yk1, dk, dk1 := s.segment(st, l, x)
	wk, hk := xk1-xk, yk1-yk
	sk := hk / wk
	rw := 1 / wk
	th := (x - xk) / wk
	clamped := false
	if th < 0 {
		th, clamped = 0, true
	} else if th > 1 {
		th, clamped = 1, true
	}
	T := th * (1 - th)
	Tth := 1 - 2*th
	c2 := dk + dk1 - 2*sk
	denS := 1 - 2*T
	den := sk*denS + (dk+dk1)*T // sk + c2·T without cancellation
	rd := 1 / den
	num := hk * (sk*th*th + dk*T)
	f := num * rd
	E := dk1*th*th + 2*sk*T + dk*(1-th)*(1-th)
	rE := 1 / E

	denTh := c2 * Tth
	fTh := (hk*(2*sk*th+dk*Tth) - f*denTh) * rd
	fS := (hk*th*th - f*denS) * rd
	fH := (sk*th*th + dk*T) * rd
	fDk := (hk*T - f*T) * rd
	fDk1 := -f * T * rd
	ETh := 2*dk1*th + 2*sk*Tth - 2*dk*(1-th)
	LTh := ETh*rE - 2*denTh*rd
	LS := 2/sk + 2*T*rE - 2*denS*rd
	LDk := (1-th)*(1-th)*rE - 2*T*rd
	LDk1 := th*th*rE - 2*T*rd

	gth := gy*fTh + gl*LTh
	if clamped {
		gth = 0
	}
	gs := gy*fS + gl*LS
	gh := gy*fH + gs*rw
	gw := -gth*th*rw - gs*sk*rw
	a = [6]float32{-gth*rw - gw, gw, gy - gh, gh, gy*fDk + gl*LDk, gy*fDk1 + gl*LDk1}
	return k, gth * rw, a
}

// cumBackward writes lane l of g, the gradient with respect to the
// softmax's inputs of knots whose gradient is a0 at knot k, a1 at knot
// k+1 and 0 elsewhere (k = −2 for none); the boundary knots 0 and K are
// fixed, so their gradients are dropped. Knot m sits at
// −B + 2B(m·min + (1 − K·min)·P_m) with P_m = Σ_{j<m} p_j, so with
// c = 2B·(1 − K·min) the gradient is
//
//	g_i = c·p_i·Σ_m gX[m]·(1[m > i] − P_m)
//	    = c·p_i·Σ_m gX[m]·(Q_m if m > i, −P_m otherwise),  Q_m = Σ_{j≥m} p_j,
//
// the softmax's p_i(a_i − Σ_j p_j a_j) with a_i = c·Σ_{m>i} gX[m] summed
// in an order free of cancellation: the direct form loses a relative
// 2⁻²⁴/p_i in float32 when the last bins are narrow.
func cumBackward(p []float32, l, k int, a0, a1, c float32, K int, g []float32) {
	if k < 1 {
		a0 = 0 // knot 0 is fixed (or no bin)
	}
	if k+1 > K-1 {
		a1 = 0 // knot K is fixed
	}
	var Pk, Pk1, Qk, Qk1 float32
	for j := 0; j < K; j++ {
		pj := p[j*Lanes+l]
		if j < k {
			Pk += pj
		} else {
			Qk += pj
		}
		if j < k+1 {
			Pk1 += pj
		} else {
			Qk1 += pj
		}
	}
	for i := 0; i < K; i++ {
		t0, t1 := -a0*Pk, -a1*Pk1
		if k > i {
			t0 = a0 * Qk
		}
		if k+1 > i {
			t1 = a1 * Qk1
		}
		g[i*Lanes+l] = c * p[i*Lanes+l] * (t0 + t1)
	}
}
