package tb

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// partition is a multiset of genotype sizes, sorted in decreasing order.
type partition []int

func (p partition) key() string { return fmt.Sprint([]int(p)) }

func (p partition) total() int {
	s := 0
	for _, v := range p {
		s += v
	}
	return s
}

func normalise(p []int) partition {
	q := slices.DeleteFunc(slices.Clone(p), func(v int) bool { return v == 0 })
	sort.Sort(sort.Reverse(sort.IntSlice(q)))
	return q
}

// partitionsOf lists the partitions of k.
func partitionsOf(k, maxPart int) []partition {
	if k == 0 {
		return []partition{{}}
	}
	var out []partition
	for first := min(k, maxPart); first >= 1; first-- {
		for _, rest := range partitionsOf(k-first, first) {
			out = append(out, append(partition{first}, rest...))
		}
	}
	return out
}

// bdmExactLaw returns the law of the genotype partition at the first time
// the birth–death–mutation chain reaches N cases (restarting from one case
// at extinction), by solving the linear system of absorption
// probabilities over the partitions of 1, …, N − 1.
func bdmExactLaw(N int, pb, pd, pm float64) map[string]float64 {
	var trans []partition
	idx := map[string]int{}
	for k := 1; k < N; k++ {
		for _, p := range partitionsOf(k, k) {
			idx[p.key()] = len(trans)
			trans = append(trans, p)
		}
	}
	abs := partitionsOf(N, N)
	aidx := map[string]int{}
	for j, p := range abs {
		aidx[p.key()] = j
	}
	m := len(trans)
	// (I − Q) X = R, X[i][j] = P(absorbed in abs[j] | start trans[i]).
	A := make([][]float64, m)
	B := make([][]float64, m)
	for i := range A {
		A[i] = make([]float64, m)
		A[i][i] = 1
		B[i] = make([]float64, len(abs))
	}
	start := idx[partition{1}.key()]
	for i, p := range trans {
		k := float64(p.total())
		for g, s := range p {
			w := float64(s) / k
			add := func(q []int, prob float64) {
				q2 := normalise(q)
				if len(q2) == 0 { // extinction: restart from one case
					A[i][start] -= prob
					return
				}
				if j, ok := idx[q2.key()]; ok {
					A[i][j] -= prob
				} else {
					B[i][aidx[q2.key()]] += prob
				}
			}
			q := slices.Clone([]int(p))
			q[g]++
			add(q, w*pb)
			q = slices.Clone([]int(p))
			q[g]--
			add(q, w*pd)
			q = slices.Clone([]int(p))
			q[g]--
			add(append(q, 1), w*pm)
		}
	}
	// Gaussian elimination with partial pivoting.
	for c := range m {
		piv := c
		for r := c + 1; r < m; r++ {
			if math.Abs(A[r][c]) > math.Abs(A[piv][c]) {
				piv = r
			}
		}
		A[c], A[piv] = A[piv], A[c]
		B[c], B[piv] = B[piv], B[c]
		for r := range m {
			if r == c || A[r][c] == 0 {
				continue
			}
			f := A[r][c] / A[c][c]
			for k := c; k < m; k++ {
				A[r][k] -= f * A[c][k]
			}
			for k := range B[r] {
				B[r][k] -= f * B[c][k]
			}
		}
	}
	law := map[string]float64{}
	for j, p := range abs {
		law[p.key()] = B[start][j] / A[start][start]
	}
	return law
}

// sampleLaw returns the law of the number of genotypes among n cases
// sampled without replacement from the population with partition p, by
// enumerating the subsets.
func sampleLaw(p partition, n int) map[int]float64 {
	var cases []int
	for g, s := range p {
		for range s {
			cases = append(cases, g)
		}
	}
	N := len(cases)
	law := map[int]float64{}
	count := 0
	for mask := 0; mask < 1<<N; mask++ {
		if popcount(mask) != n {
			continue
		}
		seen := map[int]bool{}
		for i := range N {
			if mask>>i&1 == 1 {
				seen[cases[i]] = true
			}
		}
		law[len(seen)]++
		count++
	}
	for k := range law {
		law[k] /= float64(count)
	}
	return law
}

func popcount(x int) int {
	c := 0
	for ; x > 0; x &= x - 1 {
		c++
	}
	return c
}

