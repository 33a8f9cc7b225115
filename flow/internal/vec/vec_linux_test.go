//go:build linux

package vec

import (
	"math"
	"math/rand/v2"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// fenced returns a copy of v in memory bounded by inaccessible pages: it
// starts at the beginning of a page (end false) or ends at the end of one
// (end true), right after or before a page that faults on any access.
func fenced(t *testing.T, v []float64, end bool) []float64 {
	t.Helper()
	page := os.Getpagesize()
	if len(v)*8 > page {
		t.Fatalf("fenced: %d values do not fit in a page", len(v))
	}
	mem, err := syscall.Mmap(-1, 0, 3*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[:page], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mprotect(mem[2*page:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	off := page
	if end {
		off = 2*page - 8*len(v)
	}
	f := unsafe.Slice((*float64)(unsafe.Pointer(&mem[off])), len(v))
	copy(f, v)
	return f
}

// TestFenced runs every function with each slice argument against an
// inaccessible page, before its first element or after its last, so that
// reading or writing outside the slices (a masked lane included) faults,
// and compares the results with those in ordinary memory.
func TestFenced(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(19, 20))
		for _, k := range kernels {
			for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 33} {
				a := kernelArgs(r, k, n)
				want, _ := clone(a, 0)
				k.run(want)
				for _, end := range []bool{false, true} {
					f := make([][]float64, k.args)
					for j := range a {
						f[j] = fenced(t, a[j], end)
					}
					k.run(f)
					for j := range f {
						for i := range f[j] {
							if math.Float64bits(f[j][i]) != math.Float64bits(want[j][i]) {
								t.Fatalf("%s n=%d end=%v: argument %d [%d] = %v, want %v", k.name, n, end, j, i, f[j][i], want[j][i])
							}
						}
					}
				}
			}
		}
		// Rows: the gates and acc are a row long, the other arguments
		// hold the rows.
		for _, h := range []int{1, 2, 3, 5, 7, 13, 17, 35} {
			for _, rows := range []int{1, 3} {
				n := h * rows
				next, hh, tt, gn := randVec(r, n, 1), randVec(r, n, 1), randVec(r, n, 1), randVec(r, n, 1)
				g, acc := randVec(r, h, 1), randVec(r, h, 1)
				wNext, wGt, wAcc := make([]float64, n), make([]float64, n), append([]float64(nil), acc...)
				MulAddRows(wNext, hh, tt, g, rows)
				GateAccumulateRows(wGt, wAcc, gn, g, tt, rows)
				for _, end := range []bool{false, true} {
					fNext, fh, ft, fg := fenced(t, next, end), fenced(t, hh, end), fenced(t, tt, end), fenced(t, g, end)
					MulAddRows(fNext, fh, ft, fg, rows)
					same(t, "fenced MulAddRows", n, fNext, wNext)
					fGt, fAcc, fgn := fenced(t, next, end), fenced(t, acc, end), fenced(t, gn, end)
					GateAccumulateRows(fGt, fAcc, fgn, fg, ft, rows)
					same(t, "fenced GateAccumulateRows gt", n, fGt, wGt)
					same(t, "fenced GateAccumulateRows acc", h, fAcc, wAcc)
				}
			}
		}
	})
}
