package od

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
	"github.com/flakyhq/flaky/internal/testkit/hostile"
)

func TestParseShard(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"1/3", Shard{1, 3}, true}, {"3/3", Shard{3, 3}, true}, {"1/1", Shard{1, 1}, true},
		{"0/3", Shard{}, false}, {"4/3", Shard{}, false}, {"1/0", Shard{}, false}, {"1/3x", Shard{}, false}, {"a/b", Shard{}, false}, {"", Shard{}, false},
	} {
		got, err := ParseShard(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseShard(%q) = %v, %v", tt.in, got, err)
		}
	}
}

// findingSet renders findings as comparable text: test, kind and groups.
func findingSet(fs []Finding) string {
	var out []string
	for _, f := range fs {
		out = append(out, string(f.Kind)+" "+f.Test+" "+groupText(f.Polluters)+groupText(f.Setters)+groupText(f.Cleaners))
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

func groupText(gs [][]string) string {
	var parts []string
	for _, g := range gs {
		parts = append(parts, strings.Join(g, "+"))
	}
	return "[" + strings.Join(parts, "|") + "]"
}

// Shards of one seed run disjoint shares that together are the unsharded
// detection orders, and merging them gives the unsharded findings.
func TestShardsMergeToTheUnshardedAnalysis(t *testing.T) {
	newSuite := func() *fakeSuite {
		f := newFakeSuite()
		f.order = slices.DeleteFunc(f.order, func(t string) bool { return t == "p.Retry#jitter" }) // no NOD: its findings depend on chance
		return f
	}
	for _, seed := range []int64{1, 2} {
		f := newSuite()
		whole, err := Run(context.Background(), f, Config{Tests: f.order, Seed: seed, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		var parts []*Partial
		seen := map[string]int{}
		for i := 1; i <= 3; i++ {
			f := newSuite()
			cfg := Config{Tests: f.order, Seed: seed, Workers: 2, Shard: Shard{i, 3}}
			res, err := Run(context.Background(), f, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res.Runs {
				if r.Plan >= 0 {
					seen[r.Label+" "+strings.Join(r.Order, ",")]++
					if r.Plan%3 != i-1 {
						t.Errorf("shard %d ran plan position %d", i, r.Plan)
					}
				}
			}
			parts = append(parts, NewPartial(cfg, res))
		}
		detection := whole.Coverage.Orders - whole.Coverage.Generators[GenOriginal] - whole.Coverage.Generators[genConfirm] - whole.Coverage.Generators[genMinimise]
		if len(seen) != detection {
			t.Errorf("seed %d: the shards ran %d distinct detection orders, the whole analysis %d", seed, len(seen), detection)
		}
		for k, n := range seen {
			if n != 1 {
				t.Errorf("seed %d: %s ran in %d shards", seed, k, n)
			}
		}
		var dirs []string
		for _, p := range parts {
			dir := t.TempDir()
			if _, err := WritePartial(dir, p); err != nil {
				t.Fatal(err)
			}
			dirs = append(dirs, dir)
		}
		if _, err := ReadPartials(dirs[:2]); err == nil || !strings.Contains(err.Error(), "2 of 3 shards") {
			t.Errorf("two of three shards: %v", err)
		}
		if _, err := ReadPartials([]string{dirs[0], dirs[0], dirs[1]}); err == nil || !strings.Contains(err.Error(), "given twice") {
			t.Errorf("a shard twice: %v", err)
		}
		if parts, err = ReadPartials(dirs); err != nil {
			t.Fatal(err)
		}
		f = newSuite()
		merged, err := Run(context.Background(), f, Config{Tests: f.order, Seed: seed, Workers: 2, Recorded: MergeRuns(parts)})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := findingSet(merged.Findings), findingSet(whole.Findings); got != want {
			t.Errorf("seed %d: merged findings\n%s\nwant\n%s", seed, got, want)
		}
		if merged.Coverage.Rounds != whole.Coverage.Rounds || merged.Coverage.PairsCovered != whole.Coverage.PairsCovered || merged.Coverage.TestsAlone != whole.Coverage.TestsAlone {
			t.Errorf("seed %d: merged coverage %+v, whole %+v", seed, merged.Coverage, whole.Coverage)
		}
		// The coverage does not depend on how many JVMs ran at once (a busy
		// machine gives the unsharded run one worker, the merge two).
		f = newSuite()
		one, err := Run(context.Background(), f, Config{Tests: f.order, Seed: seed, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if one.Coverage.Rounds != whole.Coverage.Rounds || one.Coverage.PairsCovered != whole.Coverage.PairsCovered {
			t.Errorf("seed %d: coverage on one worker %+v, on two %+v", seed, one.Coverage, whole.Coverage)
		}
		if len(whole.Findings) == 0 || !slices.ContainsFunc(merged.Findings, func(f Finding) bool { return f.Kind == report.ODVictim }) {
			t.Errorf("seed %d: no victims found", seed)
		}
	}
}

// ReadPartials refuses a part whose runs name tests outside its suite
// (saying which) and a part larger than MaxPartialSize; SuiteDiff names
// the tests the module and the shards do not share.
func TestReadPartialsValidates(t *testing.T) {
	write := func(p *Partial) string {
		dir := t.TempDir()
		if _, err := WritePartial(dir, p); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	suite := []string{"a.A#x", "a.A#y"}
	good := &Partial{Version: partialVersion, Shard: "1/1", Tests: suite, Runs: []RecordedRun{{Order: suite, Tests: []launcher.TestResult{{Test: "a.A#x[1]"}, {Test: "a.A#x[2]"}, {Test: "a.A"}, {Test: "a.A#y"}}}}}
	if _, err := ReadPartials([]string{write(good)}); err != nil {
		t.Fatalf("a valid part: %v", err)
	}
	bad := *good
	bad.Runs = []RecordedRun{{Order: suite, Tests: []launcher.TestResult{{Test: "a.A#x"}, {Test: "evil.Gone#victim"}}}}
	if _, err := ReadPartials([]string{write(&bad)}); err == nil || !strings.Contains(err.Error(), "not in its suite: evil.Gone#victim") {
		t.Errorf("unknown test in a run: %v", err)
	}

	huge := t.TempDir()
	f, err := os.Create(filepath.Join(huge, "shard-1-of-1.json"))
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(MaxPartialSize + 1) // sparse
	f.Close()
	if _, err := ReadPartials([]string{huge}); err == nil || !strings.Contains(err.Error(), "more than the 128 MiB") {
		t.Errorf("a huge part: %v", err)
	}

	if got := SuiteDiff([]string{"a.A#x", "a.A#z"}, suite); got != "; not in the module: a.A#y; not run by the shards: a.A#z" {
		t.Errorf("SuiteDiff = %q", got)
	}
}

// TestReadPartialsRefusesHostileFiles reads parts that are a FIFO, a
// device, a directory or over MaxPartialSize (item 5 of #53: a part that
// was a FIFO blocked merge): each is refused at once, by name.
func TestReadPartialsRefusesHostileFiles(t *testing.T) {
	for _, f := range hostile.Files(MaxPartialSize) {
		t.Run(f.Name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "shard-1-of-1.json")
			if err := f.Make(path); err != nil {
				t.Fatal(err)
			}
			var err error
			if !hostile.Returns(path, func() { _, err = ReadPartials([]string{dir}) }) {
				t.Fatalf("ReadPartials still reading after %v", hostile.ReadBound)
			}
			if err == nil || !strings.Contains(err.Error(), f.Want) || !strings.Contains(err.Error(), path) {
				t.Errorf("ReadPartials: %v, want an error naming %s and saying %q", err, path, f.Want)
			}
		})
	}
}

// shardParts runs the three shards of seed on newSuite and returns their
// partial reports as ReadPartials reads them back after forge (nil: none)
// edited them, each in a directory of its own.
func shardParts(t *testing.T, newSuite func() *fakeSuite, seed int64, forge func(*Partial)) []*Partial {
	t.Helper()
	var dirs []string
	for i := 1; i <= 3; i++ {
		f := newSuite()
		cfg := Config{Tests: f.order, Seed: seed, Workers: 2, Shard: Shard{i, 3}}
		res, err := Run(context.Background(), f, cfg)
		if err != nil {
			t.Fatal(err)
		}
		p := NewPartial(cfg, res)
		if forge != nil {
			forge(p)
		}
		dir := t.TempDir()
		if _, err := WritePartial(dir, p); err != nil { // the forger computes the digest again
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	parts, err := ReadPartials(dirs)
	if err != nil {
		t.Fatal(err)
	}
	return parts
}

// passEverything is the forgery of issue 53, item 2: every outcome of
// every run a pass.
func passEverything(p *Partial) {
	for _, r := range p.Runs {
		for i := range r.Tests {
			r.Tests[i].Outcome, r.Tests[i].Message = launcher.Pass, ""
		}
	}
}

// A merge of parts whose every outcome was edited to pass (digest
// computed again) is no clean verdict: with --verify 1 each part's
// unchecked runs are counted (and the merge rerun the original order and
// one order of each part), and with --verify all the runs here find what
// the unsharded analysis finds, whatever the parts say (issue 53, item 2:
// such parts merged into "0 flaky", exit 0).
func TestMergeRerunsForgedParts(t *testing.T) {
	newSuite := func() *fakeSuite {
		f := newFakeSuite()
		f.order = slices.DeleteFunc(f.order, func(t string) bool { return t == "p.Retry#jitter" })
		return f
	}
	const seed = 1
	f := newSuite()
	whole, err := Run(context.Background(), f, Config{Tests: f.order, Seed: seed, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	parts := shardParts(t, newSuite, seed, passEverything)
	for _, tt := range []struct {
		verify int
		rerun  func(p *Partial) int // of its runs
	}{
		{1, func(*Partial) int { return DefaultOriginalRuns + 1 }},
		{-1, func(p *Partial) int { return len(p.Runs) }},
	} {
		f := newSuite()
		merged, err := Run(context.Background(), f, Config{Tests: f.order, Seed: seed, Workers: 2, Recorded: MergeRuns(parts), Verify: tt.verify, VerifySeed: 7})
		if err != nil {
			t.Fatal(err)
		}
		if len(merged.Parts) != len(parts) {
			t.Fatalf("--verify %d: %d part checks, want %d", tt.verify, len(merged.Parts), len(parts))
		}
		for i, c := range merged.Parts {
			if p := parts[i]; c.Shard != p.Shard || c.Runs != len(p.Runs) || c.Rerun < tt.rerun(p) || tt.verify >= 0 && c.Rerun >= c.Runs {
				t.Errorf("--verify %d: part %s: %d of %d runs rerun, want %d (and not all)", tt.verify, c.Shard, c.Rerun, c.Runs, tt.rerun(p))
			}
		}
		if tt.verify < 0 {
			if got, want := findingSet(merged.Findings), findingSet(whole.Findings); got != want {
				t.Errorf("--verify all: findings\n%s\nwant the unsharded analysis'\n%s", got, want)
			}
			if !slices.ContainsFunc(merged.Parts, func(c PartCheck) bool {
				return c.Differences > 0 && len(c.Differ) > 0 && c.Differ[0].Recorded == launcher.Pass && c.Differ[0].Here == "fail"
			}) {
				t.Errorf("--verify all: no part's forged passes differ from the runs here: %+v", merged.Parts)
			}
		}
	}
}

// A part's recorded failure of a stable test, which no run here
// reproduces, makes no finding (it would have been NOD, from the part's
// word alone) and is a difference of that part.
func TestMergeFindsNothingOnAPartsWordAlone(t *testing.T) {
	newSuite := func() *fakeSuite {
		f := newFakeSuite()
		f.order = slices.DeleteFunc(f.order, func(t string) bool { return t == "p.Retry#jitter" })
		return f
	}
	const stable = "q.Stable#one"
	forged := false
	parts := shardParts(t, newSuite, 2, func(p *Partial) {
		if forged {
			return
		}
		forged = true
		for i, tr := range p.Runs[0].Tests {
			if tr.Test == stable {
				p.Runs[0].Tests[i].Outcome, p.Runs[0].Tests[i].Message = launcher.Fail, "forged"
			}
		}
	})
	f := newSuite()
	merged, err := Run(context.Background(), f, Config{Tests: f.order, Seed: 2, Workers: 2, Recorded: MergeRuns(parts), Verify: 0})
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(merged.Findings, func(f Finding) bool { return f.Test == stable }) {
		t.Errorf("a finding for %s from one part's word: %s", stable, findingSet(merged.Findings))
	}
	c := merged.Parts[0]
	if c.Differences != 1 || len(c.Differ) != 1 || c.Differ[0].Test != stable || c.Differ[0].Recorded != launcher.Fail || c.Differ[0].Here != "pass" {
		t.Errorf("part %s: %d differences %+v, want %s recorded failing, passing here", c.Shard, c.Differences, c.Differ, stable)
	}
}

// ReadPartials refuses, by the file's name, a part edited without its
// digest computed again (the edit of issue 53, item 2), one of an older
// format, and parts that ran other classes.
func TestReadPartialsRefusesEditedParts(t *testing.T) {
	suite := []string{"a.A#x", "a.A#y"}
	part := func(shard, classes string) *Partial {
		return &Partial{Version: partialVersion, Shard: shard, Tests: suite, Classes: classes,
			Runs: []RecordedRun{{Order: suite, Plan: -1, Tests: []launcher.TestResult{{Test: "a.A#x", Outcome: launcher.Pass}, {Test: "a.A#y", Outcome: launcher.Fail}}}}}
	}
	write := func(p *Partial) (string, string) {
		dir := t.TempDir()
		path, err := WritePartial(dir, p)
		if err != nil {
			t.Fatal(err)
		}
		return dir, path
	}
	one, path := write(part("1/2", "sha256:c"))
	two, _ := write(part("2/2", "sha256:c"))
	if _, err := ReadPartials([]string{one, two}); err != nil {
		t.Fatalf("two valid parts: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `"outcome": "fail"`, `"outcome": "pass"`, 1)
	if edited == string(data) {
		t.Fatal("no outcome to edit")
	}
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPartials([]string{one, two}); err == nil || !strings.Contains(err.Error(), path+": refused: its content does not match its digest") {
		t.Errorf("an edited part: %v", err)
	}
	old, oldPath := write(part("1/2", "sha256:c"))
	data, _ = os.ReadFile(oldPath)
	os.WriteFile(oldPath, []byte(strings.Replace(string(data), `"version": 2`, `"version": 1`, 1)), 0o644)
	if _, err := ReadPartials([]string{old, two}); err == nil || !strings.Contains(err.Error(), oldPath+": partial report version 1, want 2") {
		t.Errorf("a part of version 1: %v", err)
	}
	other, otherPath := write(part("1/2", "sha256:d"))
	if _, err := ReadPartials([]string{two, other}); err == nil || !strings.Contains(err.Error(), "and "+otherPath+" ran different classes") {
		t.Errorf("parts of other classes: %v", err)
	}
}
