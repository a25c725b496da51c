package dataflow

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// AgentOptions are the agent options that record data dependencies.
var AgentOptions = agent.Options{Dataflow: true}

// Launcher runs orders in fresh JVMs, with agent options when asked;
// *launcher.Launcher is one.
type Launcher interface {
	Runner
	RunJobs(ctx context.Context, jobs []launcher.Job) ([]*launcher.Result, error)
}

// Config says what to analyse.
type Config struct {
	// Tests is the suite in its original order.
	Tests []string
	// Reverse adds a second reference run of the reversed order, which
	// sees the dependencies of tests that run before their writers (the
	// victims of polluters that run after them).
	Reverse bool
	// Confirmations is how many runs of a finding's failing and passing
	// orders must agree (see Findings).
	Confirmations int
	// Deadline stops refinement from starting new rounds; zero means none.
	Deadline time.Time
	// Log receives the analysis's summary line (Logf) and the details
	// (Debugf): the reference runs' dependencies and one line per
	// dependency refinement tested; the zero Logger drops them.
	Log logs.Logger
	// Fixtures names the classes with class-level fixtures (see Options).
	Fixtures map[string]bool
}

// Result is the dependency graph after refinement and the findings made
// from its manifest edges.
type Result struct {
	Graph    *Graph
	Findings []Finding
	// References are the reference runs, with their per-test dataflow
	// messages (what each test read and wrote, which classes ran for it).
	References []*launcher.Result
	// Runs counts the JVMs started: reference, refinement and confirmation runs.
	Runs, ReferenceRuns, RefinementRuns, ConfirmationRuns int
	Duration                                              time.Duration
}

// Run makes the reference runs (in parallel), refines their
// dependencies and returns the findings.
func Run(ctx context.Context, l Launcher, cfg Config) (*Result, error) {
	start := time.Now()
	log := cfg.Log
	jobs := []launcher.Job{{Order: cfg.Tests, RunOptions: launcher.RunOptions{AgentOptions: AgentOptions}}}
	names := []string{"original"}
	if cfg.Reverse && len(cfg.Tests) > 1 {
		rev := slices.Clone(cfg.Tests)
		slices.Reverse(rev)
		jobs = append(jobs, launcher.Job{Order: rev, RunOptions: launcher.RunOptions{AgentOptions: AgentOptions}})
		names = append(names, "reversed")
	}
	refs, err := l.RunJobs(ctx, jobs)
	if err != nil {
		return nil, fmt.Errorf("dataflow reference runs: %w", err)
	}
	g := &Graph{}
	for i, r := range refs {
		g.Add(names[i], r)
	}
	res := &Result{Graph: g, References: refs, ReferenceRuns: len(refs)}
	log.Debugf("dataflow: %d data dependencies in %d reference run(s)", len(g.Edges), len(refs))
	if res.RefinementRuns, err = Refine(ctx, l, g, Options{Deadline: cfg.Deadline, Log: log, Fixtures: cfg.Fixtures}); err != nil {
		return nil, err
	}
	log.Logf("dataflow: %d data dependencies in %d reference run(s): %d manifest, %d benign, %d untested after %d refinement run(s) (report.json lists them)",
		len(g.Edges), len(refs), g.Count(Manifest), g.Count(Benign), g.Count(Untested), res.RefinementRuns)
	if res.Findings, res.ConfirmationRuns, err = Findings(ctx, l, g, cfg.Confirmations, log); err != nil {
		return nil, err
	}
	res.Runs = res.ReferenceRuns + res.RefinementRuns + res.ConfirmationRuns
	res.Duration = time.Since(start)
	return res, nil
}
