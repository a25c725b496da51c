package chaos

import (
	"slices"
	"strings"

	"github.com/kballard/go-shellquote"

	"github.com/flakyhq/flaky/internal/report"
	"github.com/flakyhq/flaky/surefire"
)

// ReportOptions say where findings' order files go and how their reproduce
// commands read.
type ReportOptions struct {
	OrderDir  string // where order files are written (target/flaky/orders)
	ModuleDir string // the module's directory, for flaky run-order --module
	Module    string // the module's path from the Maven root, for mvn -pl; "." or "" for the root
	// Settings are the ones the analysis ran with; their include and
	// exclude patterns and parameters are repeated in the reproduce
	// commands (their roots are run-order's default: the module's classes).
	Settings Settings
}

// ReportFindings turns findings into report findings of kind api, writing
// the order files their reproduce commands and evidence name.
func ReportFindings(findings []Finding, opts ReportOptions) ([]report.Finding, error) {
	out := make([]report.Finding, 0, len(findings))
	for _, f := range findings {
		file, err := surefire.WriteOrderFile(opts.OrderDir, f.Order)
		if err != nil {
			return nil, err
		}
		var groups []string
		for _, s := range f.Strategies {
			if !slices.Contains(groups, s.Group) {
				groups = append(groups, s.Group)
			}
		}
		mvnCommand, err := MavenCommand(opts.Module, file, f.Strategies, opts.Settings)
		if err != nil {
			return nil, err
		}
		rf := report.Finding{
			Test:              f.Test,
			Kind:              report.API,
			Strategy:          Join(f.Strategies),
			Group:             strings.Join(groups, "+"),
			Message:           f.Message,
			CallSites:         f.CallSites,
			Reproduce:         mvnCommand,
			ReproduceRunOrder: RunOrderCommand(opts.ModuleDir, file, f.Strategies, opts.Settings),
		}
		for _, e := range f.Evidence {
			re := report.Evidence{Run: evidenceRun(e), Outcome: string(e.Outcome), Message: e.Message}
			if err := re.SetOrder(e.Order, opts.OrderDir); err != nil {
				return nil, err
			}
			rf.Evidence = append(rf.Evidence, re)
		}
		out = append(out, rf)
	}
	return out, nil
}

// evidenceRun names an evidence run in a report.
func evidenceRun(e Evidence) string {
	switch {
	case len(e.Strategies) == 0:
		return "unperturbed"
	case e.Run == string(Combined):
		return "chaos combined " + Join(e.Strategies)
	}
	return "chaos " + Join(e.Strategies)
}

// RunOrderCommand is the flaky run-order command that reruns orderFile of
// the module with strategies and settings' patterns and parameters.
func RunOrderCommand(moduleDir, orderFile string, strategies []Strategy, settings Settings) string {
	args := []string{"flaky", "run-order", "--module", moduleDir, "--order", orderFile, "--chaos", Join(strategies)}
	for _, p := range settings.Include {
		args = append(args, "--chaos-include", p)
	}
	for _, p := range settings.Exclude {
		args = append(args, "--chaos-exclude", p)
	}
	for _, p := range settings.Params {
		args = append(args, "--chaos-param", p)
	}
	return shellquote.Join(args...)
}

// MavenCommand is the plain-Maven command that reruns orderFile of the
// module through the flaky profile with strategies. The profile's Surefire
// argLine ends the agent's options with token=${flaky.token}, so a
// flaky.token value starting with a comma adds options: the chaos ones.
// Relative roots resolve against the fork's working directory, the module.
func MavenCommand(module, orderFile string, strategies []Strategy, settings Settings) (string, error) {
	opts, err := settings.AgentOptions(strategies)
	if err != nil {
		return "", err
	}
	args := []string{"mvn", "-Pflaky", "test"}
	if module != "" && module != "." {
		args = append(args, "-pl", module)
	}
	token := strings.Join(append([]string{""}, opts...), ",") // an empty token, then the chaos options
	args = append(args, "-Dflaky.testFailureIgnore=false", "-Dflaky.order="+orderFile, "-Dflaky.token="+token)
	return shellquote.Join(args...), nil
}

// Stats summarises a result for the report.
func Stats(res *Result) *report.ChaosStats {
	return &report.ChaosStats{
		Mode:            string(res.Mode),
		Strategies:      IDs(res.Strategies),
		Runs:            res.Runs,
		BudgetMs:        res.Budget.Milliseconds(),
		BudgetExhausted: res.BudgetExhausted,
		FailUnperturbed: res.FailUnperturbed,
		Unconfirmed:     res.Unconfirmed,
		DurationMs:      res.Duration.Milliseconds(),
	}
}

// Merge puts an analysis' api findings and stats into rep, replacing the
// api findings and chaos stats of an earlier analysis and keeping the
// findings of other kinds (e.g. those of flaky detect). The runs and orders
// counts drop the earlier analysis' runs and add this one's.
func Merge(rep *report.Report, findings []report.Finding, stats *report.ChaosStats) {
	rep.Findings = slices.DeleteFunc(rep.Findings, func(f report.Finding) bool { return f.Kind == report.API })
	rep.Findings = append(rep.Findings, findings...)
	if old := rep.Stats.Chaos; old != nil {
		rep.Runs -= old.Runs
		rep.Stats.Orders -= old.Runs
		rep.Stats.DurationMs -= old.DurationMs
	}
	rep.Runs += stats.Runs
	rep.Stats.Orders += stats.Runs
	rep.Stats.DurationMs += stats.DurationMs
	rep.Stats.Chaos = stats
	rep.Sort()
}
