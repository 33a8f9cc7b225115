// Package ldpdata loads the real data sets of the LDP paper's experiments
// (Wine, Adult, the filtered Kosarak) and holds the preprocessing the paper
// describes (§4.1–4.2: centring, PCA, an 80/20 split) and the test
// metrics, for the examples under examples/reproduce/ldp.
package ldpdata

import (
	"bufio"
	"embed"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

//go:embed wine/winequality-red.csv wine/winequality-white.csv
var wineFS embed.FS

// WineFeatures is the number of Wine inputs: the 11 physicochemical
// measurements and an indicator of red wine (the paper's "12 features").
const WineFeatures = 12

// Wine returns the 6,497 wines of Cortez et al. (2009) (UCI Wine Quality,
// CC BY 4.0; see wine/SOURCE.txt), red then white: x row-major n×12 and
// the quality scores y (3 to 9).
func Wine() (x, y []float64, err error) {
	for _, f := range []struct {
		name string
		red  float64
	}{{"wine/winequality-red.csv", 1}, {"wine/winequality-white.csv", 0}} {
		b, err := wineFS.ReadFile(f.name)
		if err != nil {
			return nil, nil, err
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		for i, line := range lines[1:] {
			fields := strings.Split(strings.TrimSpace(line), ";")
			if len(fields) != 12 {
				return nil, nil, fmt.Errorf("%s line %d: %d fields, want 12", f.name, i+2, len(fields))
			}
			for j, s := range fields {
				v, err := strconv.ParseFloat(s, 64)
				if err != nil {
					return nil, nil, fmt.Errorf("%s line %d: %w", f.name, i+2, err)
				}
				if j < 11 {
					x = append(x, v)
				} else {
					y = append(y, v)
				}
			}
			x = append(x, f.red)
		}
	}
	return x, y, nil
}

// Adult column layout: the six continuous columns are kept, every
// categorical column is one-hot encoded over the categories present.
var adultContinuous = []int{0, 2, 4, 10, 11, 12} // age, fnlwgt, education-num, capital-gain, capital-loss, hours-per-week
var adultCategorical = []int{1, 3, 5, 6, 7, 8, 9, 13}

// Adult reads adult.data and adult.test from dir (UCI Adult, Becker and
// Kohavi 1996), drops the records with a missing value ('?'), as is usual
// (45,222 records remain), and returns x row-major n×p (six continuous
// columns, then one-hot indicators of every category of the eight
// categorical columns) and y = 1 for income >50K.
func Adult(dir string) (x, y []float64, p int, err error) {
	var rows [][]string
	for _, name := range []string{"adult.data", "adult.test"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return nil, nil, 0, err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "|") {
				continue
			}
			fields := strings.Split(line, ",")
			if len(fields) != 15 {
				f.Close()
				return nil, nil, 0, fmt.Errorf("%s: a record with %d fields, want 15", name, len(fields))
			}
			missing := false
			for i := range fields {
				fields[i] = strings.TrimSpace(fields[i])
				if fields[i] == "?" {
					missing = true
				}
			}
			if !missing {
				rows = append(rows, fields)
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, nil, 0, err
		}
	}
	if len(rows) == 0 {
		return nil, nil, 0, errors.New("adult: no records")
	}
	cats := make([][]string, len(adultCategorical))
	for c, col := range adultCategorical {
		seen := map[string]bool{}
		for _, r := range rows {
			if !seen[r[col]] {
				seen[r[col]] = true
				cats[c] = append(cats[c], r[col])
			}
		}
		sort.Strings(cats[c])
	}
	p = len(adultContinuous)
	for _, c := range cats {
		p += len(c)
	}
	x = make([]float64, 0, len(rows)*p)
	y = make([]float64, len(rows))
	for i, r := range rows {
		for _, col := range adultContinuous {
			v, err := strconv.ParseFloat(r[col], 64)
			if err != nil {
				return nil, nil, 0, fmt.Errorf("adult record %d: %w", i, err)
			}
			x = append(x, v)
		}
		for c, col := range adultCategorical {
			for _, v := range cats[c] {
				if r[col] == v {
					x = append(x, 1)
				} else {
					x = append(x, 0)
				}
			}
		}
		if strings.HasPrefix(r[14], ">50K") {
			y[i] = 1
		}
	}
	return x, y, p, nil
}

// KosarakTransactions reads the filtered Kosarak of Benson, Kumar and
// Tomkins (2018) (one transaction per line, space-separated item ids)
// and returns the item of every occurrence, transaction by transaction.
func KosarakTransactions(path string) ([]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readItems(f)
}

func readItems(r io.Reader) ([]int, error) {
	var items []int
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		for _, s := range strings.Fields(sc.Text()) {
			v, err := strconv.Atoi(s)
			if err != nil {
				return nil, fmt.Errorf("kosarak: %w", err)
			}
			items = append(items, v)
		}
	}
	return items, sc.Err()
}

