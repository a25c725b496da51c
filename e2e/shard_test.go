package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/report"
)

// Three shards of one seed, each `flaky detect --shard I/3` in the module,
// and `flaky merge` of their partial reports (each moved to a directory of
// its own, as a CI job downloads the shards' target/flaky) find exactly what
// one unsharded `flaky detect` with that seed finds. They run in the
// unsharded run's copy of the fixture, whose report.json is put back after.
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
	run := func(args ...string) (string, int) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		err := cmd.Run()
		t.Logf("flaky %v: %s\n%s", args[:2], time.Since(start).Round(100*time.Millisecond), stdout.String())
		if code := exitCode(err); code != 0 && code != 1 {
			t.Fatalf("flaky %v: exit %d\n%s%s", args, code, stdout.String(), stderr.String())
		}
		return stdout.String(), exitCode(err)
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
	_, code := run(append([]string{"merge", "--module", p.dir}, dirs...)...)
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
}
