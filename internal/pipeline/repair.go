package pipeline

import (
	"context"

	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/fix/repair"
)

// runRepair proposes a validated patch for each finding of res.Report (or
// only opts.Repair.Test's) and records on each finding its patch or why it
// has none; applying the patches is the caller's choice.
func runRepair(ctx context.Context, m Module, opts Options, log logs.Logger, res *Result) error {
	r := opts.Repair
	out, err := repair.Run(ctx, repair.Config{
		Module:          m.Repair,
		Report:          res.Report,
		OutDir:          flakydir.Dir(m.FlakyDir).Repair(),
		WorkDir:         flakydir.Dir(m.FlakyDir).RepairWork(),
		Test:            r.Test,
		Workers:         opts.Workers,
		AllowReflection: r.AllowReflection,
		LLM:             r.LLM,
		NoLLMWhy:        r.NoLLMWhy,
		TestTimeout:     r.TestTimeout,
		Log:             StageRepair.of(log),
		Progress:        opts.Progress,
	})
	if err != nil {
		return err
	}
	res.Repair = out
	for i, f := range res.Report.Findings {
		if p, ok := out.Repairs[f.Key()]; ok {
			res.Report.Findings[i].Repair = p
		}
	}
	return nil
}