// Split returns a random permutation of 0..n−1 cut into the first
// ⌊frac·n⌋ indices (train) and the rest (test).
func Split(r *rand.Rand, n int, frac float64) (train, test []int) {
	perm := r.Perm(n)
	k := int(frac * float64(n))
	return perm[:k], perm[k:]
}

// Rows returns the rows idx of the row-major n×p matrix x.
func Rows(x []float64, p int, idx []int) []float64 {
	out := make([]float64, 0, len(idx)*p)
	for _, i := range idx {
		out = append(out, x[i*p:(i+1)*p]...)
	}
	return out
}

// Pick returns v[idx].
func Pick(v []float64, idx []int) []float64 {
	out := make([]float64, len(idx))
	for k, i := range idx {
		out[k] = v[i]
	}
	return out
}

// Projection standardises p inputs, projects them on their first d
// principal components and scales the result so that a given quantile of
// the training norms is 1; Apply can then clip every norm to 1 (R = 1 in
// the paper's sensitivity bounds). All of it is fitted on the training
// inputs, as the paper's preprocessing is: it is outside the privacy
// accounting.
type Projection struct {
	P, D  int
	Mean  []float64 // per input
	Sd    []float64 // per input (1 for a constant input)
	Basis []float64 // p×d, the leading eigenvectors of the correlation matrix
	Scale float64   // divides the projected vector
}

// FitProjection fits the projection to x (row-major n×p) keeping d
// components and scaling the norm quantile q (in (0, 1]) to 1.
func FitProjection(x []float64, p, d int, q float64) (*Projection, error) {
	n := len(x) / p
	if p < 1 || n < 2 || len(x) != n*p || d < 1 || d > p || !(q > 0 && q <= 1) {
		return nil, fmt.Errorf("ldpdata: FitProjection needs n ≥ 2 rows of p ≥ 1 inputs, 1 ≤ d ≤ p and q in (0, 1]; got n=%d p=%d d=%d q=%v", n, p, d, q)
	}
	pr := &Projection{P: p, D: d, Mean: make([]float64, p), Sd: make([]float64, p)}
	for i := range n {
		for j := range p {
			pr.Mean[j] += x[i*p+j] / float64(n)
		}
	}
	for i := range n {
		for j := range p {
			v := x[i*p+j] - pr.Mean[j]
			pr.Sd[j] += v * v / float64(n-1)
		}
	}
	for j := range p {
		pr.Sd[j] = math.Sqrt(pr.Sd[j])
		if pr.Sd[j] == 0 {
			pr.Sd[j] = 1
		}
	}
	cov := make([]float64, p*p)
	z := make([]float64, p)
	for i := range n {
		for j := range p {
			z[j] = (x[i*p+j] - pr.Mean[j]) / pr.Sd[j]
		}
		for j := range p {
			for k := 0; k <= j; k++ {
				cov[j*p+k] += z[j] * z[k] / float64(n-1)
			}
		}
	}
	for j := range p {
		for k := 0; k < j; k++ {
			cov[k*p+j] = cov[j*p+k]
		}
	}
	vals, vecs := jacobiEigen(cov, p)
	order := make([]int, p)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return vals[order[a]] > vals[order[b]] })
	pr.Basis = make([]float64, p*d)
	for c := range d {
		col := order[c]
		// Fix the sign: the largest loading positive.
		sgn, big := 1.0, 0.0
		for j := range p {
			if v := vecs[j*p+col]; math.Abs(v) > big {
				big, sgn = math.Abs(v), math.Copysign(1, v)
			}
		}
		for j := range p {
			pr.Basis[j*d+c] = sgn * vecs[j*p+col]
		}
	}
	pr.Scale = 1
	proj := pr.Apply(x, false)
	norms := make([]float64, n)
	for i := range n {
		norms[i] = norm(proj[i*d : (i+1)*d])
	}
	slices.Sort(norms)
	s := norms[min(n-1, int(math.Ceil(q*float64(n)))-1)]
	if !(s > 0) {
		s = 1
	}
	pr.Scale = s
	return pr, nil
}

