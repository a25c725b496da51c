package od

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

// pollutedSuite is a fake suite of victims (in several classes) of one
// polluter with one cleaner, a few victims of a second polluter, a brittle
// test and its state-setter, and stable tests; its original order passes.
// With fixtures, the polluter's class has class-level fixtures and a
// quarter of its victims.
func pollutedSuite(victims, second int, fixtures bool) (f *fakeSuite, first, others []string) {
	f = &fakeSuite{rng: rand.New(rand.NewPCG(1, 2)), tests: map[string]func(map[string]int) bool{
		"h.Conn#custom":   set("factory", 1),
		"h.Conn#reset":    set("factory", 0),
		"h.Uri#scheme":    set("schemes", 1),
		"h.Codec#json":    func(st map[string]int) bool { return st["codecs"] == 1 },
		"h.Registry#init": set("codecs", 1),
	}}
	for i := range victims {
		id := fmt.Sprintf("h.Class%d#get%02d", i%4, i)
		if fixtures && i%4 == 0 {
			id = fmt.Sprintf("h.Conn#get%02d", i)
		}
		first = append(first, id)
		f.tests[id] = func(st map[string]int) bool { return st["factory"] == 0 }
	}
	for i := range second {
		id := fmt.Sprintf("h.Headers#host%d", i)
		others = append(others, id)
		f.tests[id] = func(st map[string]int) bool { return st["schemes"] == 0 }
	}
	for i := range 6 {
		id := fmt.Sprintf("h.Stable#t%d", i)
		f.tests[id] = func(map[string]int) bool { return true }
		f.order = append(f.order, id)
	}
	if fixtures {
		f.fixtures = map[string]bool{"h.Conn": true}
	}
	// The polluter's class in one stretch, as its class-level fixtures need.
	inConn := func(t string) bool { return strings.HasPrefix(t, "h.Conn#") }
	f.order = slices.Concat([]string{"h.Registry#init", "h.Codec#json"}, f.order, slices.DeleteFunc(slices.Clone(first), inConn), others,
		slices.DeleteFunc(slices.Clone(first), func(t string) bool { return !inConn(t) }), []string{"h.Conn#custom", "h.Conn#reset", "h.Uri#scheme"})
	return f, first, others
}

