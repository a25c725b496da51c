package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/flakyhq/flaky/internal/analysis/chaos"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/mvn"
)

// benchChaos measures what API perturbation costs: it runs the benchmark
// tests of a fixture unperturbed, with each strategy and with every default
// strategy in one JVM (ITERATION_ORDER among them: the agent's cost of them
// all at once, though the analysis runs it in a pass of its own), runs times each, one JVM
// at a time, and prints the median times and their ratio to unperturbed.
// The tests are the fixture's expected.json fixture.bench list (tests that
// call the APIs often), else its fixture.stable list.
func benchChaos(name string, runs int, jars agent.Jars) error {
	dir, err := fixtureCopy(name)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	order, err := benchTests(dir)
	if err != nil {
		return err
	}
	ctx := context.Background()
	setup, err := mvn.Prepare(ctx, dir, mvn.PrepareOptions{Log: io.Discard})
	if err != nil {
		return err
	}
	env := setup.LaunchEnv("java")
	l, err := launcher.New(env, jars, launcher.Options{Workers: 1})
	if err != nil {
		return err
	}
	defer l.Close()
	settings := chaos.Settings{Roots: chaos.RootsFor(setup.ModuleDir, setup.ClassesDir, setup.TestClassesDir)}

	type config struct {
		name       string
		strategies []chaos.Strategy
		params     []string
	}
	configs := []config{{name: "unperturbed"}}
	for _, s := range chaos.Strategies {
		configs = append(configs, config{name: s.ID, strategies: []chaos.Strategy{s}})
		if s.ID == "ITERATION_ORDER" {
			// The JDK's own hash iteration rewritten for every caller.
			configs = append(configs, config{name: "ITERATION_ORDER all", strategies: []chaos.Strategy{s}, params: []string{"iteration.scope=all"}})
		}
	}
	configs = append(configs, config{name: "combined", strategies: chaos.DefaultCombined})

	type measured struct {
		opts          agent.Options
		jvm, tests    []time.Duration
		sites, failed int
	}
	m := make([]measured, len(configs))
	for i, c := range configs {
		s := settings
		s.Params = c.params
		if m[i].opts, err = s.AgentOptions(c.strategies); err != nil {
			return err
		}
	}
	// Round-robin over the configurations, so a change in machine load
	// shifts every row alike.
	for range runs {
		for i, c := range configs {
			r, err := l.RunWith(ctx, order, launcher.RunOptions{AgentOptions: m[i].opts})
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			var inTests time.Duration
			for _, t := range r.Tests {
				inTests += time.Duration(t.TimeMs) * time.Millisecond
				if t.Outcome != launcher.Pass && t.Outcome != launcher.Skipped {
					m[i].failed++
				}
			}
			m[i].jvm, m[i].tests = append(m[i].jvm, r.Duration), append(m[i].tests, inTests)
			m[i].sites = len(r.Perturbations)
		}
	}
	fmt.Printf("\nchaos overhead: %s, %d tests, median of %d runs per row, one JVM at a time\n", name, len(order), runs)
	fmt.Printf("%-20s %10s %10s %9s %9s %6s %7s\n", "strategies", "jvm", "tests", "jvm x", "tests x", "sites", "failed")
	baseJVM, baseTests := median(m[0].jvm), median(m[0].tests)
	for i, c := range configs {
		mj, mt := median(m[i].jvm), median(m[i].tests)
		fmt.Printf("%-20s %10s %10s %8.2fx %8.2fx %6d %7d\n", c.name, mj.Round(time.Millisecond), mt.Round(time.Millisecond),
			ratio(mj, baseJVM), ratio(mt, baseTests), m[i].sites, m[i].failed)
	}
	fmt.Println("jvm = whole JVM (start, instrumentation, tests); tests = time inside the tests; x = ratio to unperturbed;")
	fmt.Println("sites = perturbed call sites reported per run; failed = test failures over all runs (expected for latent tests)")
	return nil
}

// benchTests reads the tests to benchmark from the fixture's expected.json.
func benchTests(dir string) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		return nil, err
	}
	var e struct {
		Fixture struct {
			Bench  []string `json:"bench"`
			Stable []string `json:"stable"`
		} `json:"fixture"`
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("parsing expected.json: %w", err)
	}
	if len(e.Fixture.Bench) > 0 {
		return e.Fixture.Bench, nil
	}
	if len(e.Fixture.Stable) == 0 {
		return nil, fmt.Errorf("%s/expected.json lists neither fixture.bench nor fixture.stable tests", dir)
	}
	return e.Fixture.Stable, nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ratio(d, base time.Duration) float64 {
	if base <= 0 {
		return 0
	}
	return float64(d) / float64(base)
}
