package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// runOrder checks its options, the order file and the --chaos flags before
// it prepares the module.
func TestRunOrderChecksItsOptions(t *testing.T) {
	order := filepath.Join(t.TempDir(), "order.txt")
	if err := os.WriteFile(order, []byte("p.T#a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := globalOptions{Workers: 1, Stdout: io.Discard, Stderr: io.Discard}
	for _, tt := range []struct {
		name string
		o    runOrderOptions
		want string
	}{
		{"no timeout", runOrderOptions{Order: order}, "--timeout must be positive"},
		{"negative test timeout", runOrderOptions{Order: order, Timeout: launcher.DefaultRunTimeout, TestTimeout: -1}, "--test-timeout not negative"},
		{"no order file", runOrderOptions{Order: order + ".missing", Timeout: launcher.DefaultRunTimeout}, "order.txt.missing"},
		{"a chaos parameter without --chaos", runOrderOptions{Order: order, Timeout: launcher.DefaultRunTimeout,
			Chaos: runOrderChaosOptions{Params: []string{"k=v"}}}, "--chaos-param needs --chaos"},
		{"an include without --chaos", runOrderOptions{Order: order, Timeout: launcher.DefaultRunTimeout,
			Chaos: runOrderChaosOptions{Include: []string{"p.*"}}}, "--chaos-include needs --chaos"},
		{"an unknown strategy", runOrderOptions{Order: order, Timeout: launcher.DefaultRunTimeout,
			Chaos: runOrderChaosOptions{Strategies: []string{"NO_SUCH_STRATEGY"}}}, "--chaos:"},
		{"no workers", runOrderOptions{Order: order, Timeout: launcher.DefaultRunTimeout}, "--workers must be at least 1"},
	} {
		o := tt.o
		o.globalOptions = g
		if tt.name == "no workers" {
			o.Workers = 0
		}
		var es *exitStatus
		if err := runOrder(context.Background(), o); !errors.As(err, &es) || es.code != exitError || !strings.Contains(es.msg, tt.want) {
			t.Errorf("%s: %v, want a usage error with %q", tt.name, err, tt.want)
		}
	}
}

func TestWritePerturbations(t *testing.T) {
	r := &launcher.Result{
		Tests: []launcher.TestResult{{Test: "p.T#a", Outcome: launcher.Fail}, {Test: "p.T#b", Outcome: launcher.Pass}, {Test: "p.U#c", Outcome: launcher.Error}},
		Perturbations: []agent.Perturbation{
			{Test: "p.T", Strategy: "LOCALE", Class: "p.T", Method: "<clinit>", File: "T.java", Line: 3, API: "java.util.Locale#getDefault()"},
			{Test: "p.T#a", Strategy: "RANDOM_MAX", Class: "p.Dice", Method: "roll", File: "Dice.java", Line: 12, API: "java.util.Random#nextInt(int)"},
			{Test: "p.T#b", Strategy: "RANDOM_MAX", Class: "p.Dice", Method: "roll", File: "Dice.java", Line: 12, API: "java.util.Random#nextInt(int)"},
		},
	}
	var b bytes.Buffer
	if err := writePerturbations(&b, r); err != nil {
		t.Fatal(err)
	}
	want := "perturbed call sites p.T#a hit:\n" +
		"  LOCALE at p.T.<clinit>(T.java:3) calls java.util.Locale#getDefault()\n" +
		"  RANDOM_MAX at p.Dice.roll(Dice.java:12) calls java.util.Random#nextInt(int)\n"
	if b.String() != want {
		t.Errorf("printed:\n%s\nwant:\n%s", b.String(), want)
	}
}