// TestConfirmedTestsAreFindings checks that every confirmed victim and
// brittle is a finding whether or not the budget leaves time to minimise
// it, that the findings minimisation did not complete say so, and that no
// finding is also unconfirmed. Each case runs on a synctest bubble's fake
// clock: the budget spent, or left, is what the case says however long the
// runs take on the machine.
func TestConfirmedTestsAreFindings(t *testing.T) {
	for _, c := range []struct {
		name      string
		spent     time.Duration // of the one-minute budget when confirmation starts
		minimised bool
	}{
		{"budget left", 0, true},
		// A second past the budget's end: the bubble's clock stands still
		// while the fake runs run, so at exactly its end the budget would
		// not be spent.
		{"budget spent: confirmation runs in its grace, minimisation not at all", time.Minute + time.Second, false},
	} {
		t.Run(c.name, bubbled(func(t *testing.T) {
			f, first, second := pollutedSuite(8, 2, true)
			a := newRecorder(f, Config{Tests: f.order, Workers: 2, Seed: 1, Fixtures: f.fixtures})
			a.stop = func() {}
			ctx, far := context.Background(), time.Now().Add(time.Hour)
			// The original order, then the reversed one, which shows every flip.
			if err := a.run(ctx, far, []plannedOrder{{gen: GenOriginal, label: GenOriginal, tests: f.order, plan: -1}}); err != nil {
				t.Fatal(err)
			}
			a.targets = (&ordering{a}).analysable()
			if err := a.run(ctx, far, []plannedOrder{{gen: "reverse-classes", label: "reverse-classes", tests: a.s.feasible(reversed(f.order)), plan: -1}}); err != nil {
				t.Fatal(err)
			}
			a.start = time.Now().Add(-c.spent)
			a.setBudget(time.Minute, "")
			defer a.timer.Stop()
			err := a.settleCandidates(ctx, &detection{recorder: a})
			if c.minimised != (err == nil) {
				t.Fatalf("settleCandidates: %v", err)
			}
			res := (&reporting{a}).result()
			got := map[string]Finding{}
			for _, fd := range res.Findings {
				got[fd.Test] = fd
			}
			for _, v := range slices.Concat(first, second, []string{"h.Codec#json"}) {
				fd, ok := got[v]
				switch {
				case !ok:
					t.Errorf("%s: no finding", v)
				case fd.Incomplete == c.minimised || slices.Contains(res.Coverage.Unminimised, v) == c.minimised:
					t.Errorf("%s: incomplete %v, unminimised %v, want minimised %v", v, fd.Incomplete, res.Coverage.Unminimised, c.minimised)
				case c.minimised && len(fd.Polluters)+len(fd.Setters) != 1:
					t.Errorf("%s: polluters %v, setters %v", v, fd.Polluters, fd.Setters)
				case len(fd.FailingOrder) == 0 || fd.FailingOrder[len(fd.FailingOrder)-1] != v || len(fd.Evidence) == 0:
					t.Errorf("%s: failing order %v, evidence %v", v, fd.FailingOrder, fd.Evidence)
				}
			}
			for _, u := range res.Coverage.Unconfirmed {
				if _, ok := got[u]; ok {
					t.Errorf("%s is both a finding and unconfirmed", u)
				}
			}
			if len(res.Findings) != len(first)+len(second)+1 {
				t.Errorf("%d findings, want %d", len(res.Findings), len(first)+len(second)+1)
			}
		}))
	}
}

// TestVictimsOfOneGroupAreMinimisedOnce checks that victims of one polluter
// in several classes, found in different orders, cost one search for the
// group and a few batch runs, not a search or a run per victim.
func TestVictimsOfOneGroupAreMinimisedOnce(t *testing.T) {
	for _, c := range []struct {
		victims, second int
		seed            int64
		fixtures        bool
	}{{8, 2, 1, false}, {44, 3, 1, false}, {44, 3, 2, true}, {44, 3, 3, true}} {
		f, first, second := pollutedSuite(c.victims, c.second, c.fixtures)
		res, err := Run(context.Background(), f, Config{Tests: f.order, Seed: c.seed, Workers: 2, Fixtures: f.fixtures})
		if err != nil {
			t.Fatal(err)
		}
		wants := map[string]want{"h.Codec#json": {kind: report.ODBrittle, setters: [][]string{{"h.Registry#init"}}}}
		for _, v := range first {
			wants[v] = want{kind: report.ODVictim, polluters: [][]string{{"h.Conn#custom"}}, cleaners: [][]string{{"h.Conn#reset"}}}
		}
		for _, v := range second {
			wants[v] = want{kind: report.ODVictim, polluters: [][]string{{"h.Uri#scheme"}}}
		}
		for _, fd := range res.Findings {
			w, ok := wants[fd.Test]
			if !ok || fd.Kind != w.kind || fd.Incomplete || !slices.EqualFunc(fd.Polluters, w.polluters, slices.Equal) ||
				!slices.EqualFunc(fd.Setters, w.setters, slices.Equal) || !slices.EqualFunc(fd.Cleaners, w.cleaners, slices.Equal) {
				t.Errorf("%d victims, seed %d: finding %s %s polluters %v setters %v cleaners %v incomplete %v",
					c.victims, c.seed, fd.Kind, fd.Test, fd.Polluters, fd.Setters, fd.Cleaners, fd.Incomplete)
			}
			delete(wants, fd.Test)
		}
		for v := range wants {
			t.Errorf("%d victims, seed %d: missing %s", c.victims, c.seed, v)
		}
		// Confirmation runs each test alone k times and its failing and
		// passing orders; minimising three groups with a search each and
		// batches must not add a run per victim.
		n := c.victims + c.second + 1
		if extra := res.Coverage.Generators[genConfirm] + res.Coverage.Generators[genMinimise] - DefaultConfirmations*n; extra > 90 {
			t.Errorf("%d victims, seed %d: %d runs beyond the alone runs of confirmation: %v", c.victims, c.seed, extra, res.Coverage.Generators)
		}
		t.Logf("%d victims, seed %d: %d orders: %v", c.victims, c.seed, res.Coverage.Orders, res.Coverage.Generators)
	}
}

