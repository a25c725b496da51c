package agent_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/engine/agent"
)

// TestChaosLimits checks how the typed limits of ChaosOptions are written:
// left out at 0 (the agent's default), overriding a parameter of the same
// key, and a parameter's 0 (no limit) passed as it is.
func TestChaosLimits(t *testing.T) {
	tests := []struct {
		name string
		opts agent.ChaosOptions
		want []string // the chaos.*.limit pairs, in order
	}{
		{"defaults", agent.ChaosOptions{}, nil},
		{"sleep limit", agent.ChaosOptions{SleepLimit: 5}, []string{"chaos.sleep.limit=5"}},
		{"random limit", agent.ChaosOptions{RandomLimit: 2}, []string{"chaos.random.limit=2"}},
		{"both", agent.ChaosOptions{RandomLimit: 2, SleepLimit: 1}, []string{"chaos.random.limit=2", "chaos.sleep.limit=1"}},
		{"a parameter's 0 lengthens every sleep", agent.ChaosOptions{Params: []agent.Param{{Key: "chaos.sleep.limit", Value: "0"}}}, []string{"chaos.sleep.limit=0"}},
		{"the field overrides the parameter", agent.ChaosOptions{SleepLimit: 7, Params: []agent.Param{{Key: "chaos.sleep.limit", Value: "0"}}}, []string{"chaos.sleep.limit=7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Strategies = []string{"SLEEP_INCREASE", "RANDOM_MAX"}
			enc, err := agent.Options{Chaos: tt.opts}.Encode()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, kv := range strings.Split(enc, ",") {
				if k, _, _ := strings.Cut(kv, "="); strings.HasSuffix(k, ".limit") {
					got = append(got, kv)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Encode() = %q: limits %q, want %q", enc, got, tt.want)
			}
		})
	}
}
