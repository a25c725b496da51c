package od

import (
	"fmt"
	"math"
	"slices"

	"github.com/kballard/go-shellquote"

	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/maven/surefire"
	"github.com/flakyhq/flaky/internal/report"
)

// ReportOptions says where findings' order files go and how their
// reproduce commands read.
type ReportOptions struct {
	OrderDir  string // where order files are written (target/flaky/orders)
	ModuleDir string // the module's directory, for flaky run-order
	Module    string // the module's path from the Maven root; "." or "" for the root itself
}

// ReportFindings turns findings into report findings, writing the order
// files their evidence and reproduce commands name.
func ReportFindings(findings []Finding, opts ReportOptions) ([]report.Finding, error) {
	out := make([]report.Finding, 0, len(findings))
	for _, f := range findings {
		order := reproduceOrder(f)
		file, err := surefire.WriteOrderFile(opts.OrderDir, order)
		if err != nil {
			return nil, err
		}
		rf := report.Finding{
			Test:              f.Test,
			Kind:              f.Kind,
			Message:           f.Message,
			Polluters:         f.Polluters,
			Setters:           f.Setters,
			Cleaners:          f.Cleaners,
			FailingOrder:      f.FailingOrder,
			PassingOrder:      f.PassingOrder,
			Reproduce:         mvn.Reproduce(opts.Module, file, order...),
			ReproduceRunOrder: shellquote.Join("flaky", "run-order", "--module", opts.ModuleDir, "--order", file),
		}
		switch {
		case f.Incomplete && len(f.Polluters)+len(f.Setters) == 0:
			rf.Note = "confirmed; the budget ended before its minimisation: its " + groupsWord(f.Kind) + " are among the tests before it in its failing order"
		case f.Incomplete:
			rf.Note = "the budget ended before the minimisation did: the groups may be incomplete"
		}
		for _, o := range f.Evidence {
			e := report.Evidence{Run: fmt.Sprintf("%s: %d run(s)", o.Label, o.Pass+o.Fail), Outcome: outcomeWord(o), Message: o.Message}
			if err := e.SetOrder(o.Order, opts.OrderDir); err != nil {
				return nil, err
			}
			rf.Evidence = append(rf.Evidence, e)
		}
		out = append(out, rf)
	}
	return out, nil
}

// groupsWord names the groups minimisation finds for a finding's kind.
func groupsWord(k report.Kind) string {
	if k == report.ODBrittle {
		return "state-setters"
	}
	return "polluters"
}

// outcomeWord says what an observation's runs gave, in launcher's outcome
// vocabulary: "pass", "error", or "pass 2, error 1".
func outcomeWord(o Observation) string {
	switch {
	case o.Pass > 0 && o.Fail > 0:
		return fmt.Sprintf("%s %d, %s %d", launcher.Pass, o.Pass, o.Failure, o.Fail)
	case o.Fail > 0:
		return string(o.Failure)
	}
	return string(launcher.Pass)
}

// reproduceOrder is the order a finding's reproduce commands run: its
// failing order; for a NOD test, which fails only sometimes, with the test
// repeated (report.NODOrder).
func reproduceOrder(f Finding) []string {
	if f.Kind != report.NOD {
		return slices.Clone(f.FailingOrder)
	}
	return report.NODOrder(f.FailingOrder, f.Test, f.Fails, f.Runs)
}

// Report converts the coverage to its report form.
func (c Coverage) Report() *report.Coverage {
	return &report.Coverage{
		Seed: c.Seed, Orders: c.Orders, Generators: c.Generators, Rounds: c.Rounds, RoundsPlanned: c.RoundsPlanned,
		Pairs: c.Pairs, PairsCovered: c.PairsCovered, TestsAlone: c.TestsAlone,
		BudgetMs: c.Budget.Milliseconds(), BudgetWhy: c.BudgetWhy, BudgetExhausted: c.BudgetExhausted,
		Unconfirmed: c.Unconfirmed, Unminimised: c.Unminimised, DurationMs: c.Duration.Milliseconds(), Serial: c.Serial,
		Workers: c.Workers, WorkersWhy: c.WorkersWhy, JVMMs: c.JVMTime.Milliseconds(), JVMCPUMs: c.JVMCPU.Milliseconds(),
		ParallelEfficiency: math.Round(c.Efficiency*100) / 100, WarmOrders: c.WarmOrders, WarmJVMs: c.WarmJVMs,
		JVMs: c.JVMs, PeakJVMs: c.PeakJVMs, NeverRan: c.NeverRan,
	}
}
