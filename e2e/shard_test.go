package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/report"
)

// Three shards of one seed, each `flaky detect --shard I/3` in the module,
// and `flaky merge` of their partial reports (each moved to a directory of
// its own, as a CI job downloads the shards' target/flaky) find exactly what
// one unsharded `flaky detect` with that seed finds. They run in the
// unsharded run's copy of the fixture, whose report.json is put back after.
// The merge says what it checked of each part, and refuses parts edited
// after their shards wrote them.
func TestShardsMergeToOneRun(t *testing.T) {
	t.Parallel()
	const name = "jupiter6"
	whole := detect(t, name) // the unsharded run, seed recorded in its report
	seed := strconv.FormatInt(whole.report.Stats.Coverage.Seed, 10)
	p := whole.p
	reportPath := filepath.Join(p.dir, "target", "flaky", "report.json")
	saved, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.WriteFile(reportPath, saved, 0o644) })
	bin := flakyBin(t)
	try := func(args ...string) (string, string, int) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		err := cmd.Run()
		t.Logf("flaky %v: %s\n%s", args[:2], time.Since(start).Round(100*time.Millisecond), stdout.String())
		return stdout.String(), stderr.String(), exitCode(err)
	}
	run := func(args ...string) (string, int) {
		t.Helper()
		stdout, stderr, code := try(args...)
		if code != 0 && code != 1 {
			t.Fatalf("flaky %v: exit %d\n%s%s", args, code, stdout, stderr)
		}
		return stdout, code
	}
	parts := t.TempDir()
	var dirs []string
	for _, shard := range []string{"1/3", "2/3", "3/3"} {
		run("detect", "--module", p.dir, "--seed", seed, "--shard", shard)
		dir := filepath.Join(parts, "shard-"+shard[:1])
		file := "shard-" + shard[:1] + "-of-3.json"
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(p.dir, "target", "flaky", file), filepath.Join(dir, file)); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	// Without the polluted state and problem invariants, as the unsharded run.
	out, code := run(append([]string{"merge", "--module", p.dir, "--no-state", "--no-invariants"}, dirs...)...)
	if code != whole.code {
		t.Errorf("merge exited %d, the unsharded detect %d", code, whole.code)
	}
	merged, err := report.Read(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	set := func(r *report.Report) map[string]string {
		out := map[string]string{}
		for _, f := range r.Findings {
			out[f.Test+" "+string(f.Kind)] = groupSet(f.Polluters) + " " + groupSet(f.Setters) + " " + groupSet(f.Cleaners)
		}
		return out
	}
	got, want := set(merged), set(whole.report)
	if len(want) == 0 {
		t.Fatalf("the unsharded run found nothing")
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: merged %q, unsharded %q", k, got[k], w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("merged only: %s", k)
		}
	}
	mc, wc := merged.Stats.Coverage, whole.report.Stats.Coverage
	if mc.Seed != wc.Seed || mc.Rounds != wc.Rounds || mc.PairsCovered != wc.PairsCovered || mc.TestsAlone != wc.TestsAlone {
		t.Errorf("merged coverage %+v, unsharded %+v", mc, wc)
	}
	checkMergedParts(t, merged, out)
	checkEditedPartsRefused(t, try, p.dir, dirs)
}

// checkMergedParts checks what the merge says it checked of each part
// (issue 53, item 2): its digest, and its runs of the original order and
// one more of its orders (the default --verify 1) rerun, on the console
// and in report.json.
func checkMergedParts(t *testing.T, merged *report.Report, out string) {
	t.Helper()
	ms := merged.Stats.Merge
	if ms == nil || len(ms.Parts) != 3 || ms.Trusted {
		t.Fatalf("report.json's stats.merge %+v, want 3 parts, not trusted", ms)
	}
	for _, part := range ms.Parts {
		if !strings.HasPrefix(part.Digest, "sha256:") || part.Rerun < 3 || part.Rerun > part.Runs || part.Status == report.PartUnchecked {
			t.Errorf("part %+v: want a digest and at least the 2 original runs and 1 more rerun", part)
		}
		if line := fmt.Sprintf("part %s (shard %s, %s): digest checked, %d of its %d runs rerun here (%s)", part.File, part.Shard, part.Digest, part.Rerun, part.Runs, part.Status); !strings.Contains(out, line) {
			t.Errorf("the console does not say %q:\n%s", line, out)
		}
	}
}

// checkEditedPartsRefused merges copies of the parts whose every failure
// was edited into a pass, their digests left as they were (issue 53, item
// 2: that merged into "0 flaky", exit 0): the merge refuses the first
// part by name, before it runs a JVM.
func checkEditedPartsRefused(t *testing.T, try func(...string) (string, string, int), module string, dirs []string) {
	t.Helper()
	var edited []string
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "shard-*.json"))
		if len(files) != 1 {
			t.Fatalf("%s: %v", dir, files)
		}
		data, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(t.TempDir(), filepath.Base(dir))
		if err := os.Mkdir(to, 0o755); err != nil {
			t.Fatal(err)
		}
		text := regexp.MustCompile(`"outcome": "(fail|error|timeout|crash)"`).ReplaceAllString(string(data), `"outcome": "pass"`)
		if err := os.WriteFile(filepath.Join(to, filepath.Base(files[0])), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		edited = append(edited, to)
	}
	stdout, stderr, code := try(append([]string{"merge", "--module", module}, edited...)...)
	first, _ := filepath.Glob(filepath.Join(edited[0], "shard-*.json"))
	if want := first[0] + ": refused: its content does not match its digest"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("merge of edited parts: exit %d, stderr %q; want 2 and %q\n%s", code, stderr, want, stdout)
	}
}
