package chaos

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestSeeds(t *testing.T) {
	iteration := mustLookup("RANDOM_MAX", "ITERATION_ORDER")
	tests := []struct {
		name       string
		strategies []Strategy
		own        bool // ITERATION_ORDER runs in its own pass
		seeds      int
		params     []string
		want       []string
	}{
		{name: "default: two more after the agent's", strategies: iteration, want: []string{"24302", "24303"}},
		{name: "counted from the seed parameter", strategies: iteration, seeds: 4, params: []string{"chaos.seed=7", "seed=10"}, want: []string{"11", "12", "13"}},
		{name: "one seed only", strategies: iteration, seeds: 1},
		{name: "without ITERATION_ORDER", strategies: mustLookup("RANDOM_MAX"), seeds: 3},
		{name: "a seed that does not parse is the agent's to reject", strategies: iteration, seeds: 2, params: []string{"seed=x"}, want: []string{"24302"}},
		{name: "its own pass first, under the settings' seed", strategies: mustLookup("RANDOM_MAX"), own: true, want: []string{"", "24302", "24303"}},
		{name: "its own pass only", strategies: mustLookup("RANDOM_MAX"), own: true, seeds: 1, params: []string{"seed=9"}, want: []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Config{Strategies: tt.strategies, Seeds: tt.seeds, Settings: Settings{Params: tt.params}, iterationPass: tt.own}
			if got := c.seeds(); !slices.Equal(got, tt.want) {
				t.Errorf("seeds() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestOwnPass(t *testing.T) {
	tests := []struct {
		mode     Mode
		set      string
		want     string
		wantPass bool
	}{
		{mode: Combined, set: Join(DefaultCombined), want: "RANDOM_MAX+TIME_INCREMENT+DATE_FIXED+LOCALE+SLEEP_INCREASE+CONCURRENCY_SHRINK+NETWORK_DELAY", wantPass: true},
		{mode: Combined, set: "LOCALE+ITERATION_ORDER", want: "LOCALE", wantPass: true},
		{mode: Combined, set: "ITERATION_ORDER", want: "ITERATION_ORDER"},
		{mode: Combined, set: "RANDOM_MAX+LOCALE", want: "RANDOM_MAX+LOCALE"},
		{mode: Single, set: "LOCALE+ITERATION_ORDER", want: "LOCALE+ITERATION_ORDER"},
	}
	for _, tt := range tests {
		set := mustLookup(strings.Split(tt.set, "+")...)
		got, pass := ownPass(tt.mode, set)
		if Join(got) != tt.want || pass != tt.wantPass {
			t.Errorf("ownPass(%s, %s) = %s, %v; want %s, %v", tt.mode, tt.set, Join(got), pass, tt.want, tt.wantPass)
		}
		if Join(set) != tt.set {
			t.Errorf("ownPass changed its argument to %s", Join(set))
		}
	}
}

func TestWithSeed(t *testing.T) {
	tests := []struct {
		params []string
		seed   string
		want   []string
	}{
		{params: []string{"time.increment=3000"}, seed: "", want: []string{"time.increment=3000"}},
		{params: []string{"chaos.seed=7", "locale=de_DE", " seed = 8"}, seed: "9", want: []string{"locale=de_DE", "seed=9"}},
		{params: nil, seed: "24302", want: []string{"seed=24302"}},
	}
	for _, tt := range tests {
		in := Settings{Params: slices.Clone(tt.params)}
		got := WithSeed(in, tt.seed)
		if !slices.Equal(got.Params, tt.want) {
			t.Errorf("WithSeed(%q, %q) = %q, want %q", tt.params, tt.seed, got.Params, tt.want)
		}
		if !slices.Equal(in.Params, tt.params) {
			t.Errorf("WithSeed changed its argument's params to %q", in.Params)
		}
	}
}

// TestMergeSeed checks that a run under another seed adds only the tests
// not found before, marked with its seed (which the reproduce commands
// pass), and its coverage under its own label.
func TestMergeSeed(t *testing.T) {
	io := mustLookup("ITERATION_ORDER")
	found := Finding{Test: "T#first", Strategies: io, Order: []string{"T#first"}}
	a := &analysis{res: &Result{Findings: []Finding{found}, FailUnperturbed: []string{"T#nod"}, Runs: 3}}
	later := &Result{
		Findings: []Finding{
			{Test: "T#first", Strategies: io, Order: []string{"T#first"}},
			{Test: "T#later", Strategies: io, Order: []string{"T#later"}, Evidence: []Evidence{{Run: "ITERATION_ORDER", Strategies: io}, {Run: "unperturbed"}}},
			{Test: "T#nod", Strategies: io, Order: []string{"T#nod"}},
		},
		Coverage: []Coverage{{Run: "ITERATION_ORDER", Strategies: io}},
		Runs:     2,
		// Its control runs showed a new test flaky unperturbed; the known one again.
		NOD:             []NOD{{Test: "T#nod", Runs: 5, Failures: 1}, {Test: "T#flaky", Runs: 5, Failures: 2}},
		FailUnperturbed: []string{"T#nod", "T#flaky"},
	}
	a.mergeSeed(later, "24302")
	var tests []string
	for _, f := range a.res.Findings {
		tests = append(tests, f.Test+"@"+f.Seed)
	}
	if want := []string{"T#first@", "T#later@24302"}; !slices.Equal(tests, want) {
		t.Fatalf("findings %q, want %q", tests, want)
	}
	f := a.res.Findings[1]
	if !strings.Contains(f.Message, "chaos.seed=24302") || f.Evidence[0].Detail != "chaos.seed=24302" || f.Evidence[1].Detail != "" {
		t.Errorf("message %q, evidence %+v: want the seed noted on the perturbed run only", f.Message, f.Evidence)
	}
	if len(a.res.NOD) != 1 || a.res.NOD[0].Test != "T#flaky" || !slices.Equal(a.res.FailUnperturbed, []string{"T#nod", "T#flaky"}) {
		t.Errorf("nod %v, fail unperturbed %q: want the new flaky test added once", a.res.NOD, a.res.FailUnperturbed)
	}
	if a.res.Runs != 5 || len(a.res.Coverage) != 1 || a.res.Coverage[0].Run != "ITERATION_ORDER seed=24302" {
		t.Errorf("runs %d, coverage %+v", a.res.Runs, a.res.Coverage)
	}
	rf, err := ReportFindings(a.res.Findings, ReportOptions{OrderDir: t.TempDir(), ModuleDir: "m", Settings: Settings{Params: []string{"seed=5"}}})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"seed=5", "seed=24302"} {
		for _, cmd := range []string{rf[i].Reproduce, rf[i].ReproduceRunOrder} {
			if !strings.Contains(cmd, want) || strings.Count(cmd, "seed=") != 1 {
				t.Errorf("%s: reproduce %q, want %s only", rf[i].Test, cmd, want)
			}
		}
	}
}

// TestIterationOrderOwnPass runs the default combined set on a suite with
// tests that depend on an iteration order: ITERATION_ORDER is in no
// combined run but runs alone over the whole suite in its own pass and
// under the two further seeds, the three runs on the workers the combined
// run leaves free while it goes on (one after the other in the runner's
// jobs, before the combined run ended, once the control and first-round
// runs of its failure were out),
// and each failure is found by the pass that makes it: the clock test by
// the combined run (attributed to TIME_INCREMENT, though it walks a map
// too), the text test by the own pass (and judged there only, though every
// seed fails it), the third-seed test under its seed.
func TestIterationOrderOwnPass(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mapSite := siteAt{"q.Catalog", "render", 14, "java.util.HashMap#entrySet()"}
		idSuite := map[string]behaviour{
			"q.CatalogTest#text":  {sites: map[string][]siteAt{"ITERATION_ORDER": {mapSite}}, fails: anyOf("ITERATION_ORDER")},
			"q.CatalogTest#third": {sites: map[string][]siteAt{"ITERATION_ORDER": {mapSite}}, fails: allOf("ITERATION_ORDER", "chaos.seed=24303")},
			"q.ClockTest#window":  {sites: map[string][]siteAt{"TIME": {clockSite}, "ITERATION_ORDER": {mapSite}}, fails: anyOf("TIME_INCREMENT")},
			"q.StableTest#a":      {sites: map[string][]siteAt{"ITERATION_ORDER": {mapSite}, "RANDOM": {diceSite}}},
		}
		order := []string{"q.CatalogTest#text", "q.CatalogTest#third", "q.ClockTest#window", "q.StableTest#a"}
		r := &fakeRunner{suite: idSuite, delay: time.Second, slowCombined: 20 * time.Second}
		res, err := Run(context.Background(), r, Config{Tests: order, Mode: Combined, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range res.Findings {
			got = append(got, f.Test+" "+Join(f.Strategies)+" seed="+f.Seed)
		}
		slices.Sort(got)
		want := []string{"q.CatalogTest#text ITERATION_ORDER seed=", "q.CatalogTest#third ITERATION_ORDER seed=24303", "q.ClockTest#window TIME_INCREMENT seed="}
		if !slices.Equal(got, want) || len(res.Suspected) > 0 {
			t.Errorf("findings %q, suspected %v; want %q", got, res.Suspected, want)
		}
		var passes []int
		for i, j := range r.jobs {
			opts := encoded(j.AgentOptions)
			if len(opts) == 0 || !strings.Contains(opts[0], "ITERATION_ORDER") {
				continue
			}
			if opts[0] != "chaos=ITERATION_ORDER" {
				t.Errorf("job %d combines ITERATION_ORDER with others: %q", i, opts)
			}
			if len(j.Order) == len(order) {
				passes = append(passes, i)
			}
		}
		if len(passes) != 3 || passes[2]-passes[0] != 2 || passes[2] >= r.startedBeforeEnd {
			t.Errorf("ITERATION_ORDER's runs of the suite are jobs %v of %d, want three in a row, started while the combined run went on (before job %d)", passes, len(r.jobs), r.startedBeforeEnd)
		}
		var runs []string
		for _, c := range res.Coverage {
			if !c.Attribution {
				runs = append(runs, c.Run)
			}
		}
		if w := []string{"combined", "ITERATION_ORDER", "ITERATION_ORDER seed=24302", "ITERATION_ORDER seed=24303"}; !slices.Equal(runs, w) {
			t.Errorf("runs of the suite %q, want %q", runs, w)
		}
		// The text test fails under every seed: only the own pass judges it.
		controls := 0
		for _, j := range r.jobs {
			if len(encoded(j.AgentOptions)) == 0 && len(j.Order) < len(order) && slices.Contains(j.Order, "q.CatalogTest#text") {
				controls++
			}
		}
		if controls != ControlRuns {
			t.Errorf("%d control runs of q.CatalogTest#text, want %d (judged once)", controls, ControlRuns)
		}
		if !slices.ContainsFunc(res.Strategies, isIterationOrder) {
			t.Errorf("strategies %s lack ITERATION_ORDER", Join(res.Strategies))
		}
	})
}
