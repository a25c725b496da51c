package od

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

// bubbled runs test in a synctest bubble, for t.Run: the fake suite's
// delays and the analysis' budget, deadlines and timers then run on the
// bubble's fake clock, which moves only while every goroutine waits, so
// that how busy the machine is changes nothing the test sees.
func bubbled(test func(t *testing.T)) func(t *testing.T) {
	return func(t *testing.T) { synctest.Test(t, test) }
}

// fakeSuite is a synthetic test suite: each test reads and writes a state
// shared by the tests of one run (one "JVM") and passes or fails.
type fakeSuite struct {
	order []string
	tests map[string]func(st map[string]int) bool

	// fixtures are classes with class-level fixtures that break when they
	// run twice in one JVM (as a static jMock Mockery does): the tests of a
	// class-fixture scope after the class's first one fail.
	fixtures map[string]bool

	mu    sync.Mutex
	rng   *rand.Rand
	runs  int
	delay time.Duration
	warm  bool // the order running now runs in a warm JVM (warmSuite)
}

// RunAll implements Runner.
func (f *fakeSuite) RunAll(ctx context.Context, orders [][]string) ([]*launcher.Result, error) {
	return f.run(ctx, orders, false)
}

// run runs orders, each in a fresh "JVM" of its own; warm marks their
// results Warm, as a warm JVM's are.
func (f *fakeSuite) run(ctx context.Context, orders [][]string, warm bool) ([]*launcher.Result, error) {
	out := make([]*launcher.Result, len(orders))
	for i, order := range orders {
		if f.delay > 0 {
			select {
			case <-time.After(f.delay):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		f.mu.Lock()
		f.runs++
		f.warm = warm
		st := map[string]int{}
		r := &launcher.Result{Order: order, Warm: warm}
		scopes := map[string]int{}
		for j, id := range order {
			c := testid.ClassOf(id)
			if j == 0 || testid.ClassOf(order[j-1]) != c {
				scopes[c]++
			}
			o, msg := launcher.Fail, id+" fail"
			switch {
			case f.fixtures[c] && scopes[c] > 1:
				msg = "a mock with name consumer already exists"
			case f.tests[id](st):
				o, msg = launcher.Pass, id+" pass"
			}
			r.Tests = append(r.Tests, launcher.TestResult{Test: id, Outcome: o, Message: msg})
		}
		f.mu.Unlock()
		out[i] = r
	}
	return out, nil
}

// warmSuite is a fakeSuite whose exploration orders run in warm JVMs.
type warmSuite struct{ *fakeSuite }

// RunWarm implements WarmRunner.
func (w warmSuite) RunWarm(ctx context.Context, orders [][]string) ([]*launcher.Result, error) {
	return w.run(ctx, orders, true)
}

// set returns a test that sets key to v and passes.
func set(key string, v int) func(map[string]int) bool {
	return func(st map[string]int) bool { st[key] = v; return true }
}

// newFakeSuite models the fixtures' roles, plus two victims sharing a
// polluter and a cleaner, two independent polluters of one victim and a
// cleaner group of two tests.
func newFakeSuite() *fakeSuite {
	f := &fakeSuite{rng: rand.New(rand.NewPCG(1, 2))}
	f.tests = map[string]func(map[string]int) bool{
		// victim with a polluter in the same class
		"p.Currency#pads":     func(map[string]int) bool { return true },
		"p.Currency#defaults": func(st map[string]int) bool { return st["usd"] == 0 },
		"p.Currency#switches": set("usd", 1),
		// victim with a polluter in another class and a cleaner
		"p.Invoice#total":  func(st map[string]int) bool { return st["discount"] == 0 },
		"p.Receipt#total":  func(st map[string]int) bool { return st["discount"] == 0 },
		"p.Promotion#sale": set("discount", 1),
		"p.Cache#clear":    set("discount", 0),
		// victim of two polluters together
		"p.Health#spare": func(st map[string]int) bool { return st["audit"]+st["export"] < 2 },
		"p.Audit#write":  set("audit", 1),
		"p.Export#month": set("export", 1),
		// brittle and its state-setter
		"p.Decoder#json":    func(st map[string]int) bool { return st["codecs"] == 1 },
		"p.Registry#codecs": set("codecs", 1),
		// non-idempotent outcome
		"p.Plugin#register": func(st map[string]int) bool { st["pdf"]++; return st["pdf"] == 1 },
		// not order-dependent: fails 30% of the time
		"p.Retry#jitter": func(map[string]int) bool { return f.rng.Float64() >= 0.3 },
		// victim of either of two independent polluters
		"q.Clock#utc":   func(st map[string]int) bool { return st["tz"] == 0 },
		"q.Paris#tz":    set("tz", 1),
		"q.Tokyo#tz":    set("tz", 2),
		"q.Stable#one":  func(map[string]int) bool { return true },
		"q.Stable#two":  func(map[string]int) bool { return true },
		"q.Stable#tree": func(map[string]int) bool { return true },
		// victim whose cleaner is a group of two tests
		"r.Mail#empty":   func(st map[string]int) bool { return st["queued"] == 0 },
		"r.Send#queue":   set("queued", 1),
		"r.Flush#arm":    set("armed", 1),
		"r.Flush#drain":  func(st map[string]int) bool { st["queued"] *= 1 - st["armed"]; return true },
		"r.Stable#alpha": func(map[string]int) bool { return true },
	}
	// The original order passes but for the NOD test.
	f.order = []string{
		"p.Audit#write", "p.Cache#clear", "p.Currency#pads", "p.Currency#defaults", "p.Currency#switches",
		"p.Health#spare", "p.Invoice#total", "p.Receipt#total", "p.Registry#codecs", "p.Decoder#json", "p.Plugin#register",
		"p.Promotion#sale", "p.Export#month", "p.Retry#jitter",
		"q.Clock#utc", "q.Paris#tz", "q.Stable#one", "q.Stable#two", "q.Stable#tree", "q.Tokyo#tz",
		"r.Mail#empty", "r.Flush#arm", "r.Flush#drain", "r.Send#queue", "r.Stable#alpha",
	}
	return f
}

type want struct {
	kind                         report.Kind
	polluters, setters, cleaners [][]string
}

func TestAnalyzeFindsEveryRole(t *testing.T) {
	for _, seed := range []int64{1, 2, 3} {
		f := newFakeSuite()
		res, err := Run(context.Background(), f, Config{Tests: f.order, Seed: seed, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		wants := map[string]want{
			"p.Currency#defaults": {kind: report.ODVictim, polluters: [][]string{{"p.Currency#switches"}}},
			"p.Invoice#total":     {kind: report.ODVictim, polluters: [][]string{{"p.Promotion#sale"}}, cleaners: [][]string{{"p.Cache#clear"}}},
			"p.Receipt#total":     {kind: report.ODVictim, polluters: [][]string{{"p.Promotion#sale"}}, cleaners: [][]string{{"p.Cache#clear"}}},
			"p.Health#spare":      {kind: report.ODVictim, polluters: [][]string{{"p.Audit#write", "p.Export#month"}}},
			"p.Decoder#json":      {kind: report.ODBrittle, setters: [][]string{{"p.Registry#codecs"}}},
			"p.Plugin#register":   {kind: report.NIO},
			"p.Retry#jitter":      {kind: report.NOD},
			"q.Clock#utc":         {kind: report.ODVictim, polluters: [][]string{{"q.Paris#tz"}, {"q.Tokyo#tz"}}},
			"r.Mail#empty":        {kind: report.ODVictim, polluters: [][]string{{"r.Send#queue"}}, cleaners: [][]string{{"r.Flush#arm", "r.Flush#drain"}}},
		}
		for _, got := range res.Findings {
			w, ok := wants[got.Test]
			if !ok || w.kind != got.Kind {
				t.Errorf("seed %d: unexpected finding %s %s", seed, got.Kind, got.Test)
				continue
			}
			delete(wants, got.Test)
			for _, c := range []struct {
				name      string
				got, want [][]string
			}{{"polluters", got.Polluters, w.polluters}, {"setters", got.Setters, w.setters}, {"cleaners", got.Cleaners, w.cleaners}} {
				if !slices.EqualFunc(c.got, c.want, slices.Equal) {
					t.Errorf("seed %d: %s %s = %v, want %v", seed, got.Test, c.name, c.got, c.want)
				}
			}
			if want := map[report.Kind]string{report.NOD: "same order"}[got.Kind]; len(got.Evidence) == 0 ||
				!strings.HasPrefix(got.Evidence[0].Label, cmp.Or(want, "failing order")) {
				t.Errorf("seed %d: %s evidence %+v", seed, got.Test, got.Evidence)
			}
			if got.DetectedAfter == 0 || got.DetectedAfter > f.runs {
				t.Errorf("seed %d: %s detected after %d orders of %d", seed, got.Test, got.DetectedAfter, f.runs)
			}
			if got.Incomplete {
				t.Errorf("seed %d: %s incomplete", seed, got.Test)
			}
			if len(got.FailingOrder) == 0 || got.FailingOrder[len(got.FailingOrder)-1] != got.Test {
				t.Errorf("seed %d: %s failing order %v", seed, got.Test, got.FailingOrder)
			}
		}
		for test, w := range wants {
			t.Errorf("seed %d: missing %s %s", seed, w.kind, test)
		}
		cov := res.Coverage
		t.Logf("seed %d: %d orders: %v", seed, cov.Orders, cov.Generators)
		if cov.BudgetExhausted || cov.Seed != seed || cov.TestsAlone != len(f.order) || cov.Orders != f.runs || cov.PairsCovered == 0 || cov.Rounds != cov.RoundsPlanned {
			t.Errorf("seed %d: coverage %+v (runs %d)", seed, cov, f.runs)
		}
	}
}

// TestAnalyzeKeepsClassFixturesOnce checks that no finding rests on an order
// that runs a class's class-level fixtures twice: with the class known to
// have fixtures, only its real victim is reported; without, splitting the
// class makes false victims (the check can fail).
func TestAnalyzeKeepsClassFixturesOnce(t *testing.T) {
	newSuite := func() *fakeSuite {
		f := &fakeSuite{rng: rand.New(rand.NewPCG(1, 2)), fixtures: map[string]bool{"m.Handler": true}}
		f.tests = map[string]func(map[string]int) bool{
			"m.Handler#fragmented": func(st map[string]int) bool { return st["pending"] == 0 },
			"m.Handler#flush":      set("pending", 1),
			"m.Handler#single":     func(map[string]int) bool { return true },
			"m.Other#a":            func(map[string]int) bool { return true },
			"m.Other#b":            func(map[string]int) bool { return true },
			"m.Third#c":            func(map[string]int) bool { return true },
		}
		f.order = []string{"m.Handler#fragmented", "m.Handler#single", "m.Handler#flush", "m.Other#a", "m.Other#b", "m.Third#c"}
		return f
	}
	for _, seed := range []int64{1, 2, 3} {
		f := newSuite()
		res, err := Run(context.Background(), f, Config{Tests: f.order, Seed: seed, Workers: 2, Fixtures: f.fixtures})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Findings) != 1 || res.Findings[0].Test != "m.Handler#fragmented" || res.Findings[0].Kind != report.ODVictim ||
			!slices.EqualFunc(res.Findings[0].Polluters, [][]string{{"m.Handler#flush"}}, slices.Equal) {
			t.Errorf("seed %d: findings %+v", seed, res.Findings)
		}
	}
	f := newSuite()
	res, err := Run(context.Background(), f, Config{Tests: f.order, Seed: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) < 2 {
		t.Errorf("without the fixtures known, splitting the class should make false findings; got %+v", res.Findings)
	}
}

func TestFeasible(t *testing.T) {
	s := newSuite([]string{"a.C#1", "a.C#2", "a.C#3", "a.D#1", "a.E#1", "a.E#2"}, map[string]bool{"a.C": true, "a.E": true})
	for _, c := range []struct{ in, want []string }{
		{[]string{"a.C#1", "a.D#1", "a.C#2"}, []string{"a.D#1", "a.C#1", "a.C#2"}},
		{[]string{"a.C#1", "a.E#1", "a.C#2", "a.D#1", "a.E#2"}, []string{"a.C#1", "a.C#2", "a.D#1", "a.E#1", "a.E#2"}},
		{[]string{"a.E#2", "a.C#1", "a.D#1", "a.E#1", "a.C#3", "a.D#1"}, []string{"a.E#2", "a.E#1", "a.C#1", "a.C#3", "a.D#1", "a.D#1"}},
		{[]string{"a.D#1", "a.C#1", "a.C#1"}, []string{"a.D#1", "a.C#1", "a.C#1"}},
		{[]string{"a.C#2"}, []string{"a.C#2"}},
	} {
		if got := s.feasible(c.in); !slices.Equal(got, c.want) {
			t.Errorf("feasible(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestAnalyzeVictimFailingInTheOriginalOrder(t *testing.T) {
	f := newFakeSuite()
	order := []string{"p.Promotion#sale", "p.Invoice#total", "p.Cache#clear"}
	res, err := Run(context.Background(), f, Config{Tests: order, Seed: 4, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].Kind != report.ODVictim || !slices.Equal(res.Findings[0].FailingOrder, order[:2]) {
		t.Fatalf("findings %+v", res.Findings)
	}
}

func TestAnalyzeSkipsKnownTests(t *testing.T) {
	f := newFakeSuite()
	res, err := Run(context.Background(), f, Config{Tests: f.order, Seed: 5, Workers: 2, Skip: map[string]bool{"p.Retry#jitter": true, "p.Invoice#total": true}})
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range res.Findings {
		if got.Test == "p.Retry#jitter" || got.Test == "p.Invoice#total" {
			t.Errorf("reported skipped test %s as %s", got.Test, got.Kind)
		}
	}
}

// TestAutoBudget checks that the default budget grows with the suite's
// measured run time and size, within its bounds, and says how it was chosen.
func TestAutoBudget(t *testing.T) {
	suite := func(n int, run time.Duration, testMs int64) *recorder {
		var tests []string
		r := &launcher.Result{Duration: run}
		for i := range n {
			id := fmt.Sprintf("p.C%d#t", i/5)
			tests = append(tests, id+fmt.Sprint(i))
			r.Tests = append(r.Tests, launcher.TestResult{Test: id, TimeMs: testMs})
		}
		a := &recorder{cfg: Config{Workers: 2}, s: newSuite(tests, nil), originals: []*launcher.Result{r}}
		a.targets = tests
		return a
	}
	for _, c := range []struct {
		name     string
		a        *recorder
		min, max time.Duration
	}{
		{"small suite: the minimum", suite(10, 2*time.Second, 10), MinAutoBudget, MinAutoBudget},
		{"163 tests, 3s a run", suite(163, 3*time.Second, 5), 8 * time.Minute, 12 * time.Minute},
		{"huge suite: the maximum", suite(5000, 10*time.Minute, 100), MaxAutoBudget, MaxAutoBudget},
		{"unknown run time", &recorder{cfg: Config{Workers: 2}, s: newSuite([]string{"a.B#c"}, nil)}, DefaultBudget, DefaultBudget},
	} {
		b, why := (&ordering{c.a}).autoBudget(6)
		if b < c.min || b > c.max || why == "" {
			t.Errorf("%s: budget %s (%s), want %s..%s", c.name, b, why, c.min, c.max)
		}
	}
}

// TestAnalyzeStopsAtTheBudget cuts detection at its share of the budget
// and ends the analysis soon after. The fake suite's delay, the budget and
// the analysis' clock run on the bubble's fake clock: the runs the budget
// cuts are the same however busy the machine is.
func TestAnalyzeStopsAtTheBudget(t *testing.T) {
	synctest.Test(t, testAnalyzeStopsAtTheBudget)
}

func testAnalyzeStopsAtTheBudget(t *testing.T) {
	f := newFakeSuite()
	f.delay = 20 * time.Millisecond
	start := time.Now()
	res, err := Run(context.Background(), f, Config{Tests: f.order, Seed: 6, Workers: 2, Budget: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s with a budget of 300ms", d)
	}
	if !res.Coverage.BudgetExhausted || res.Coverage.Orders == 0 || res.Coverage.Rounds >= res.Coverage.RoundsPlanned {
		t.Errorf("coverage %+v", res.Coverage)
	}
	for _, got := range res.Findings {
		if got.Kind != report.NOD && got.Test == "p.Retry#jitter" {
			t.Errorf("NOD test reported as %s", got.Kind)
		}
	}
}

func TestReportFindings(t *testing.T) {
	dir := t.TempDir()
	findings := []Finding{
		{Test: "a.V#t", Kind: report.ODVictim, Polluters: [][]string{{"a.P#p"}}, FailingOrder: []string{"a.P#p", "a.V#t"}, PassingOrder: []string{"a.V#t"},
			Evidence: []Observation{{Label: "confirm", Order: []string{"a.P#p", "a.V#t"}, Fail: 3, Failure: launcher.Fail, Message: "boom"}}},
		{Test: "a.N#t", Kind: report.NOD, FailingOrder: []string{"a.N#t"}, PassingOrder: []string{"a.N#t"}, Runs: 100, Fails: 40},
	}
	got, err := ReportFindings(findings, ReportOptions{OrderDir: filepath.Join(dir, "orders"), ModuleDir: "/p/core", Module: "core"})
	if err != nil {
		t.Fatal(err)
	}
	v := got[0]
	file := strings.TrimPrefix(lastField(v.Reproduce), "-Dflaky.order=")
	if want := "mvn -Pflaky test -pl core -am -Dtest=a.P,a.V -Dsurefire.failIfNoSpecifiedTests=false -Dflaky.testFailureIgnore=false -Dflaky.order=" + file; v.Reproduce != want {
		t.Errorf("reproduce %q, want %q", v.Reproduce, want)
	}
	if want := "flaky run-order --module /p/core --order " + file; v.ReproduceRunOrder != want {
		t.Errorf("run-order reproduce %q, want %q", v.ReproduceRunOrder, want)
	}
	if data, err := os.ReadFile(file); err != nil || string(data) != "a.P#p\na.V#t\n" {
		t.Errorf("order file %q: %v", data, err)
	}
	if len(v.Evidence) != 1 || v.Evidence[0].Outcome != "fail" || v.Evidence[0].Run != "confirm: 3 run(s)" {
		t.Errorf("victim %+v", v)
	}
	nod := got[1]
	file = strings.TrimPrefix(lastField(nod.Reproduce), "-Dflaky.order=")
	data, _ := os.ReadFile(file)
	if n := strings.Count(string(data), "a.N#t\n"); n != 26 {
		t.Errorf("NOD reproduce order repeats the test %d times, want 26 (fails in 39 of 99 runs after the first failure: at least 30%% with 95%% confidence)", n)
	}
}

func lastField(s string) string {
	f := strings.Fields(s)
	return f[len(f)-1]
}

// TestAnalyzeManyVictimsOfOnePolluter checks that victims sharing a polluter
// and a cleaner all get both, with the group found once and reused.
func TestAnalyzeManyVictimsOfOnePolluter(t *testing.T) {
	f := &fakeSuite{rng: rand.New(rand.NewPCG(1, 2)), tests: map[string]func(map[string]int) bool{
		"h.Conn#custom": set("factory", 1),
		"h.Conn#reset":  set("factory", 0),
	}}
	var victims []string
	for i := range 24 {
		id := fmt.Sprintf("h.Http#get%02d", i)
		victims = append(victims, id)
		f.tests[id] = func(st map[string]int) bool { return st["factory"] == 0 }
	}
	for i := range 12 {
		id := fmt.Sprintf("h.Other#stable%02d", i)
		f.tests[id] = func(map[string]int) bool { return true }
		f.order = append(f.order, id)
	}
	f.order = append(append(f.order, victims...), "h.Conn#reset", "h.Conn#custom")
	res, err := Run(context.Background(), f, Config{Tests: f.order, Seed: 3, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, fd := range res.Findings {
		if fd.Kind != report.ODVictim || !slices.EqualFunc(fd.Polluters, [][]string{{"h.Conn#custom"}}, slices.Equal) ||
			!slices.EqualFunc(fd.Cleaners, [][]string{{"h.Conn#reset"}}, slices.Equal) || fd.Incomplete {
			t.Errorf("finding %s %s polluters %v cleaners %v incomplete %v", fd.Kind, fd.Test, fd.Polluters, fd.Cleaners, fd.Incomplete)
		}
		got[fd.Test] = true
	}
	for _, v := range victims {
		if !got[v] {
			t.Errorf("missing victim %s", v)
		}
	}
	t.Logf("%d orders: %v", res.Coverage.Orders, res.Coverage.Generators)
}

func TestInfeasibleFrom(t *testing.T) {
	a := &recorder{s: newSuite([]string{"a.C#1", "a.C#2", "a.D#1"}, map[string]bool{"a.C": true})}
	for _, c := range []struct {
		order  []string
		scopes map[string]int
		want   int
	}{
		{[]string{"a.C#1", "a.C#2", "a.D#1"}, map[string]int{"a.C": 1, "a.D": 1}, -1},
		{[]string{"a.C#1", "a.D#1", "a.C#2"}, nil, 2},
		{[]string{"a.D#1", "a.C#1", "a.C#1"}, map[string]int{"a.C": 1, "a.D": 1}, -1}, // repeated in one scope (JUnit 4)
		{[]string{"a.D#1", "a.C#1", "a.C#1"}, map[string]int{"a.C": 2, "a.D": 1}, 2},  // the framework split it (Jupiter)
		{[]string{"a.D#1", "a.D#1"}, map[string]int{"a.D": 2}, -1},                    // no class fixtures
	} {
		if got := a.infeasibleFrom(&launcher.Result{Order: c.order, ClassScopes: c.scopes}); got != c.want {
			t.Errorf("infeasibleFrom(%v, %v) = %d, want %d", c.order, c.scopes, got, c.want)
		}
	}
}

// TestFlipTimeIsWhenTheRunsEnded: a test's flip is dated when the runs that
// showed it pass and fail ended, not when the analysis received them (a warm
// JVM hands its orders' results over together, at its end).
func TestFlipTimeIsWhenTheRunsEnded(t *testing.T) {
	t0 := time.Now().Add(-time.Minute)
	run := func(ended time.Duration, warm bool, outcomes ...launcher.Outcome) *launcher.Result {
		r := &launcher.Result{Ended: t0.Add(ended), Warm: warm}
		for i, o := range outcomes {
			test := fmt.Sprintf("a.C#%d", i+1)
			r.Order = append(r.Order, test)
			r.Tests = append(r.Tests, launcher.TestResult{Test: test, Outcome: o})
		}
		return r
	}
	for _, tt := range []struct {
		name string
		runs []*launcher.Result
		want time.Duration
	}{
		{"a warm failure that ended before the fresh pass", []*launcher.Result{run(5*time.Second, false, launcher.Pass, launcher.Pass), run(2*time.Second, true, launcher.Pass, launcher.Fail)}, 5 * time.Second},
		{"a warm failure received after, ended after the pass", []*launcher.Result{run(time.Second, false, launcher.Pass, launcher.Pass), run(3*time.Second, true, launcher.Pass, launcher.Fail)}, 3 * time.Second},
		{"the earliest pass counts", []*launcher.Result{run(4*time.Second, true, launcher.Pass, launcher.Fail), run(3*time.Second, true, launcher.Pass, launcher.Pass), run(2*time.Second, true, launcher.Pass, launcher.Pass)}, 4 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := &recorder{cfg: Config{Log: logs.Logger{}}, s: newSuite([]string{"a.C#1", "a.C#2"}, nil), st: newStore(), warm: newStore(),
				start: t0, index: map[string]int{"a.C#1": 0, "a.C#2": 1}, pairs: map[[2]int]bool{},
				flipped: map[string]milestone{}, firstSeen: map[string][2]time.Time{}, tried: map[string]bool{}, completed: map[string]bool{}, rerun: map[string]bool{}, cov: Coverage{Generators: map[string]int{}}}
			for i, r := range tt.runs {
				a.record(plannedOrder{gen: GenRandomMethods, label: fmt.Sprintf("r%d", i), tests: r.Order}, r, true)
			}
			if got := a.flipped["a.C#2"].elapsed; got != tt.want {
				t.Errorf("flipped after %s, want %s", got, tt.want)
			}
			if _, ok := a.flipped["a.C#1"]; ok {
				t.Errorf("a.C#1 never failed but flipped")
			}
		})
	}
}

// TestAnalyzeWarmFailureFallsBackToAFreshOne: a victim's shortest failing
// order is a warm one that fresh JVMs do not reproduce (a warm JVM kept
// state a fresh one does not have); confirm falls back to the shortest
// fresh order it failed in, so the victim is found with its real polluter,
// as without warm runs.
func TestAnalyzeWarmFailureFallsBackToAFreshOne(t *testing.T) {
	f := &fakeSuite{rng: rand.New(rand.NewPCG(1, 2)), order: []string{"a.A#one", "a.P#pollutes", "a.V#victim", "a.B#warmOnly"}}
	f.tests = map[string]func(map[string]int) bool{
		"a.A#one":      func(map[string]int) bool { return true },
		"a.P#pollutes": set("x", 1),
		"a.B#warmOnly": set("w", 1),
		"a.V#victim":   func(st map[string]int) bool { return st["x"] == 0 && (!f.warm || st["w"] == 0) },
	}
	res, err := Run(context.Background(), warmSuite{f}, Config{Tests: f.order, Seed: 1, Workers: 2, Warm: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].Test != "a.V#victim" || res.Findings[0].Kind != report.ODVictim {
		t.Fatalf("findings %+v, want a.V#victim a victim", res.Findings)
	}
	if p := res.Findings[0].Polluters; !slices.EqualFunc(p, [][]string{{"a.P#pollutes"}}, slices.Equal) {
		t.Errorf("polluters %v, want [[a.P#pollutes]]", p)
	}
	if res.Coverage.WarmOrders == 0 || len(res.Coverage.Unconfirmed) > 0 {
		t.Errorf("coverage %+v, want warm orders and nothing unconfirmed", res.Coverage)
	}
}

// TestAnalyzeWarmOnlyFailureOfANODTest: a NOD test that happened to fail
// in warm JVMs only, and rarely fails fresh, is still found NOD on fresh
// runs alone: confirm reruns its failing order in fresh JVMs until it
// fails there too.
func TestAnalyzeWarmOnlyFailureOfANODTest(t *testing.T) {
	f := &fakeSuite{rng: rand.New(rand.NewPCG(1, 2)), order: []string{"a.A#one", "a.A#two", "a.B#three", "n.Retry#rare"}}
	fresh := 0
	f.tests = map[string]func(map[string]int) bool{
		"a.A#one": func(map[string]int) bool { return true }, "a.A#two": func(map[string]int) bool { return true },
		"a.B#three": func(map[string]int) bool { return true },
		// fails in every warm run, and in every seventh fresh one
		"n.Retry#rare": func(map[string]int) bool {
			if f.warm {
				return false
			}
			fresh++
			return fresh%7 != 0
		},
	}
	res, err := Run(context.Background(), warmSuite{f}, Config{Tests: f.order, Seed: 1, Workers: 2, Warm: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].Test != "n.Retry#rare" || res.Findings[0].Kind != report.NOD {
		t.Fatalf("findings %+v, want n.Retry#rare NOD", res.Findings)
	}
	if e := res.Findings[0].Evidence; len(e) != 1 || e[0].Pass == 0 || e[0].Fail == 0 {
		t.Errorf("evidence %+v, want one order that passed and failed fresh", e)
	}
	if res.Coverage.WarmOrders == 0 || len(res.Coverage.Unconfirmed) > 0 {
		t.Errorf("coverage %+v, want warm orders and nothing unconfirmed", res.Coverage)
	}
}
