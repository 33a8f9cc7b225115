package main

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
)

// paper is one of the reproduced papers: its heading in the report's
// summary and the words by which a verdict's target (or, failing that,
// its run's paper target) names it.
type paper struct {
	Title string
	Keys  []string
}

// papers are the five papers, in the order of the report's summary.
var papers = []paper{
	{"SBI paper: Xiong, Ju and Zhang, simulation-based inference from privacy-protected data", []string{"SBI paper"}},
	{"The slides: Xiong and Ju, sampling and variational inference for privatized data (DA-MCMC, IMwG, SOMA)", []string{"slides"}},
	{"ABCDP: Park, Vinaroz and Jitkrittum, approximate Bayesian computation with differential privacy", []string{"ABCDP"}},
	{"LDP paper: Kulkarni, Jälkö, Kaski and Honkela, locally differentially private Bayesian inference", []string{"LDP"}},
	{"modips paper: Liu, DP synthesis and the combination of multiple synthetic data sets", []string{"modips"}},
}

// paperOf returns the index in papers of the paper a verdict of run r
// judges (by its target, then by the run's paper target), or len(papers)
// when neither names one.
func paperOf(v cli.Verdict, r result) int {
	for _, text := range []string{v.Target, r.Target} {
		for i, p := range papers {
			for _, k := range p.Keys {
				if strings.Contains(text, k) {
					return i
				}
			}
		}
	}
	return len(papers)
}

// summaryItem is one paper table or figure in the summary: the last
// verdict on it among the parts of one example (later parts of a split
// example put the earlier ones' results together), and the run that gave
// it.
type summaryItem struct {
	v   cli.Verdict
	run result
}

// summaryReason is the longest reason the summary prints (in characters);
// the run's section has it whole.
const summaryReason = 400

// writePaperSummary writes the report's opening: per paper, one row per
// table or figure with its verdict, our number beside the paper's (when
// the verdict records them; otherwise the reason holds them), the reason
// where it does not reproduce, and the run it comes from, marked when that
// run is stale. It is generated from the results, cached or not, so it is
// regenerated with the report.
func writePaperSummary(w io.Writer, cfg config, results []result) {
	type key struct{ group, target string }
	items := make([][]summaryItem, len(papers)+1)
	at := map[key][2]int{}
	for _, r := range results {
		for _, v := range r.Verdicts {
			p := paperOf(v, r)
			k := key{r.Group, v.Target}
			if pos, ok := at[k]; ok {
				items[pos[0]][pos[1]] = summaryItem{v, r}
				continue
			}
			at[k] = [2]int{p, len(items[p])}
			items[p] = append(items[p], summaryItem{v, r})
		}
	}
	fmt.Fprintf(w, "## Papers at a glance\n\n")
	fmt.Fprintf(w, "One table per paper, generated from the runs below: for every table or figure the last verdict of the runs that reproduce it (a split example's last part puts its parts together), our number beside the paper's where the verdict records them (otherwise its reason quotes them), and the reason where it is not reproduced. ")
	fmt.Fprintf(w, "A run marked *stale* ran on code that has changed since (see [Stale results](#stale-results)): its numbers describe older code.\n\n")
	for i, its := range items {
		title := "Other results"
		if i < len(papers) {
			title = papers[i].Title
		}
		if len(its) == 0 {
			if i < len(papers) {
				fmt.Fprintf(w, "### %s\n\nNo verdict in this report.\n\n", title)
			}
			continue
		}
		fmt.Fprintf(w, "### %s\n\n", title)
		numbers := false
		for _, it := range its {
			numbers = numbers || it.v.Ours != "" || it.v.Paper != ""
		}
		slices.SortStableFunc(its, func(a, b summaryItem) int { return cmpItems(a.v.Target, b.v.Target) })
		t := &cli.Table{Header: []string{"table or figure", "verdict", "ours", "paper", "reason", "run"}}
		if !numbers {
			t.Header = []string{"table or figure", "verdict", "reason (with our numbers and the paper's)", "run"}
		}
		counts := map[string]int{}
		for _, it := range its {
			o := shown(cfg, string(it.v.Outcome))
			counts[string(it.v.Outcome)]++
			ours, pap := it.v.Ours, it.v.Paper
			if ours == "" {
				ours = "—"
			}
			if pap == "" {
				pap = "—"
			}
			reason := it.v.Reason
			if it.v.Outcome == cli.Reproduced && it.v.Ours != "" {
				reason = ""
			}
			run := "[" + it.run.Name + "](#" + anchor(it.run.Name) + ")"
			if it.run.Stale != "" {
				run += " (stale)"
			}
			if numbers {
				t.Add(it.v.Target, o, ours, pap, clip(reason, summaryReason), run)
			} else {
				t.Add(it.v.Target, o, clip(reason, summaryReason), run)
			}
		}
		fmt.Fprintf(w, "%d reproduced, %d partial, %d differs.\n\n", counts[cli.Reproduced], counts[cli.Partial], counts[cli.Differs])
		t.Markdown(w)
	}
}

