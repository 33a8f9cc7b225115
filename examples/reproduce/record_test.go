package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
)

// validRecord returns a job and the cache record of its finished run.
func validRecord() (result, cached) {
	r := result{job: job{entry: entry{Name: "a", Pkg: "./examples/a"}}, Args: []string{"-seed", "1"}}
	c := cached{Name: "a", Pkg: "./examples/a", Args: []string{"-seed", "1"}, Stdout: "| x | 1 |\n", Wall: 3 * time.Second,
		Verdicts: []cli.Verdict{{Outcome: cli.Reproduced, Target: "Table 1", Reason: "0.5 vs 0.5"}},
		Finished: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Commit: "46bc5c2f17b0", Fingerprint: "0123456789abcdef"}
	return r, c
}

// TestCachedRecordFields writes cache records with one field set to a
// value no finished run writes: each is refused with an error wrapping
// errInvalid (and the job then runs again), while the untouched record
// loads.
func TestCachedRecordFields(t *testing.T) {
	dir := t.TempDir()
	store := func(r *result, c cached) {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cachePath(dir, r), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, c := validRecord()
	store(&r, c)
	if got, err := readCached(dir, &r); err != nil || got.Stdout != c.Stdout {
		t.Fatalf("valid record: %v", err)
	}
	cases := map[string]func(c *cached){
		"empty record":         func(c *cached) { *c = cached{} },
		"other name":           func(c *cached) { c.Name = "b" },
		"other package":        func(c *cached) { c.Pkg = "./examples/b" },
		"other arguments":      func(c *cached) { c.Args = []string{"-seed", "2"} },
		"no output":            func(c *cached) { c.Stdout = "" },
		"blank output":         func(c *cached) { c.Stdout = " \n" },
		"negative wall time":   func(c *cached) { c.Wall = -time.Second },
		"no finishing time":    func(c *cached) { c.Finished = time.Time{} },
		"finished in a year":   func(c *cached) { c.Finished = time.Now().AddDate(1, 0, 0) },
		"commit not hex":       func(c *cached) { c.Commit = "main; rm -rf" },
		"commit too short":     func(c *cached) { c.Commit = "ab" },
		"verdict without name": func(c *cached) { c.Verdicts[0].Target = "" },
		"verdict outcome":      func(c *cached) { c.Verdicts[0].Outcome = "won" },
		"fingerprint not hex":  func(c *cached) { c.Fingerprint = "0123456789abcdeg" },
		"fingerprint length":   func(c *cached) { c.Fingerprint = "0123456789abcdef0" },
	}
	for name, tamper := range cases {
		r, c := validRecord()
		tamper(&c)
		store(&r, c)
		_, err := readCached(dir, &r)
		if !errors.Is(err, errInvalid) {
			t.Errorf("%s: err = %v, want errInvalid", name, err)
		}
		if loadCached(dir, &r, nil) || r.Ran {
			t.Errorf("%s: loadCached accepted the record", name)
		}
	}
	r, _ = validRecord()
	if err := os.WriteFile(cachePath(dir, &r), []byte(`{"name": "a", `), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readCached(dir, &r); !errors.Is(err, errInvalid) {
		t.Errorf("truncated JSON: err = %v, want errInvalid", err)
	}
	os.Remove(cachePath(dir, &r))
	if _, err := readCached(dir, &r); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing record: err = %v, want fs.ErrNotExist", err)
	}
}

// TestWallRecord checks the wall-time record of a job's checkpoint folder:
// none is 0, a duration ≥ 0 is read back, and a negative or unparsable one
// is an error wrapping errInvalid (the job then fails with that message
// instead of reporting a wrong time).
func TestWallRecord(t *testing.T) {
	dir := t.TempDir()
	if d, err := earlierWall(dir); d != 0 || err != nil {
		t.Errorf("no record: %v, %v", d, err)
	}
	for content, want := range map[string]time.Duration{"1m2.5s\n": 62500 * time.Millisecond, "0s": 0} {
		os.WriteFile(filepath.Join(dir, wallFile), []byte(content), 0o644)
		if d, err := earlierWall(dir); d != want || err != nil {
			t.Errorf("%q: %v, %v; want %v", content, d, err, want)
		}
	}
	for _, content := range []string{"-5s", "", "12", "1h\x00"} {
		os.WriteFile(filepath.Join(dir, wallFile), []byte(content), 0o644)
		if _, err := earlierWall(dir); !errors.Is(err, errInvalid) {
			t.Errorf("%q: err = %v, want errInvalid", content, err)
		}
		if _, err := startWall(dir); !errors.Is(err, errInvalid) {
			t.Errorf("startWall with %q: err = %v, want errInvalid", content, err)
		}
	}
}

// FuzzCachedRecord feeds arbitrary bytes as a job's cache file: readCached
// returns a record that passes checkCached or an error wrapping
// errInvalid, and never panics. The seed corpus (also in testdata/fuzz)
// holds a valid record and the empty and negative-time records that were
// once accepted.
func FuzzCachedRecord(f *testing.F) {
	_, c := validRecord()
	b, _ := json.Marshal(c)
	f.Add(b)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"name":"a","pkg":"./examples/a","args":["-seed","1"],"stdout":"x","wall_ns":-1,"finished":"2026-01-01T00:00:00Z"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		r, _ := validRecord()
		if err := os.WriteFile(cachePath(dir, &r), data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readCached(dir, &r)
		if err != nil {
			if !errors.Is(err, errInvalid) {
				t.Fatalf("%v does not wrap errInvalid", err)
			}
			return
		}
		if err := checkCached(&got, &r, time.Now()); err != nil {
			t.Fatalf("accepted a record that fails its check: %v", err)
		}
	})
}
