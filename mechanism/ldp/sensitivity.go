package ldp

import "math"

// LinRegSensitivityConfig holds the arguments of LinRegSensitivity. The
// zero value is refused.
type LinRegSensitivityConfig struct {
	// R bounds each person's input norm ‖x‖2 ≤ R (finite, > 0).
	R float64
	// RY bounds each person's outcome |y| ≤ RY (finite, > 0).
	RY float64
	// Sigma1, Sigma2 and Sigma3 are the noise standard deviations on
	// t2(x), y·x and y² (finite, > 0).
	Sigma1, Sigma2, Sigma3 float64
}

// Validate reports whether c is usable, with an error wrapping ErrInvalid
// that names the offending field.
func (c LinRegSensitivityConfig) Validate() error {
	for _, a := range []struct {
		n string
		v float64
	}{{"R", c.R}, {"RY", c.RY}, {"Sigma1", c.Sigma1}, {"Sigma2", c.Sigma2}, {"Sigma3", c.Sigma3}} {
		if err := checkPositive("LinRegSensitivityConfig."+a.n, a.v); err != nil {
			return err
		}
	}
	return nil
}

// LinRegSensitivity returns the ℓ2 sensitivity of Lemma 3.1 of the LDP
// paper for the per-person linear-regression statistic
// t(x, y) = [t2(x), y·x, y²] released with Gaussian noise of standard
// deviations σ1 (on t2), σ2 (on y·x), σ3 (on y²), ‖x‖2 ≤ R, |y| ≤ RY,
// expressed for a Gaussian mechanism of noise σ1:
//
//	Δ2 = √(σ1⁴RY⁴/(2σ2⁴) + 2R⁴ + 2σ1²RY²R²/σ2² + σ1²RY⁴/σ3²).
func LinRegSensitivity(c LinRegSensitivityConfig) (float64, error) {
	if err := c.Validate(); err != nil {
		return 0, err
	}
	c1 := c.Sigma1 * c.Sigma1 / (c.Sigma2 * c.Sigma2)
	c2 := c.Sigma1 * c.Sigma1 / (c.Sigma3 * c.Sigma3)
	ry2 := c.RY * c.RY
	r2 := c.R * c.R
	return result("sensitivity", math.Sqrt(c1*c1*ry2*ry2/2+2*r2*r2+2*c1*ry2*r2+c2*ry2*ry2))
}

// LinRegSensitivityEqual is Corollary 3.1 of the LDP paper (R = 1,
// σ1 = σ2 = σ3): Δ2 = √(3RY⁴/2 + 2RY² + 2).
func LinRegSensitivityEqual(ry float64) (float64, error) {
	if err := checkPositive("RY", ry); err != nil {
		return 0, err
	}
	r2 := ry * ry
	return result("sensitivity", math.Sqrt(1.5*r2*r2+2*r2+2))
}

// LogRegSensitivityConfig holds the arguments of LogRegSensitivity. The
// zero value is refused.
type LogRegSensitivityConfig struct {
	// R bounds each person's input norm ‖x‖2 ≤ R (finite, > 0).
	R float64
	// Sigma1 and Sigma2 are the noise standard deviations on s1 = y·x
	// and s2 = t2(x) (finite, > 0).
	Sigma1, Sigma2 float64
}

// Validate reports whether c is usable, with an error wrapping ErrInvalid
// that names the offending field.
func (c LogRegSensitivityConfig) Validate() error {
	for _, a := range []struct {
		n string
		v float64
	}{{"R", c.R}, {"Sigma1", c.Sigma1}, {"Sigma2", c.Sigma2}} {
		if err := checkPositive("LogRegSensitivityConfig."+a.n, a.v); err != nil {
			return err
		}
	}
	return nil
}

// LogRegSensitivity returns the ℓ2 sensitivity of Lemma 13.1 of the LDP
// paper for the logistic-regression statistics s1 = y·x (noise σ1) and
// s2 = t2(x) (noise σ2), ‖x‖2 ≤ R, y ∈ {−1, 1}, expressed for a Gaussian
// mechanism of noise σ1:
//
//	Δ2 = √(σ2²/(2σ1²) + 2R² + 2σ1²R⁴/σ2²)
//
// as printed in the paper.
func LogRegSensitivity(c LogRegSensitivityConfig) (float64, error) {
	if err := c.Validate(); err != nil {
		return 0, err
	}
	r2 := c.R * c.R
	s1, s2 := c.Sigma1, c.Sigma2
	return result("sensitivity", math.Sqrt(s2*s2/(2*s1*s1)+2*r2+2*s1*s1*r2*r2/(s2*s2)))
}

// LogRegSensitivityEqual is Corollary 13.1 (R = 1, σ1 = σ2): Δ2 = √(9/2).
func LogRegSensitivityEqual() float64 { return math.Sqrt(4.5) }

// InputSensitivity returns 2R, the ℓ2 sensitivity of releasing an input
// vector with ‖x‖2 ≤ R (LDP paper eq. 45).
func InputSensitivity(r float64) (float64, error) {
	if err := checkPositive("R", r); err != nil {
		return 0, err
	}
	return result("sensitivity 2R", 2*r)
}
