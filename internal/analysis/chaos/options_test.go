package chaos

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/engine/agent"
)

func TestParse(t *testing.T) {
	tests := []struct {
		names   []string
		want    string
		wantErr string
	}{
		{names: []string{"random_max"}, want: "RANDOM_MAX"},
		{names: []string{"LOCALE+RANDOM_MAX", "locale"}, want: "RANDOM_MAX+LOCALE"},
		{names: []string{"TIME"}, want: "TIME_INCREMENT+TIME_ROUNDING+TIME_SLOW"},
		{names: []string{"time_fast", "TIME_INCREMENT"}, want: "TIME_INCREMENT"},
		{names: []string{"sleep", "ITERATION_ORDER"}, want: "SLEEP_INCREASE+SLEEP_DECREASE+ITERATION_ORDER"},
		{names: []string{"date", "TIMEZONE"}, want: "DATE_FIXED+DATE_YEAR_END+DATE_DST+TIMEZONE"},
		{names: []string{"ASYNC"}, want: "ASYNC_DELAY"},
		{names: []string{"RANDOM_MIN"}, wantErr: `unknown strategy "RANDOM_MIN"`},
		{names: nil, want: ""},
	}
	for _, tt := range tests {
		got, err := Parse(tt.names...)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Parse(%q) error = %v, want %q", tt.names, err, tt.wantErr)
			}
			continue
		}
		if err != nil || Join(got) != tt.want {
			t.Errorf("Parse(%q) = %s, %v; want %s", tt.names, Join(got), err, tt.want)
		}
	}
	if got := Join(DefaultCombined); got != "RANDOM_MAX+TIME_INCREMENT+DATE_FIXED+LOCALE+SLEEP_INCREASE+CONCURRENCY_SHRINK+NETWORK_DELAY+ITERATION_ORDER" {
		t.Errorf("DefaultCombined = %s", got)
	}
	if got := strings.Join(Groups(), " "); got != "RANDOM TIME DATE LOCALE SLEEP CONCURRENCY NETWORK ASYNC ITERATION_ORDER" {
		t.Errorf("Groups() = %s", got)
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": Combined, "combined": Combined, " Single ": Single} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseMode("both"); err == nil {
		t.Error("ParseMode(both) accepted")
	}
}

func TestAgentOptions(t *testing.T) {
	tests := []struct {
		name       string
		settings   Settings
		strategies []Strategy
		want       []string
		wantErr    string
	}{
		{name: "no strategies, no options", settings: Settings{Roots: []string{"target/classes"}}},
		{
			name:       "roots and parameters",
			settings:   Settings{Roots: []string{"target/classes", "target/test-classes"}, Params: []string{"time.increment=3000", "chaos.seed=7"}},
			strategies: mustLookup("RANDOM_MAX", "TIME_INCREMENT"),
			want:       []string{"chaos=RANDOM_MAX+TIME_INCREMENT", "chaos.roots=target/classes+target/test-classes", "chaos.time.increment=3000", "chaos.seed=7"},
		},
		{
			name:       "TIME_FAST's factor is TIME_INCREMENT's rate",
			settings:   Settings{Params: []string{"time.fast=2.5", "seed=1", "chaos.time.fast=x"}},
			strategies: mustLookup("TIME_FAST"),
			want:       []string{"chaos=TIME_INCREMENT", "chaos.time.increment=1500", "chaos.seed=1", "chaos.time.fast=x"},
		},
		{
			name:       "the sleep limit is a parameter like the random limit",
			settings:   Settings{Params: []string{"sleep.limit=0", "chaos.random.limit=5"}},
			strategies: mustLookup("SLEEP_INCREASE", "RANDOM_MAX"),
			want:       []string{"chaos=RANDOM_MAX+SLEEP_INCREASE", "chaos.sleep.limit=0", "chaos.random.limit=5"},
		},
		{
			name:       "patterns",
			settings:   Settings{Include: []string{"com.acme.**"}, Exclude: []string{"com.acme.gen.*", "com.acme.Main"}},
			strategies: mustLookup("LOCALE"),
			want:       []string{"chaos=LOCALE", "chaos.include=com.acme.**", "chaos.exclude=com.acme.gen.*+com.acme.Main"},
		},
		{
			name:       "separators in roots are escaped",
			settings:   Settings{Roots: []string{"/x/c++/a,b=c%d/classes"}, Include: []string{"a,b"}},
			strategies: mustLookup("LOCALE"),
			want:       []string{"chaos=LOCALE", "chaos.roots=/x/c%2B%2B/a%2Cb%3Dc%25d/classes", "chaos.include=a%2Cb"},
		},
		{name: "empty root", settings: Settings{Roots: []string{""}}, strategies: mustLookup("LOCALE"), wantErr: "empty"},
		{name: "parameter without value", settings: Settings{Params: []string{"seed"}}, strategies: mustLookup("LOCALE"), wantErr: "want key=value"},
		{name: "reserved parameter", settings: Settings{Params: []string{"roots=/x"}}, strategies: mustLookup("LOCALE"), wantErr: "set by flaky itself"},
		{name: "comma in a parameter", settings: Settings{Params: []string{"locale=tr,TR"}}, strategies: mustLookup("LOCALE"), wantErr: "commas"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.settings.AgentOptions(tt.strategies)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(encoded(got), tt.want) {
				t.Errorf("AgentOptions = %q, %v; want %q", encoded(got), err, tt.want)
			}
		})
	}
}

func TestRootsFor(t *testing.T) {
	got := RootsFor("/w/mod", "/w/mod/target/classes", "", "/w/mod/target/test-classes", "/w/other/classes")
	want := []string{"target/classes", "target/test-classes", "/w/other/classes"}
	if !slices.Equal(got, want) {
		t.Errorf("RootsFor = %q, want %q", got, want)
	}
	if got := RootsFor("", "/abs/classes"); !slices.Equal(got, []string{"/abs/classes"}) {
		t.Errorf("RootsFor without a directory = %q", got)
	}
}

func TestRunRejects(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{name: "two strategies of a group combined", cfg: Config{Tests: []string{"p.A#a"}, Mode: Combined, Strategies: mustLookup("TIME_INCREMENT", "TIME_SLOW")}, wantErr: "one strategy per group"},
		{name: "no tests", cfg: Config{Mode: Single}, wantErr: "no tests"},
		{name: "no strategies", cfg: Config{Tests: []string{"p.A#a"}, Mode: Single, Strategies: []Strategy{}}, wantErr: "no strategies"},
		{name: "bad settings", cfg: Config{Tests: []string{"p.A#a"}, Mode: Single, Settings: Settings{Params: []string{"x"}}}, wantErr: "want key=value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &fakeRunner{suite: suite}
			_, err := Run(context.Background(), r, tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v, want %q", err, tt.wantErr)
			}
			if len(r.jobs) != 0 {
				t.Errorf("ran %d jobs before rejecting", len(r.jobs))
			}
		})
	}
}

// encoded returns o's agent options one by one, as the agent reads them.
func encoded(o agent.Options) []string {
	s, err := o.Encode()
	if err != nil {
		panic(err)
	}
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