// Apply returns the projected, scaled inputs (row-major n×d), each
// clipped to norm 1 when clip is true.
func (pr *Projection) Apply(x []float64, clip bool) []float64 {
	n := len(x) / pr.P
	out := make([]float64, n*pr.D)
	z := make([]float64, pr.P)
	for i := range n {
		for j := range pr.P {
			z[j] = (x[i*pr.P+j] - pr.Mean[j]) / pr.Sd[j]
		}
		o := out[i*pr.D : (i+1)*pr.D]
		for c := range pr.D {
			s := 0.0
			for j := range pr.P {
				s += z[j] * pr.Basis[j*pr.D+c]
			}
			o[c] = s / pr.Scale
		}
		if clip {
			if nr := norm(o); nr > 1 {
				for c := range o {
					o[c] /= nr
				}
			}
		}
	}
	return out
}

func norm(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// jacobiEigen returns the eigenvalues and eigenvectors (columns of the
// row-major p×p result) of the symmetric matrix a by cyclic Jacobi
// rotations.
func jacobiEigen(a []float64, p int) (vals, vecs []float64) {
	m := append([]float64(nil), a...)
	vecs = make([]float64, p*p)
	for i := range p {
		vecs[i*p+i] = 1
	}
	for sweep := 0; sweep < 100; sweep++ {
		off := 0.0
		for i := range p {
			for j := i + 1; j < p; j++ {
				off += m[i*p+j] * m[i*p+j]
			}
		}
		if off < 1e-30 {
			break
		}
		for i := range p {
			for j := i + 1; j < p; j++ {
				if math.Abs(m[i*p+j]) < 1e-300 {
					continue
				}
				theta := (m[j*p+j] - m[i*p+i]) / (2 * m[i*p+j])
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := range p {
					mki, mkj := m[k*p+i], m[k*p+j]
					m[k*p+i] = c*mki - s*mkj
					m[k*p+j] = s*mki + c*mkj
				}
				for k := range p {
					mik, mjk := m[i*p+k], m[j*p+k]
					m[i*p+k] = c*mik - s*mjk
					m[j*p+k] = s*mik + c*mjk
				}
				for k := range p {
					vki, vkj := vecs[k*p+i], vecs[k*p+j]
					vecs[k*p+i] = c*vki - s*vkj
					vecs[k*p+j] = s*vki + c*vkj
				}
			}
		}
	}
	vals = make([]float64, p)
	for i := range p {
		vals[i] = m[i*p+i]
	}
	return vals, vecs
}

// AUC returns the area under the ROC curve of score for the 0/1 labels y
// (the Mann–Whitney statistic, ties counted one half); NaN without both
// classes.
func AUC(score, y []float64) float64 {
	idx := make([]int, len(score))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return score[idx[a]] < score[idx[b]] })
	var pos, neg, rankSum float64
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && score[idx[j]] == score[idx[i]] {
			j++
		}
		mid := float64(i+j+1) / 2 // average rank, 1-based
		for k := i; k < j; k++ {
			if y[idx[k]] == 1 {
				rankSum += mid
				pos++
			} else {
				neg++
			}
		}
		i = j
	}
	if pos == 0 || neg == 0 {
		return math.NaN()
	}
	return (rankSum - pos*(pos+1)/2) / (pos * neg)
}

// RMSE returns the root mean squared difference of a and b.
func RMSE(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s / float64(len(a)))
}
