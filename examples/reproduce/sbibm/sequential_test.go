package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
)

func TestSequentialBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-sequential", "snre"}, {"-sequential", "snpe,snpe"}, {"-sequential", "snpe", "-rounds", "0"},
		{"-sequential", "snle", "-rounds", "101"}, {"-sequential", "snpe", "-sims-per-round", "10"},
		{"-sequential", "snpe", "-simulate-only", "-out", t.TempDir()},
		{"-sequential", "snle", "-chains", "-1"}, {"-sequential", "snle", "-chains", "1001"},
	} {
		if _, err := runArgs(args...); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
}

// TestSequentialRun runs SNPE and SNLE for 2 rounds of 100 two-moons
// simulations at observation 1 with 100 draws (skipped without the
// benchmark's reference files). It checks the result rows (a C2ST in
// [0.39, 1]: with 100 draws against 100 reference draws a classifier's
// accuracy has a standard deviation of about 0.035 even when the two
// samples come from one distribution, so a score may fall a little below
// chance, but not by three standard deviations), the files written to -out, that a second run reads the results
// back instead of training, and the peer path: our own draws and record
// given as the peer's score exactly as ours.
func TestSequentialRun(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	needReferences(t)
	dir := t.TempDir()
	args := []string{"-sequential", "snpe,snle", "-tasks", "two_moons", "-rounds", "2", "-sims-per-round", "100",
		"-obs", "1", "-samples", "100", "-out", dir}
	out, stderr, err := runArgsStderr(append(args, "-proposals")...)
	if err != nil {
		t.Fatal(err)
	}
	// -proposals: round 2's 100 parameters, inside the prior's box.
	for _, m := range []string{"snpe", "snle"} {
		b, err := os.ReadFile(filepath.Join(dir, "two_moons_"+m+"_2x100_o1_ours_proposals.csv"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 101 || !strings.HasPrefix(lines[0], "round,") {
			t.Fatalf("%s proposals: %d lines, header %q; want 101 and round first", m, len(lines), lines[0])
		}
		for _, l := range lines[1:] {
			f := strings.Split(l, ",")
			if len(f) != 3 || f[0] != "2" {
				t.Fatalf("%s proposals: row %q, want round 2 and two parameters", m, l)
			}
			for _, v := range f[1:] {
				if x, err := strconv.ParseFloat(v, 64); err != nil || math.Abs(x) > 1 {
					t.Fatalf("%s proposals: row %q outside the prior's box [-1, 1]²", m, l)
				}
			}
		}
	}
	row := func(out, method string) []string {
		t.Helper()
		m := regexp.MustCompile(`\| two_moons \| 1 +\| ` + method + ` .*`).FindString(out)
		if m == "" {
			t.Fatalf("no %s row in\n%s", method, out)
		}
		cells := strings.Split(m, "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		return cells[1 : len(cells)-1]
	}
	for _, m := range []string{"snpe", "snle"} {
		cells := row(out, m)
		if score, err := strconv.ParseFloat(cells[3], 64); err != nil || score < 0.39 || score > 1 {
			t.Errorf("%s: C2ST %q", m, cells[3])
		}
		if !strings.HasSuffix(cells[4], "s") || cells[4] == "—" {
			t.Errorf("%s: training CPU %q", m, cells[4])
		}
		for _, f := range []string{"_ours.csv", "_ours.txt"} {
			if _, err := os.Stat(filepath.Join(dir, "two_moons_"+m+"_2x100_o1"+f)); err != nil {
				t.Error(err)
			}
		}
	}
	if !strings.Contains(stderr, "round 2/2") {
		t.Errorf("no progress of round 2 in\n%s", stderr)
	}
	for _, f := range []string{"seq_two_moons_snpe_o1", "seq_two_moons_snle_o1", "seq_snpe_c2st", "seq_snle_c2st"} {
		for _, ext := range []string{".svg", ".png"} {
			if st, err := os.Stat(filepath.Join(dir, f+ext)); err != nil || st.Size() == 0 {
				t.Errorf("plot %s%s: %v", f, ext, err)
			}
		}
	}

	// A second run reads both results from -out.
	again, stderr, err := runArgsStderr(args...)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr, "epoch") || strings.Count(stderr, "cached in") != 2 {
		t.Errorf("the second run trained again:\n%s", stderr)
	}
	for _, m := range []string{"snpe", "snle"} {
		first, second := row(out, m), row(again, m)
		if second[3] != first[3]+"*" || second[4] != first[4] {
			t.Errorf("%s: cached row %v, first %v", m, second, first)
		}
	}

	// Our files as the peer's: the same C2ST, the recorded times.
	peer := t.TempDir()
	for _, m := range []string{"snpe", "snle"} {
		base := "two_moons_" + m + "_2x100_o1"
		draws, _ := os.ReadFile(filepath.Join(dir, base+"_ours.csv"))
		os.WriteFile(filepath.Join(peer, base+"_sbi.csv"), draws, 0o644)
		os.WriteFile(filepath.Join(peer, base+"_sbi_time.txt"),
			[]byte("train_cpu_s=12.50 train_wall_s=20.00 total_cpu_s=30.00 total_wall_s=40.00 epochs=7 rounds_epochs=3,4\n"), 0o644)
	}
	for _, f := range []string{"seq_two_moons_snpe_o1.svg", "seq_snle_c2st.svg"} {
		os.Remove(filepath.Join(dir, f))
	}
	withPeer, err := runArgs(append(args, "-peer", peer)...)
	if err != nil {
		t.Fatal(err)
	}
	// With the peer the corner plot shows sbi's draws and the chart its
	// C2ST as a series of its own.
	for f, want := range map[string]string{"seq_two_moons_snpe_o1.svg": "sbi (C2ST", "seq_snle_c2st.svg": "two_moons (sbi)"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s: %v; want %q in it", f, err, want)
		}
	}
	for _, m := range []string{"snpe", "snle"} {
		cells := row(withPeer, m)
		if len(cells) != 14 || strings.TrimSuffix(cells[3], "*") != cells[8] || cells[9] != "12.5s" || cells[12] != "7" {
			t.Errorf("%s: peer columns %q", m, cells)
		}
	}
	if !regexp.MustCompile(`\| two_moons \| snpe +\| 1 +\|`).MatchString(withPeer) {
		t.Errorf("no summary row in\n%s", withPeer)
	}
	// A missing peer result is a dash, not an error.
	os.Remove(filepath.Join(peer, "two_moons_snle_2x100_o1_sbi_time.txt"))
	if out, err := runArgs(append(args, "-peer", peer)...); err != nil || row(out, "snle")[8] != "—" {
		t.Errorf("missing peer result: %v\n%s", err, out)
	}
}

// TestSavedRecordPrintsAsReread checks that a fresh record, rounded as its
// file stores it, prints the same table cells as the record read back from
// the file: times such as 2.2549 s (2.3 unrounded, 2.25 stored, 2.2 as
// printed after rounding half to even) once made a cached row differ.
func TestSavedRecordPrintsAsReread(t *testing.T) {
	for _, v := range []float64{2.2549, 2.25, 0.04999, 17.35, 1e-3, 123.456789} {
		rec := seqRecord{c2st: 0.4455 + v/1e6, trainCPU: v, trainWall: 2 * v, totalCPU: 3 * v, totalWall: v / 3}
		kv := map[string]string{}
		for _, field := range strings.Fields(rec.times() + " c2st=" + strconv.FormatFloat(rec.c2st, 'f', 6, 64)) {
			k, val, _ := strings.Cut(field, "=")
			kv[k] = val
		}
		back, fresh := parseRecord(kv), rec.saved()
		for i, pair := range [][2]float64{{fresh.trainCPU, back.trainCPU}, {fresh.trainWall, back.trainWall}, {fresh.totalCPU, back.totalCPU}, {fresh.totalWall, back.totalWall}} {
			if seconds(pair[0]) != seconds(pair[1]) {
				t.Errorf("v = %g, time %d: fresh %s, reread %s", v, i, seconds(pair[0]), seconds(pair[1]))
			}
		}
		if cli.F(fresh.c2st, 3) != cli.F(back.c2st, 3) {
			t.Errorf("v = %g: C2ST fresh %s, reread %s", v, cli.F(fresh.c2st, 3), cli.F(back.c2st, 3))
		}
	}
}

// TestOursSuffix checks the file names of our cached cells: the
// architecture is marked only where it differs from the package default
// (SNLE's likelihood flow has the affine layer, sequential SNPE's
// posterior flow has not), and -chains marks SNLE's only, after the
// architecture's mark.
func TestOursSuffix(t *testing.T) {
	for _, c := range []struct {
		cfg          config
		method, want string
	}{
		{config{}, "snle", "_ours"},
		{config{seq: &seqConfig{chains: 100}}, "snle", "_ours_c100"},
		{config{seq: &seqConfig{chains: 100}}, "snpe", "_ours"},
		{config{seq: &seqConfig{chains: 100, carry: true}}, "snle", "_ours_c100_carry"},
		{config{seq: &seqConfig{carry: true}}, "snle", "_ours_carry"},
		{config{seq: &seqConfig{carry: true}}, "snpe", "_ours"},
		{config{affine: optBool{true, true}, seq: &seqConfig{chains: 40}}, "snle", "_ours_c40"},
		{config{affine: optBool{true, false}, seq: &seqConfig{chains: 40}}, "snle", "_ours_plain_c40"},
		{config{affine: optBool{true, true}}, "snpe", "_ours_affine"},
		{config{affine: optBool{true, false}}, "snpe", "_ours"},
		{config{choose: true}, "snpe", "_ours_choose"},
		{config{choose: true}, "snle", "_ours_choose"},
	} {
		if got := c.cfg.ours(c.method); got != c.want {
			t.Errorf("%+v, %s: %q, want %q", c.cfg.seq, c.method, got, c.want)
		}
	}
}

// TestLoadOursCarrySchedule checks that a carried-chain cell's cached
// record is read only when it names the current schedule: a record of the
// option's first schedule (no carried_from field) or of a cell without
// carried chains is not taken for one.
func TestLoadOursCarrySchedule(t *testing.T) {
	dir := t.TempDir()
	c := config{Common: cli.Common{Seed: 1, Out: dir}, samples: 100, seq: &seqConfig{carry: true}}
	const base = "slcp_snle_2x40_o1"
	write := func(extra string) {
		line := "c2st=0.700000 train_cpu_s=1 train_wall_s=1 total_cpu_s=2 total_wall_s=2 epochs=3 seed=1 samples=100" + extra + "\n"
		if err := os.WriteFile(filepath.Join(dir, base+c.ours("snle")+".txt"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("")
	if _, ok := loadOurs(c, base, "snle"); ok {
		t.Error("a record without the carry schedule was read as a carried cell's")
	}
	write(c.carried("snle"))
	if rec, ok := loadOurs(c, base, "snle"); !ok || rec.c2st != 0.7 {
		t.Errorf("the current schedule's record was not read: %+v, %v", rec, ok)
	}
	if got := c.carried("snpe"); got != "" {
		t.Errorf("SNPE cell carries %q", got)
	}
}

// TestSequentialCheckpoint stops a checkpointed cell after its first
// round and runs it again: the second run continues from the checkpoint,
// ends with the draws of an uninterrupted run, reports at least the first
// process's training CPU, and removes the checkpoint and its ledger.
func TestSequentialCheckpoint(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	needReferences(t)
	ckpt := t.TempDir()
	args := func(out string, extra ...string) []string {
		return append([]string{"-sequential", "snpe", "-tasks", "two_moons", "-rounds", "2", "-sims-per-round", "40",
			"-obs", "1", "-samples", "100", "-out", out}, extra...)
	}
	var afterRound func(int)
	runCtx := func(ctx context.Context, a []string) (string, string, error) {
		c, err := parse(flag.NewFlagSet("sbibm", flag.ContinueOnError), a)
		if err != nil {
			return "", "", err
		}
		c.seq.afterRound = afterRound
		var out, errw bytes.Buffer
		err = run(ctx, c, &out, &errw)
		return out.String(), errw.String(), err
	}
	plain := t.TempDir()
	if _, _, err := runCtx(context.Background(), args(plain)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	afterRound = func(round int) {
		if round == 1 {
			cancel()
		}
	}
	first := t.TempDir()
	if _, _, err := runCtx(ctx, args(first, "-checkpoints", ckpt)); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v, want context.Canceled", err)
	}
	files, _ := filepath.Glob(filepath.Join(ckpt, "*.times"))
	if len(files) != 1 {
		t.Fatalf("ledgers in the checkpoint folder: %v", files)
	}
	ledger := loadLedger(files[0])
	if r1 := ledger.rounds[1]; !(r1.TrainCPU > 0 && r1.TotalCPU >= r1.TrainCPU && r1.TotalWall > 0) {
		t.Fatalf("ledger after round 1: %+v", ledger.rounds)
	}
	// Times the second process cannot reach by itself show that it adds
	// the ledger's to its own.
	const big = 1e6
	if err := ledger.record(1, cellTimes{TrainCPU: big, TotalCPU: 2 * big, TotalWall: 3 * big}); err != nil {
		t.Fatal(err)
	}
	afterRound = nil
	_, stderr, err := runCtx(context.Background(), args(first, "-checkpoints", ckpt))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "continuing after round 1") {
		t.Errorf("the second run did not continue from the checkpoint:\n%s", stderr)
	}
	const base = "two_moons_snpe_2x40_o1_ours"
	want, err := os.ReadFile(filepath.Join(plain, base+".csv"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(first, base+".csv")); err != nil || !bytes.Equal(got, want) {
		t.Errorf("continued draws differ from an uninterrupted run's (%v)", err)
	}
	c, err := parse(flag.NewFlagSet("sbibm", flag.ContinueOnError), args(first))
	if err != nil {
		t.Fatal(err)
	}
	rec, ok := loadOurs(c, "two_moons_snpe_2x40_o1", "snpe")
	in := func(x, lo float64) bool { return x > lo && x < lo+3600 }
	if !ok || !in(rec.trainCPU, big) || !in(rec.totalCPU, 2*big) || !in(rec.totalWall, 3*big) {
		t.Errorf("continued record %+v (ok %v) does not add round 1's ledger", rec, ok)
	}
	if left, _ := os.ReadDir(ckpt); len(left) != 0 {
		t.Errorf("files left in the checkpoint folder: %v", left)
	}
}
