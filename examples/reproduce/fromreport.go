package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
)

// readReport reads the results recorded in a paper-scale report written by
// writeReport (such as the committed REPRODUCTION.md), keyed by run name:
// for every run that finished without an error, its package, argument
// list, standard output, wall time, verdicts and when and at which commit
// it ran (for a result that was not cached when the report was written,
// the report's own date and commit). With -from-report they fill a lost or
// partial cache, so that the report can be regenerated with new runs
// without rerunning the ones it already holds.
//
// The round trip is exact for what the report shows: a result read back
// renders the same section and summary row (wall times are kept to the
// 0.1 s and finishing times to the minute the report prints them with;
// an example's headings are read as the report demoted them, which
// demoting again leaves unchanged).
//
// With quick set it reads a quick report (such as REPRODUCTION-quick.md)
// instead, for a quick run; a report of the other mode is refused.
func readReport(path string, quick bool) (map[string]cached, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseReportMode(string(b), quick)
}

// parseReport is readReport on a paper-scale report's text.
func parseReport(text string) (map[string]cached, error) { return parseReportMode(text, false) }

// parseReportMode is readReport on the report's text.
func parseReportMode(text string, quick bool) (map[string]cached, error) {
	lines := strings.Split(text, "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "# Reproduction of the papers' results") {
		return nil, fmt.Errorf("not a report of this command (its first line is %q)", first(lines))
	}
	switch isQuick := strings.Contains(lines[0], "(quick settings)"); {
	case isQuick && !quick:
		return nil, fmt.Errorf("a quick report: its results are not the paper-scale runs")
	case !isQuick && quick:
		return nil, fmt.Errorf("a paper-scale report: its results are not the quick runs")
	}
	defFinished, defCommit := generated(lines)
	verdicts := map[string][]cli.Verdict{}
	out := map[string]cached{}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l == "### All verdicts" {
			i++
			for ; i < len(lines) && (lines[i] == "" || strings.HasPrefix(lines[i], "|")); i++ {
				if lines[i] == "" {
					if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "|") {
						continue
					}
					break
				}
				// Four columns in reports written before the verdicts
				// recorded their numbers, six since.
				c := cells(lines[i])
				if (len(c) != 4 && len(c) != 6) || c[0] == "example" || strings.Trim(c[0], "-") == "" {
					continue
				}
				// A quick report shows "differs" and "partial" with
				// quickNote.
				v := cli.Verdict{Outcome: cli.Outcome(strings.TrimSuffix(c[1], quickNote)), Target: c[2], Reason: c[3]}
				if len(c) == 6 {
					v.Ours, v.Paper = c[4], c[5]
				}
				verdicts[c[0]] = append(verdicts[c[0]], v)
			}
			i--
			continue
		}
		name, ok := strings.CutPrefix(l, "## ")
		if !ok || reportSections[name] {
			continue
		}
		end := i + 1
		for fence := false; end < len(lines); end++ {
			if strings.HasPrefix(lines[end], "```") {
				fence = !fence
			}
			if !fence && strings.HasPrefix(lines[end], "## ") {
				break
			}
		}
		c, ok, err := parseSection(lines[i+1 : end])
		if err != nil {
			return nil, fmt.Errorf("section %s: %w", name, err)
		}
		i = end - 1
		if !ok {
			continue
		}
		c.Name = name
		if c.Finished.IsZero() {
			c.Finished, c.Commit = defFinished, defCommit
		}
		out[name] = c
	}
	for name, vs := range verdicts {
		c, ok := out[name]
		if !ok {
			continue
		}
		for _, v := range vs {
			if err := v.Validate(); err != nil {
				return nil, fmt.Errorf("section %s: verdict %q: %w", name, v.Target, err)
			}
		}
		c.Verdicts = vs
		out[name] = c
	}
	return out, nil
}

// reportSections are the report's own sections, which hold no run.
var reportSections = map[string]bool{"Summary": true, "Papers at a glance": true, "Stale results": true}

// parseSection reads one run's section (the lines after its heading); ok
// is false for a run that was not run or failed.
func parseSection(lines []string) (c cached, ok bool, err error) {
	i := 0
	for i < len(lines) && lines[i] == "" {
		i++
	}
	for ; i < len(lines) && strings.HasPrefix(lines[i], "- "); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "- **Not run**"), strings.HasPrefix(l, "- Error:"):
			return c, false, nil
		case strings.HasPrefix(l, "- Command: `go run "):
			cmd := strings.TrimSuffix(strings.TrimPrefix(l, "- Command: `go run "), "`")
			f := strings.Fields(cmd)
			if len(f) == 0 {
				return c, false, fmt.Errorf("empty command")
			}
			c.Pkg, c.Args = f[0], f[1:]
		case strings.HasPrefix(l, "- Code fingerprint: `"):
			c.Fingerprint = strings.TrimSuffix(strings.TrimPrefix(l, "- Code fingerprint: `"), "`")
		case strings.HasPrefix(l, "- Wall time: "):
			rest := strings.TrimPrefix(l, "- Wall time: ")
			d, paren, _ := strings.Cut(rest, " (")
			if c.Wall, err = time.ParseDuration(d); err != nil {
				return c, false, fmt.Errorf("wall time: %w", err)
			}
			if p, ok := strings.CutPrefix(paren, "cached result of a run finished "); ok {
				p = strings.TrimSuffix(p, ")")
				at, commit, _ := strings.Cut(p, " at commit ")
				if c.Finished, err = time.Parse("2006-01-02 15:04 MST", at); err != nil {
					return c, false, fmt.Errorf("finishing time: %w", err)
				}
				c.Commit = commit
			}
		}
	}
	if c.Pkg == "" {
		return c, false, fmt.Errorf("no command")
	}
	body := strings.TrimSpace(strings.Join(lines[i:], "\n"))
	if s, ok := strings.CutPrefix(body, "```text\n"); ok && strings.HasSuffix(s, "\n```") {
		body = strings.TrimSuffix(s, "\n```")
	}
	c.Stdout = body
	return c, true, nil
}

// cells splits a Markdown table row written by cli.Table into its cells,
// undoing the escaped bars and the padding.
func cells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	row = strings.TrimSuffix(row, "|")
	var cs []string
	var b strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			b.WriteByte('|')
			i++
		case row[i] == '|':
			cs = append(cs, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(row[i])
		}
	}
	return append(cs, strings.TrimSpace(b.String()))
}

// generated reads when and at which commit the report was written from
// its "Generated by `…` [at commit C] on D UTC (…)" line.
func generated(lines []string) (at time.Time, commit string) {
	for _, l := range lines[:min(len(lines), 6)] {
		i := strings.LastIndex(l, "` ")
		if !strings.HasPrefix(l, "Generated by `") || i < 0 {
			continue
		}
		rest := l[i+2:]
		if r, ok := strings.CutPrefix(rest, "at commit "); ok {
			commit, rest, _ = strings.Cut(r, " ")
		}
		rest = strings.TrimPrefix(rest, "on ")
		if j := strings.Index(rest, " UTC"); j >= 0 {
			at, _ = time.Parse("2006-01-02 15:04 MST", rest[:j+4])
		}
		return at, commit
	}
	return at, commit
}

func first(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return lines[0]
}
