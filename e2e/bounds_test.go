package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/launcher"
)

// hangLimits are the test timeout and run timeout of a launcher whose runs
// include a test that hangs, sized from a measured control run (see
// measureHangLimits) so that on a slow or busy machine only the hang
// reaches them.
type hangLimits struct {
	Test    time.Duration // launcher.Options.TestTimeout: a test, or the runner's start before the first one, without progress
	Run     time.Duration // launcher.Options.RunTimeout: one JVM
	Control time.Duration // the control run's JVM, start to end
}

// minTestTimeout is the least test timeout hangLimits give: a quiet
// machine's control run takes about a second.
const minTestTimeout = 3 * time.Second

// measureHangLimits runs control (the tests of the runs to come less those
// that hang or end their JVM: the same work up to the hang) once in a fresh
// JVM of p without a test timeout, and sizes the limits from how long that
// JVM took on this machine now. No stretch between two of the runner's
// events in the runs to come (its start, a test's start or end) is longer
// than such a whole JVM, start-up included, so the test timeout (three of
// them, at least minTestTimeout) cannot fire on a slow machine before a
// test that does not hang; a JVM that hangs once takes a control run and
// the test timeout, and the run timeout leaves ten more control runs.
func measureHangLimits(t *testing.T, p *prepared, control []string) hangLimits {
	t.Helper()
	l, err := newLauncher(p.setup, javaBin(), launcher.Options{RunTimeout: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r := runOrders(t, l, control)[0]
	for _, tr := range r.Tests {
		if tr.Outcome != launcher.Pass {
			t.Fatalf("control run of %q: %s = %s, want pass\n%s", control, tr.Test, tr.Outcome, describe(r))
		}
	}
	if len(r.Tests) < len(control) {
		t.Fatalf("control run of %q: %d results\n%s", control, len(r.Tests), describe(r))
	}
	c := r.Duration
	h := hangLimits{Test: max(minTestTimeout, 3*c), Control: c}
	h.Run = h.Test + 10*c
	t.Logf("control run of %d tests: %s; test timeout %s, run timeout %s", len(control), c.Round(100*time.Millisecond), h.Test.Round(100*time.Millisecond), h.Run.Round(100*time.Millisecond))
	return h
}

// context returns a context for jvms JVMs in a row, each bounded by the
// run timeout, with one run timeout to spare: only a launcher that ignored
// its own timeouts reaches it.
func (h hangLimits) context(jvms int) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), time.Duration(jvms+1)*h.Run)
}
