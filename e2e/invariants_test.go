package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/invariants"
	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/mvn"
)

// TestProblemInvariants traces the victims of testdata/invariants alone and
// after their polluters in real JVMs and checks that the top-ranked problem
// invariant names the polluted variable (issue 13): a static field, the
// return value of a count() over an H2 table, the return value of a method
// that reads a file.
func TestProblemInvariants(t *testing.T) {
	needsTools(t)
	dir := copyFixture(t, "invariants")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	setup, err := mvn.Prepare(ctx, dir, mvn.PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := newLauncher(setup, javaBin(), launcher.Options{RunTimeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	const pkg = "fixture.invariants."
	tests := []struct {
		victim, polluter string
		point, variable  string
		passing, failing []string
	}{
		{pkg + "ModeTest#defaultMode", pkg + "StrictTest#setsStrict", pkg + "Registry.mode():::", pkg + "Registry.mode",
			[]string{pkg + `Registry.mode == "default"`}, []string{pkg + `Registry.mode == "strict"`}},
		{pkg + "UsersTest#startsEmpty", pkg + "SignupTest#signsUp", pkg + "Store.count():::EXIT", "return",
			[]string{"return == 0"}, []string{"return == 1"}},
		{pkg + "NotesTest#noNotes", pkg + "NoteTakerTest#takesNote", pkg + "Notes.lines():::EXIT", "return",
			[]string{"return == 0"}, []string{"return == 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.victim, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			all, errs, err := invariants.Analyze(ctx, l, []invariants.Target{{Test: tt.victim, Passing: []string{tt.victim}, Failing: []string{tt.polluter, tt.victim}}})
			if err != nil || errs[0] != nil {
				t.Fatal(err, errs)
			}
			got := all[0]
			t.Logf("%d problem invariants in %v: %+v", len(got), time.Since(start), got)
			if len(got) == 0 || len(got) > invariants.Top {
				t.Fatalf("got %d problem invariants, want 1 to %d", len(got), invariants.Top)
			}
			top := got[0]
			// The static field is the same at the entry and the exit of Registry.mode().
			if !strings.HasPrefix(top.Point, tt.point) || top.Variable != tt.variable || !slices.Equal(top.Passing, tt.passing) || !slices.Equal(top.Failing, tt.failing) {
				t.Errorf("top problem invariant %+v, want %s %s v> %q pv> %q", top, tt.point, tt.variable, tt.passing, tt.failing)
			}
		})
	}
}
