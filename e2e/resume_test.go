package e2e

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/analysis/chaos"
	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// TestResumeAfterEarlyEnd runs, in real JVMs, an order with a test that
// hangs and one that calls System.exit, with Resume: each JVM that ends
// early is followed by a fresh one for the rest of the order, so the tests
// after them run; the parameterized test, listed once as dynamic, runs as
// its three invocations.
func TestResumeAfterEarlyEnd(t *testing.T) {
	t.Parallel()
	p := fixture(t, "jupiter5")
	const param = "fixture.jupiter5.ChecksumTest#hasEightHexDigits"
	infos := list(t, p)
	for _, ti := range infos {
		if want := ti.ID == param; ti.Dynamic != want {
			t.Errorf("%s listed with dynamic=%v, want %v", ti.ID, ti.Dynamic, want)
		}
	}
	stable := p.expected.Fixture.Stable
	hang, exit := p.expected.Fixture.Hangs[0], p.expected.Fixture.Exits[0]
	order := []string{stable[0], hang, stable[1], exit, param}
	// A fixed 3 s test timeout fired on a busy machine before the first
	// test began: the JVM that hangs then had no result to resume after.
	lim := measureHangLimits(t, p, []string{stable[0], stable[1], param})
	l, err := newLauncher(p.setup, javaBin(), launcher.Options{TestTimeout: lim.Test, RunTimeout: lim.Run})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := lim.context(3)
	defer cancel()
	r, err := l.RunWith(ctx, order, launcher.RunOptions{Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]launcher.Outcome{stable[0]: launcher.Pass, hang: launcher.Timeout, stable[1]: launcher.Pass, exit: launcher.Crash,
		param + "[1]": launcher.Pass, param + "[2]": launcher.Pass, param + "[3]": launcher.Pass}
	for id, w := range want {
		if got := outcomeOf(r, id); got != w {
			t.Errorf("%s = %q, want %q\n%s", id, got, w, describe(r))
		}
	}
	if len(r.Tests) != len(want) {
		t.Errorf("%d results, want %d:\n%s", len(r.Tests), len(want), describe(r))
	}
	wantResumed := []launcher.Resumption{{At: 2, From: stable[1], After: hang, Why: "timeout"}, {At: 4, From: param, After: exit, Why: "System.exit"}}
	if !slices.Equal(r.Resumed, wantResumed) {
		t.Errorf("resumed %+v, want %+v", r.Resumed, wantResumed)
	}
}

// TestChaosResumesAfterHang runs RANDOM_MAX with random.limit=0 on the
// chaos fixture with a test that hangs under it first: the tests after the hang still run under
// the strategy in a fresh JVM, the RANDOM finding after it is reported with
// the test alone as its reproduce order, and nothing counts as never run.
func TestChaosResumesAfterHang(t *testing.T) {
	t.Parallel()
	p := fixture(t, "chaos")
	setup := *p.setup
	setup.SysProps = maps.Clone(setup.SysProps)
	setup.SysProps["fixture.chaos.hangs"] = "true"
	const hang, latent, stable = "fixture.chaos.UniformLongTest#drawsBelowTheBound", "fixture.chaos.TicketPoolTest#drawsATicket", "fixture.chaos.StableTest#boundedRandomIndex"
	// The timeouts and the budget are sized from an unperturbed run of the
	// three tests (the hang ends unperturbed) on this machine: a fixed 8 s
	// test timeout fired on a busy one before the first test began.
	lim := measureAnalysisLimits(t, &setup, launcher.Options{}, []string{hang, latent, stable}, 2, 8*time.Second)
	l, err := newLauncher(&setup, javaBin(), launcher.Options{TestTimeout: lim.Test, RunTimeout: lim.Run})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	randomMax, err := chaos.Parse("RANDOM_MAX")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := lim.context(0)
	defer cancel()
	res, err := chaos.Run(ctx, l, chaos.Config{
		Tests:      []string{hang, latent, stable},
		Mode:       chaos.Single,
		Strategies: randomMax,
		// Every draw the boundary: the rejection-sampling loop never ends.
		Settings: chaos.Settings{Roots: chaos.RootsFor(setup.ModuleDir, setup.ClassesDir, setup.TestClassesDir), Params: []string{"random.limit=0"}},
		Budget:   lim.Budget,
		Log:      logs.Printf(t.Logf),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Coverage) != 1 || res.Coverage[0].NotRun != 0 || res.Coverage[0].Ran != 3 || res.Coverage[0].JVMs != 2 {
		t.Errorf("coverage %+v, want 3 tests run in 2 JVMs", res.Coverage)
		for _, f := range res.Findings {
			t.Logf("%s: %s", f.Test, f.Message)
		}
	}
	i := slices.IndexFunc(res.Findings, func(f chaos.Finding) bool { return f.Test == latent })
	if i < 0 {
		t.Fatalf("%s not reported after the hang: %+v", latent, res.Findings)
	}
	f := res.Findings[i]
	if chaos.Join(f.Strategies) != "RANDOM_MAX" || !slices.Equal(f.Order, []string{latent}) {
		t.Errorf("%s: %s, order %q; want RANDOM_MAX and the test alone", latent, chaos.Join(f.Strategies), f.Order)
	}
	resumed := slices.ContainsFunc(f.Evidence, func(e chaos.Evidence) bool {
		return e.Run == "RANDOM_MAX" && e.Detail == "" && len(e.Resumed) == 1 && e.Resumed[0].After == hang && e.Resumed[0].Why == "timeout"
	})
	if !resumed {
		t.Errorf("%s: no evidence of the run resumed after %s: %+v", latent, hang, f.Evidence)
	}
	if slices.ContainsFunc(res.Findings, func(f chaos.Finding) bool { return f.Test == stable }) {
		t.Errorf("%s reported", stable)
	}
}

// TestHandoffInRealJVMs splits a run of real JVMs as the combined chaos run
// is split: while the first test hangs, the runner hands what follows the
// class run it is in over, at the next class run's start; the JVM that hung
// is followed by a fresh one (Resume) that runs the rest of that class run
// and stops at the cut, another JVM runs the rest, and the two results
// joined hold every test once.
func TestHandoffInRealJVMs(t *testing.T) {
	t.Parallel()
	p := fixture(t, "jupiter5")
	hang := p.expected.Fixture.Hangs[0]
	const alpha, beta = "fixture.jupiter5.AlphaTest", "fixture.jupiter5.BetaTest"
	order := []string{hang, "fixture.jupiter5.MisbehavingTest#passes", alpha + "#one", alpha + "#two",
		"fixture.jupiter5.AuditLogTest#writesAuditEntry", beta + "#one", "fixture.jupiter5.ChecksumTest#knownValues",
		"fixture.jupiter5.SlugifierTest#stripsPunctuation"}
	// A fixed 3 s test timeout ended the JVM on a busy machine before its
	// first test began: no hang to hand the rest over from.
	lim := measureHangLimits(t, p, order[1:])
	l, err := newLauncher(p.setup, javaBin(), launcher.Options{TestTimeout: lim.Test, RunTimeout: lim.Run})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// The hung JVM, the one resumed after it, and the one that runs the rest.
	ctx, cancel := lim.context(3)
	defer cancel()
	h := launcher.NewHandoff()
	type split struct {
		from, to int
		ok       bool
	}
	asked := make(chan split, 1)
	ran := make(chan struct{})
	go func() {
		// Polls for the event (a JVM that has entries left has started a
		// test), up to the run's end: a run that never gets there fails
		// below at once rather than at the context's deadline.
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for h.Left() == 0 {
			select {
			case <-ran:
				asked <- split{}
				return
			case <-tick.C:
			}
		}
		from, to, ok := h.Split()
		asked <- split{from, to, ok}
	}()
	r, err := l.RunWith(ctx, order, launcher.RunOptions{Resume: true, Handoff: h})
	close(ran)
	if err != nil {
		t.Fatal(err)
	}
	// Entries 1 to 7 were left when the hang began: those after its class
	// run, from AlphaTest's on, go to another JVM.
	if s := <-asked; !s.ok || s.from != 2 || s.to != len(order) {
		t.Fatalf("Split() = %+v, want entries 2 to %d", s, len(order))
	}
	if !slices.Equal(r.Order, order[:2]) {
		t.Errorf("the first JVMs' order = %v, want %v\n%s", r.Order, order[:2], describe(r))
	}
	rest, err := l.RunWith(ctx, order[2:], launcher.RunOptions{Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	r.Join(rest)
	for _, id := range order {
		want := launcher.Pass
		if id == hang {
			want = launcher.Timeout
		}
		if got := outcomeOf(r, id); got != want {
			t.Errorf("%s = %q, want %q\n%s", id, got, want, describe(r))
		}
	}
	if len(r.Tests) != len(order) {
		t.Errorf("%d results, want %d:\n%s", len(r.Tests), len(order), describe(r))
	}
	wantResumed := []launcher.Resumption{{At: 1, From: order[1], After: hang, Why: "timeout"}, {At: 2, From: order[2], Why: launcher.HandedOver}}
	if !slices.Equal(r.Resumed, wantResumed) {
		t.Errorf("resumed %+v, want %+v", r.Resumed, wantResumed)
	}
}