// TestExtendBudget checks that a budget the analysis chose grows to what
// confirming and minimising the candidates needs, within MaxAutoBudget, and
// says why.
func TestExtendBudget(t *testing.T) {
	for _, c := range []struct {
		name     string
		cands    int
		run      time.Duration // a run of the suite of 100 tests
		min, max time.Duration
	}{
		{"few candidates, fast suite: as it was", 3, time.Second, 5 * time.Minute, 5 * time.Minute},
		{"47 candidates, 10s a run", 47, 10 * time.Second, 6 * time.Minute, MaxAutoBudget - time.Minute},
		{"huge: the maximum", 900, 5 * time.Minute, MaxAutoBudget, MaxAutoBudget},
	} {
		var tests []string
		r := &launcher.Result{Duration: c.run}
		for i := range 100 {
			id := fmt.Sprintf("p.C%d#t%d", i/5, i)
			tests = append(tests, id)
			r.Tests = append(r.Tests, launcher.TestResult{Test: id, TimeMs: c.run.Milliseconds() / 200})
		}
		a := newRecorder(nil, Config{Tests: tests, Workers: 2})
		a.originals, a.stop = []*launcher.Result{r}, func() {}
		a.start = time.Now().Add(-4 * time.Minute)
		a.setBudget(5*time.Minute, "scaled to the suite")
		var cands []*candidate
		for i := range c.cands {
			t := tests[i%100]
			cands = append(cands, &candidate{test: t, failing: slices.Concat(tests[50:], []string{t}), passing: []string{t}})
		}
		a.extendBudget(cands)
		a.timer.Stop()
		if b := a.cfg.Budget; b < c.min || b > c.max || (b > 5*time.Minute) != strings.Contains(a.cov.BudgetWhy, "extended from 5m0s") {
			t.Errorf("%s: budget %s (%s), want %s..%s", c.name, b, a.cov.BudgetWhy, c.min, c.max)
		}
	}
}

