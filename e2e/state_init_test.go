package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/analysis/invariants"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/mvn"
)

// stateInitExpected is one module of testdata/state-init/expected.json,
// whose findings are the state fixture's, each with the point and the
// variable (a prefix: the map's size or an entry) of its top problem
// invariant.
type stateInitExpected struct {
	Findings []struct {
		ProblemInvariant struct {
			Point    string `json:"point"`
			Variable string `json:"variable"`
		} `json:"problemInvariant"`
	} `json:"findings"`
}

// TestStateWhileInstanceBuilt checks the victims of testdata/state-init,
// which fail while their test instance is built (a field initialiser, a
// constructor; JUnit 4.12, JUnit 3 and Jupiter build it before they report
// the test started): the polluted entry of the static map is named and
// confirmed (putting it back before the instance is built makes the victim
// pass), and a problem invariant on the map is inferred from the points
// the instance's construction passes.
func TestStateWhileInstanceBuilt(t *testing.T) {
	t.Parallel()
	needsTools(t)
	dir := copyFixture(t, "state-init")
	data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var modules struct {
		Modules []json.RawMessage `json:"modules"`
	}
	if err := json.Unmarshal(data, &modules); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), callSafetyNet)
	defer cancel()
	for _, raw := range modules.Modules {
		var want stateExpected
		var inv stateInitExpected
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &inv); err != nil {
			t.Fatal(err)
		}
		t.Run(want.Module, func(t *testing.T) {
			setup, err := mvn.Prepare(ctx, filepath.Join(dir, want.Module), mvn.PrepareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Run("debugger", func(t *testing.T) { checkPollutedState(ctx, t, setup, want, javaBin(), nil) })
			t.Run("invariants", func(t *testing.T) {
				fast := *setup
				fast.ArgLine = launcher.FastStart(launcher.Env{JVMArgs: setup.ArgLine}).JVMArgs
				l, err := newLauncher(&fast, javaBin(), launcher.Options{RunTimeout: jvmSafetyNet})
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
				targets := make([]invariants.Target, len(want.Findings))
				for i, f := range want.Findings {
					targets[i] = invariants.Target{Test: f.Test, Passing: []string{f.Test}, Failing: []string{f.Polluters[0][0], f.Test}}
				}
				all, errs, err := invariants.Run(ctx, l, targets)
				if err != nil {
					t.Fatal(err)
				}
				for i, f := range want.Findings {
					w := inv.Findings[i].ProblemInvariant
					got := all[i]
					if errs[i] != nil || len(got) == 0 {
						t.Errorf("%s: no problem invariant (%v)", f.Test, errs[i])
						continue
					}
					top := got[0]
					t.Logf("%s: top problem invariant %+v", f.Test, top)
					if top.Point != w.Point || !strings.HasPrefix(top.Variable, w.Variable) {
						t.Errorf("%s: top problem invariant %+v, want %s at %s", f.Test, top, w.Variable, w.Point)
					}
				}
			})
		})
	}
}