// TestBDMExactLaw checks the simulator against the exact law of its
// embedded chain at N = 6 cases with a sample of n = 4: the law of the
// partition at absorption (a linear system over the 18 partitions of 1 to
// 5 cases, extinction restarting from one case) mixed with the exact law
// of the number of genotypes g among 4 of 6 cases. 40,000 runs with a fixed
// seed; chi-square test over g ∈ {1, 2, 3, 4} (3 df, critical value 21.1:
// false-alarm rate 1e-4); the gene diversity, a function of the sampled
// counts, is checked against its exact mean (|z| < 4).
func TestBDMExactLaw(t *testing.T) {
	const N, n = 6, 4
	theta := []float64{1, 0.5, 0.3}
	tot := theta[0] + theta[1] + theta[2]
	law := bdmExactLaw(N, theta[0]/tot, theta[1]/tot, theta[2]/tot)
	sum := 0.0
	pg := map[int]float64{}
	for _, p := range partitionsOf(N, N) {
		w := law[p.key()]
		sum += w
		for g, q := range sampleLaw(p, n) {
			pg[g] += w * q
		}
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Fatalf("absorption probabilities sum to %v", sum)
	}
	// Exact mean of H = 1 − Σ n_i²/n² over the sample: E Σ n_i² = n + n(n−1)·P(two
	// distinct sampled cases share a genotype) = n + n(n−1)·Σ_p w_p Σ_i s_i(s_i−1)/(N(N−1)).
	share := 0.0
	for _, p := range partitionsOf(N, N) {
		for _, s := range p {
			share += law[p.key()] * float64(s*(s-1)) / float64(N*(N-1))
		}
	}
	meanH := 1 - (float64(n)+float64(n*(n-1))*share)/float64(n*n)
	m, err := NewBDM(BDMConfig{Population: N, Sample: n})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(81, 82))
	dst := make([]float64, NumBDMStats)
	const reps = 40000
	obs := map[int]float64{}
	var sh, sh2 float64
	for range reps {
		if err := m.Simulate(r, theta, dst); err != nil {
			t.Fatal(err)
		}
		obs[int(dst[BDMGenotypes])]++
		sh += dst[BDMDiversity]
		sh2 += dst[BDMDiversity] * dst[BDMDiversity]
	}
	chi := 0.0
	for g := 1; g <= n; g++ {
		e := reps * pg[g]
		chi += (obs[g] - e) * (obs[g] - e) / e
	}
	mh := sh / reps
	z := (mh - meanH) / math.Sqrt((sh2/reps-mh*mh)/reps)
	t.Logf("g law exact %v, observed %v; χ² = %.2f; mean H %.4f (exact %.4f, z = %.2f)", pg, obs, chi, mh, meanH, z)
	if chi > 21.1 || math.Abs(z) > 4 {
		t.Errorf("BDM does not follow its exact law: χ² = %.2f, z = %.2f", chi, z)
	}
}

// TestBDMSanFranciscoScale runs the model at the paper's size (N = 10,000,
// n = 473) at rates for which the San Francisco values are typical (α = 1,
// δ = 0.3, μ = 0.12, net growth 0.7 and mutation 0.12 as in Tanaka et al.'s
// posterior region) and checks the summaries' ranges; with no mutation
// there is one genotype.
func TestBDMSanFranciscoScale(t *testing.T) {
	m, err := NewBDM(BDMConfig{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(83, 84))
	dst := make([]float64, NumBDMStats)
	for range 5 {
		if err := m.Simulate(r, []float64{1, 0.3, 0.12}, dst); err != nil {
			t.Fatal(err)
		}
		if !(dst[BDMGenotypes] >= 1 && dst[BDMGenotypes] <= 473 && dst[BDMDiversity] >= 0 && dst[BDMDiversity] < 1) {
			t.Fatalf("summary %v out of range", dst)
		}
		t.Logf("g = %v, H = %.4f (San Francisco: 326, 0.9892)", dst[BDMGenotypes], dst[BDMDiversity])
	}
	if err := m.Simulate(r, []float64{1, 0.3, 0}, dst); err != nil {
		t.Fatal(err)
	}
	if dst[BDMGenotypes] != 1 || dst[BDMDiversity] != 0 {
		t.Errorf("without mutation: %v, want one genotype and H = 0", dst)
	}
}
