package ldpdata

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
)

func TestWine(t *testing.T) {
	x, y, err := Wine()
	if err != nil {
		t.Fatal(err)
	}
	if len(y) != 6497 || len(x) != 6497*WineFeatures {
		t.Fatalf("%d wines, %d values; want 6497 and %d", len(y), len(x), 6497*WineFeatures)
	}
	red := 0
	for i := range y {
		red += int(x[i*WineFeatures+11])
		if y[i] < 3 || y[i] > 9 {
			t.Fatalf("quality %v", y[i])
		}
	}
	if red != 1599 {
		t.Errorf("%d red wines, want 1599", red)
	}
}

func TestAdult(t *testing.T) {
	dir, ok := cli.SharedFile("data/adult/adult.data")
	if !ok {
		t.Skip("the shared Adult data is not present")
	}
	x, y, p, err := Adult(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	pos := 0.0
	for _, v := range y {
		pos += v
	}
	// adult.names: 45,222 complete records, 11,208 of them >50K.
	if len(y) != 45222 || len(x) != len(y)*p || pos != 11208 {
		t.Errorf("%d records, %v positive, p = %d", len(y), pos, p)
	}
}

func TestKosarakReader(t *testing.T) {
	items, err := readItems(strings.NewReader("3 6 379\n1 3\n\n7\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 6 || items[0] != 3 || items[5] != 7 {
		t.Errorf("items %v", items)
	}
	if _, err := readItems(strings.NewReader("1 x\n")); err == nil {
		t.Error("bad item: want an error")
	}
	if path, ok := cli.SharedFile("data/kosarak/benson_kosarak-5-25.txt"); ok {
		items, err := KosarakTransactions(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(items) != 1240384 { // SOURCE.txt: 1,240,384 item occurrences
			t.Errorf("%d occurrences, want 1240384", len(items))
		}
	}
	if _, err := KosarakTransactions(filepath.Join(os.TempDir(), "no-such-kosarak")); err == nil {
		t.Error("missing file: want an error")
	}
}

func TestAUC(t *testing.T) {
	// 2 positives, 3 negatives: pairs (pos > neg) = 5 of 6 with one tie.
	score := []float64{0.1, 0.4, 0.35, 0.8, 0.4}
	y := []float64{0, 0, 1, 1, 1}
	// positives 0.35, 0.8, 0.4 vs negatives 0.1, 0.4: wins 1+2+1.5 = 4.5 of 6... positives are 3, negatives 2.
	if got := AUC(score, y); math.Abs(got-4.5/6) > 1e-15 {
		t.Errorf("AUC = %v, want 0.75", got)
	}
	if !math.IsNaN(AUC([]float64{1, 2}, []float64{1, 1})) {
		t.Error("one class: want NaN")
	}
}

func TestProjection(t *testing.T) {
	// Inputs with a known principal direction: x = (u, 2u + small, w).
	r := rand.New(rand.NewPCG(1, 2))
	n, p := 2000, 3
	x := make([]float64, n*p)
	for i := range n {
		u := r.NormFloat64()
		x[i*p], x[i*p+1], x[i*p+2] = u, 2*u+0.05*r.NormFloat64(), 0.3*r.NormFloat64()
	}
	pr, err := FitProjection(x, p, 2, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	// Orthonormal basis; the first component loads on the first two
	// (standardised) inputs equally.
	for a := range 2 {
		for b := range 2 {
			s := 0.0
			for j := range p {
				s += pr.Basis[j*2+a] * pr.Basis[j*2+b]
			}
			want := 0.0
			if a == b {
				want = 1
			}
			if math.Abs(s-want) > 1e-10 {
				t.Errorf("basis (%d, %d) inner product %v", a, b, s)
			}
		}
	}
	if math.Abs(pr.Basis[0]-pr.Basis[2]) > 0.01 || math.Abs(pr.Basis[4]) > 0.05 {
		t.Errorf("first component %v %v %v", pr.Basis[0], pr.Basis[2], pr.Basis[4])
	}
	z := pr.Apply(x, true)
	inside := 0
	for i := range n {
		nr := math.Hypot(z[2*i], z[2*i+1])
		if nr > 1+1e-12 {
			t.Fatalf("row %d norm %v after clipping", i, nr)
		}
		if nr < 1-1e-12 {
			inside++
		}
	}
	if inside < 1790 || inside > 1810 { // 90% quantile scaled to 1
		t.Errorf("%d of %d rows strictly inside the unit ball, want about 1800", inside, n)
	}
	if _, err := FitProjection(x, p, 4, 0.9); err == nil {
		t.Error("d > p: want an error")
	}
}