// clip shortens s to at most n characters, ending it with "…" when cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// writeStale writes the list of stale results: each run whose recorded
// code fingerprint is not the current code's (or that has none), with the
// reason and the expected time to run it again.
func writeStale(w io.Writer, results []result) {
	t := &cli.Table{Header: []string{"run", "ran at", "why it is stale", "its last wall time", "expected time to rerun (2 cores)"}}
	var wall time.Duration
	for _, r := range results {
		if r.Stale == "" {
			continue
		}
		wall += r.Wall
		when := r.Finished.UTC().Format("2006-01-02")
		if r.Commit != "" {
			when += " (" + r.Commit + ")"
		}
		est := r.Estimate
		if est == "" {
			est = "—"
		}
		t.Add("["+r.Name+"](#"+anchor(r.Name)+")", when, r.Stale, r.Wall.Round(time.Second).String(), est)
	}
	fmt.Fprintf(w, "## Stale results\n\n")
	if len(t.Rows) == 0 {
		fmt.Fprintf(w, "None: every result was produced by the current code (its code fingerprint, a hash of the source of the example and of the module's packages it imports, is the current one).\n\n")
		return
	}
	fmt.Fprintf(w, "%d of the results below ran on code that has changed since: the code fingerprint each result recorded (a hash of the source of its example and of the module's packages it imports, transitively) is not the current code's, or it recorded none. Their numbers describe the older code; rerun them with `-only` and `-fresh` (for example `go run ./examples/reproduce -fresh -only %s`). Their last runs took %s of wall time in all.\n\n", len(t.Rows), staleExample(results), wall.Round(time.Minute))
	t.Markdown(w)
}

// staleExample is the name of the first stale run (for the command in the
// stale list's introduction).
func staleExample(results []result) string {
	for _, r := range results {
		if r.Stale != "" {
			return r.Name
		}
	}
	return ""
}

// itemRef finds the first table or figure a verdict's target names.
var itemRef = regexp.MustCompile(`(Table|Tables|Fig\.|Figs|Figure)\s*(\d+)`)

// itemOrder is the sort key of a verdict target: tables first, then
// figures, each by number, then anything else (theorems, sections).
func itemOrder(target string) (kind, num int) {
	m := itemRef.FindStringSubmatch(target)
	if m == nil {
		return 2, 0
	}
	n, _ := strconv.Atoi(m[2])
	if strings.HasPrefix(m[1], "Table") {
		return 0, n
	}
	return 1, n
}

// cmpItems orders two verdict targets by itemOrder.
func cmpItems(a, b string) int {
	ka, na := itemOrder(a)
	kb, nb := itemOrder(b)
	if ka != kb {
		return ka - kb
	}
	return na - nb
}
