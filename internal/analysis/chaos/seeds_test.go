package chaos

import (
	"slices"
	"strings"
	"testing"
)

func TestSeeds(t *testing.T) {
	iteration := mustLookup("RANDOM_MAX", "ITERATION_ORDER")
	tests := []struct {
		name       string
		strategies []Strategy
		seeds      int
		params     []string
		want       []int64
	}{
		{name: "default: two more after the agent's", strategies: iteration, want: []int64{DefaultSeed + 1, DefaultSeed + 2}},
		{name: "counted from the seed parameter", strategies: iteration, seeds: 4, params: []string{"chaos.seed=7", "seed=10"}, want: []int64{11, 12, 13}},
		{name: "one seed only", strategies: iteration, seeds: 1},
		{name: "without ITERATION_ORDER", strategies: mustLookup("RANDOM_MAX"), seeds: 3},
		{name: "a seed that does not parse is the agent's to reject", strategies: iteration, seeds: 2, params: []string{"seed=x"}, want: []int64{DefaultSeed + 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Config{Strategies: tt.strategies, Seeds: tt.seeds, Settings: Settings{Params: tt.params}}
			if got := c.seeds(); !slices.Equal(got, tt.want) {
				t.Errorf("seeds() = %v, want %v", got, tt.want)
			}
		})
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
