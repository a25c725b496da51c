package e2e

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/analysis/invariants"
	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/report"
)

// TestProblemInvariants traces the victims of testdata/invariants alone and
// after their polluters (its brittle after its state-setter and alone) in
// real JVMs and checks that the top-ranked problem invariant names the
// polluted variable: a static field, the return value of a
// count() over an H2 table, the return value of a method that reads a file,
// a static field the victim reads directly; and that the first reset
// candidate is the method that restores it (for the brittle: sets it).
// All findings go in one batch, as detect runs them.
func TestProblemInvariants(t *testing.T) {
	t.Parallel()
	needsTools(t)
	dir := copyFixture(t, "invariants")
	ctx, cancel := context.WithTimeout(context.Background(), callSafetyNet)
	t.Cleanup(cancel)
	setup, err := mvn.Prepare(ctx, dir, mvn.PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fast := *setup // the short JVMs of the analysis, as detect starts them
	fast.ArgLine = launcher.FastStart(launcher.Env{JVMArgs: setup.ArgLine}).JVMArgs
	l, err := newLauncher(&fast, javaBin(), launcher.Options{RunTimeout: jvmSafetyNet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	const pkg = "fixture.invariants."
	suite := []string{pkg + "ClearHitsTest#clears", pkg + "HitsTest#noHits", pkg + "HitterTest#hits", pkg + "InitTest#inits",
		pkg + "ModeTest#defaultMode", pkg + "NoteTakerTest#takesNote", pkg + "NotesCleanupTest#clears",
		pkg + "NotesTest#noNotes", pkg + "PurgeTest#purges", pkg + "ReadyTest#isReady", pkg + "ResetTest#resets",
		pkg + "SignupTest#signsUp", pkg + "StrictTest#setsStrict", pkg + "UsersTest#startsEmpty"}
	tests := []struct {
		kind report.Kind
		// before is the victim's polluter or the brittle's state-setter.
		test, before     string
		point, variable  string
		passing, failing []string
		// The first reset candidate: a cleaner method (for a brittle the
		// method that sets its state), or a return-value modifier that restores.
		reset, resetTest string
	}{
		{report.ODVictim, pkg + "ModeTest#defaultMode", pkg + "StrictTest#setsStrict", pkg + "Registry.mode():::", pkg + "Registry.mode",
			[]string{pkg + `Registry.mode == "default"`}, []string{pkg + `Registry.mode == "strict"`},
			pkg + "Registry.reset()", pkg + "ResetTest#resets"},
		{report.ODVictim, pkg + "UsersTest#startsEmpty", pkg + "SignupTest#signsUp", pkg + "Store.count():::EXIT", "return",
			[]string{"return == 0"}, []string{"return == 1"}, pkg + "Store.deleteAll()", pkg + "PurgeTest#purges"},
		{report.ODVictim, pkg + "NotesTest#noNotes", pkg + "NoteTakerTest#takesNote", pkg + "Notes.lines():::EXIT", "return",
			[]string{"return == 0"}, []string{"return == 1"}, pkg + "Notes.clear()", pkg + "NotesCleanupTest#clears"},
		// The victim reads the field directly: it is a variable of the test method's own points.
		{report.ODVictim, pkg + "HitsTest#noHits", pkg + "HitterTest#hits", pkg + "HitsTest.noHits():::ENTER", pkg + "Flags.hits",
			[]string{pkg + "Flags.hits == 0"}, []string{pkg + "Flags.hits == 1"}, pkg + "Flags.reset()", pkg + "ClearHitsTest#clears"},
		// A brittle: passing after its state-setter, failing alone; the
		// method that sets the state it needs takes the field from the
		// failing side to the passing one.
		{report.ODBrittle, pkg + "ReadyTest#isReady", pkg + "InitTest#inits", pkg + "ReadyTest.isReady():::ENTER", pkg + "Flags.ready",
			[]string{pkg + "Flags.ready == true"}, []string{pkg + "Flags.ready == false"}, pkg + "Flags.init()", pkg + "InitTest#inits"},
	}
	// The whole polluted order traced once, written as Daikon's files and read back.
	t.Run("daikon", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), callSafetyNet) // its own: a parallel subtest starts when a slot frees, not when its parent ran
		defer cancel()
		order := []string{tests[1].before, tests[1].test, tests[0].before, tests[0].test, tests[3].before, tests[3].test}
		r, err := l.RunWith(ctx, order, launcher.RunOptions{AgentOptions: invariants.AgentOptions})
		if err != nil {
			t.Fatal(err)
		}
		want := invariants.Merge(r.Invariants)
		if len(want) == 0 {
			t.Fatal("the traced run sent no program points")
		}
		out := t.TempDir()
		if err := invariants.WriteDaikon(out, "flaky", want); err != nil {
			t.Fatal(err)
		}
		got, err := invariants.ReadDaikon(out, "flaky")
		if err != nil {
			t.Fatal(err)
		}
		// Daikon derives size(x[]) itself: the files leave it out.
		for i := range want {
			want[i].Vars = slices.DeleteFunc(want[i].Vars, func(v agent.TraceVar) bool { return strings.HasPrefix(v.Name, "size(") })
			for _, s := range want[i].Samples {
				maps.DeleteFunc(s, func(k string, _ json.RawMessage) bool { return strings.HasPrefix(k, "size(") })
			}
			want[i].Calls = int64(len(want[i].Samples))
		}
		if !reflect.DeepEqual(roundTrip(t, got), roundTrip(t, want)) {
			t.Errorf("Daikon round trip differs:\n got %+v\nwant %+v", got, want)
		}
		if !slices.ContainsFunc(got, func(p agent.TracePoint) bool { return p.Point == pkg+"Store.count():::EXIT" }) {
			t.Errorf("no Store.count() exit among %d points", len(got))
		}
		// The field the test reads directly is a variable of its point.
		if !slices.ContainsFunc(got, func(p agent.TracePoint) bool {
			return p.Point == pkg+"HitsTest.noHits():::ENTER" && slices.Contains(p.Vars, agent.TraceVar{Name: pkg + "Flags.hits", Kind: "int"})
		}) {
			t.Errorf("no %sFlags.hits at HitsTest.noHits():::ENTER among %d points", pkg, len(got))
		}
	})
	t.Run("findings", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), callSafetyNet) // its own: a parallel subtest starts when a slot frees, not when its parent ran
		defer cancel()
		targets := make([]invariants.Target, len(tests))
		findings := make([]report.Finding, len(tests))
		for i, tt := range tests {
			targets[i] = invariants.Target{Test: tt.test, Passing: []string{tt.test}, Failing: []string{tt.before, tt.test}}
			findings[i] = report.Finding{Test: tt.test, Kind: tt.kind, Polluters: [][]string{{tt.before}}}
			if tt.kind == report.ODBrittle {
				targets[i].Passing, targets[i].Failing = targets[i].Failing, targets[i].Passing
				findings[i] = report.Finding{Test: tt.test, Kind: tt.kind, Setters: [][]string{{tt.before}}}
			}
		}
		start := time.Now()
		all, errs, err := invariants.Run(ctx, l, targets)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("problem invariants of %d findings in %v", len(targets), time.Since(start))
		for i, tt := range tests {
			got := all[i]
			if errs[i] != nil || len(got) == 0 || len(got) > invariants.Top {
				t.Fatalf("%s: got %d problem invariants (%v), want 1 to %d", tt.test, len(got), errs[i], invariants.Top)
			}
			top := got[0]
			// The static field is the same at the entry and the exit of Registry.mode().
			if !strings.HasPrefix(top.Point, tt.point) || top.Variable != tt.variable || !slices.Equal(top.Passing, tt.passing) || !slices.Equal(top.Failing, tt.failing) {
				t.Errorf("%s: top problem invariant %+v, want %s %s v> %q pv> %q", tt.test, top, tt.point, tt.variable, tt.passing, tt.failing)
			}
			findings[i].ProblemInvariants = got
		}

		start = time.Now()
		if err := invariants.FindResets(ctx, l, findings, suite, logs.Printf(t.Logf)); err != nil {
			t.Fatal(err)
		}
		t.Logf("reset candidates in %v", time.Since(start))
		for i, tt := range tests {
			f := findings[i]
			t.Logf("%s: cleaners %+v, modifiers %+v", tt.test, f.CleanerMethods, f.ReturnValueModifiers)
			resets := f.CleanerMethods
			if tt.variable == "return" {
				if len(f.CleanerMethods) != 0 {
					t.Errorf("%s: cleaner methods %+v for a return value", tt.test, f.CleanerMethods)
				}
				resets = f.ReturnValueModifiers
			}
			if len(resets) == 0 || resets[0].Method != tt.reset || resets[0].Test != tt.resetTest || !resets[0].Restores {
				t.Errorf("%s: reset candidates %+v, want first %s called by %s", tt.test, resets, tt.reset, tt.resetTest)
				continue
			}
			if tt.kind == report.ODVictim && tt.variable == pkg+"Registry.mode" &&
				!slices.ContainsFunc(f.ReturnValueModifiers, func(m report.MethodCandidate) bool {
					return m.Name == "setMode" && slices.Equal(m.ParameterTypes, []string{"java.lang.String"}) && slices.Equal(m.Arguments, []string{`"strict"`})
				}) {
				t.Errorf("%s: no modifier Registry.setMode(java.lang.String) called with \"strict\" among %+v", tt.test, f.ReturnValueModifiers)
			}
			// What a caller needs to call it: every reset method here is a static method without parameters.
			if r := resets[0]; r.Class+"."+r.Name+"()" != tt.reset || len(r.ParameterTypes) != 0 || r.ParameterTypes == nil || !r.Static {
				t.Errorf("%s: reset candidate %+v: want class and name of %s, no parameters, static", tt.test, r, tt.reset)
			}
		}
	})
}

// roundTrip re-encodes the samples' values so that equal values compare equal.
func roundTrip(t *testing.T, points []agent.TracePoint) []agent.TracePoint {
	t.Helper()
	data, err := json.Marshal(points)
	if err != nil {
		t.Fatal(err)
	}
	var generic []map[string]any
	if err := json.Unmarshal(data, &generic); err != nil {
		t.Fatal(err)
	}
	data, _ = json.Marshal(generic)
	var out []agent.TracePoint
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	for i := range out {
		for _, s := range out[i].Samples {
			for k, v := range s {
				var x any
				_ = json.Unmarshal(v, &x)
				s[k], _ = json.Marshal(x)
			}
		}
	}
	return out
}