// TestVictimsOfOneStateAreSearchedOnce checks that victims of one state
// that the batch checks leave open (a second polluter of the state runs
// before its cleaner in the suite, so no search sees it, and the checks,
// which take the known cleaner out, do) cost one representative search and
// a run per victim, not a search per victim, and keep their findings.
func TestVictimsOfOneStateAreSearchedOnce(t *testing.T) {
	f := &fakeSuite{rng: rand.New(rand.NewPCG(1, 2)), tests: map[string]func(map[string]int) bool{
		"h.Admin#override": set("factory", 2),
		"h.Admin#reset":    set("factory", 0),
		"h.Conn#custom":    set("factory", 1),
	}}
	var victims []string
	for i := range 24 {
		id := fmt.Sprintf("h.Class%d#get%02d", i%4, i)
		victims = append(victims, id)
		f.tests[id] = func(st map[string]int) bool { return st["factory"] == 0 }
	}
	f.order = slices.Concat([]string{"h.Admin#override", "h.Admin#reset"}, victims, []string{"h.Conn#custom"})
	res, err := Run(context.Background(), f, Config{Tests: f.order, Seed: 1, Rounds: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	// The first victim's search ran before the checks showed the second
	// polluter: it alone may lack it.
	got, lacking := map[string]bool{}, 0
	for _, fd := range res.Findings {
		both := slices.EqualFunc(fd.Polluters, [][]string{{"h.Admin#override"}, {"h.Conn#custom"}}, slices.Equal)
		if !both {
			lacking++
		}
		if fd.Kind != report.ODVictim || fd.Incomplete || !both && (lacking > 1 || !slices.EqualFunc(fd.Polluters, [][]string{{"h.Conn#custom"}}, slices.Equal)) ||
			!slices.EqualFunc(fd.Cleaners, [][]string{{"h.Admin#reset"}}, slices.Equal) {
			t.Errorf("finding %s %s polluters %v cleaners %v incomplete %v", fd.Kind, fd.Test, fd.Polluters, fd.Cleaners, fd.Incomplete)
		}
		got[fd.Test] = true
	}
	for _, v := range victims {
		if !got[v] {
			t.Errorf("missing victim %s", v)
		}
	}
	// Beyond confirmation's alone runs: one search, then per victim a short
	// order for each of the two groups, and the batches.
	n := len(victims)
	extra := res.Coverage.Generators[genConfirm] + res.Coverage.Generators[genMinimise] - DefaultConfirmations*n
	if limit := 2*n + 40; extra > limit {
		t.Errorf("%d runs beyond the alone runs of confirmation, want at most %d: %v", extra, limit, res.Coverage.Generators)
	}
	t.Logf("%d orders: %v", res.Coverage.Orders, res.Coverage.Generators)
}

// TestShareCleanersInOneBatch checks that a cleaner known for a polluter
// group and missing from many of its victims' findings joins them all
// after one batch and its control (k runs each), not k+1 runs per victim,
// and that a victim it does not clean (it fails after the cleaner too) does
// not get it: the batch leaves it to a run of its own, which fails.
func TestShareCleanersInOneBatch(t *testing.T) {
	f := &fakeSuite{rng: rand.New(rand.NewPCG(1, 2)), tests: map[string]func(map[string]int) bool{
		"h.Conn#custom": set("factory", 1),
		"h.Conn#reset":  func(st map[string]int) bool { st["factory"], st["cleaned"] = 0, 1; return true },
		"h.Odd#wants":   func(st map[string]int) bool { return st["factory"] == 0 && st["cleaned"] == 0 },
	}}
	var victims []string
	for i := range 12 {
		id := fmt.Sprintf("h.Class%d#get%02d", i%3, i)
		victims = append(victims, id)
		f.tests[id] = func(st map[string]int) bool { return st["factory"] == 0 }
	}
	f.order = slices.Concat(victims, []string{"h.Odd#wants", "h.Conn#custom", "h.Conn#reset"})
	p, c := []string{"h.Conn#custom"}, []string{"h.Conn#reset"}
	a := &cleanerSharing{recorder: newRecorder(f, Config{Tests: f.order, Workers: 2}), cleaners: map[string][][]string{orderKey(p): {c}}, deadline: time.Now().Add(time.Hour)}
	for _, v := range append(slices.Clone(victims), "h.Odd#wants") {
		a.add(&Finding{Test: v, Kind: report.ODVictim, Polluters: [][]string{p}})
	}
	if err := a.shareCleaners(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, v := range victims {
		if got := a.findings[v][report.ODVictim].Cleaners; !slices.EqualFunc(got, [][]string{c}, slices.Equal) {
			t.Errorf("%s: cleaners %v, want %v", v, got, [][]string{c})
		}
	}
	if got := a.findings["h.Odd#wants"][report.ODVictim].Cleaners; len(got) > 0 {
		t.Errorf("h.Odd#wants: cleaners %v, want none", got)
	}
	if k := DefaultConfirmations; f.runs > 2*k+1 {
		t.Errorf("%d runs for %d victims, want at most %d (a batch and its control, one run for the victim left)", f.runs, len(victims)+1, 2*k+1)
	}
}
