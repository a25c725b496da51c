package chaos

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kballard/go-shellquote"

	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/maven/surefire"
	"github.com/flakyhq/flaky/internal/report"
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
		settings := WithSeed(opts.Settings, f.Seed)
		mvnCommand, err := MavenCommand(opts.Module, file, f.Order, f.Strategies, settings)
		if err != nil {
			return nil, err
		}
		rf := report.Finding{
			Test:              f.Test,
			Kind:              report.API,
			Strategy:          Join(f.Strategies),
			Group:             strings.Join(groups, "+"),
			Strategies:        IDs(f.FailsWith),
			Robust:            f.Robust,
			Message:           noBlankFirstLine(f.Message),
			CallSites:         f.CallSites,
			Reproduce:         mvnCommand,
			ReproduceRunOrder: RunOrderCommand(opts.ModuleDir, file, f.Strategies, settings),
		}
		if rf.Evidence, err = reportEvidence(f.Evidence, opts.OrderDir); err != nil {
			return nil, err
		}
		out = append(out, rf)
	}
	return out, nil
}

// ReportNOD turns the tests flaky without perturbation into report findings
// of kind nod, writing the order files of their reproduce commands: the
// order of an unperturbed run they failed in, unperturbed, with the test
// repeated as report.NODOrder says, since it fails only now and then.
func ReportNOD(nods []NOD, opts ReportOptions) ([]report.Finding, error) {
	out := make([]report.Finding, 0, len(nods))
	for _, n := range nods {
		order := report.NODOrder(n.Order, n.Test, n.Failures, n.Runs)
		file, err := surefire.WriteOrderFile(opts.OrderDir, order)
		if err != nil {
			return nil, err
		}
		runOrder := shellquote.Join("flaky", "run-order", "--module", opts.ModuleDir, "--order", file)
		rf := report.Finding{
			Test:              n.Test,
			Kind:              report.NOD,
			Message:           noBlankFirstLine(n.Message) + "\n(" + n.String()[len(n.Test)+1:] + ": flaky without perturbation)",
			Reproduce:         mvn.Reproduce(opts.Module, file, order...),
			ReproduceRunOrder: runOrder,
		}
		if rf.Evidence, err = reportEvidence(n.Evidence, opts.OrderDir); err != nil {
			return nil, err
		}
		out = append(out, rf)
	}
	return out, nil
}

// reportEvidence turns evidence into the report's, writing the order files
// it names into orderDir.
func reportEvidence(evidence []Evidence, orderDir string) ([]report.Evidence, error) {
	var out []report.Evidence
	for _, e := range evidence {
		re := report.Evidence{Run: evidenceRun(e), Outcome: string(e.Outcome), Message: noBlankFirstLine(e.Message)}
		for _, r := range e.Resumed {
			re.JVMs = append(re.JVMs, r.String())
		}
		if err := re.SetOrder(e.Order, orderDir); err != nil {
			return nil, err
		}
		out = append(out, re)
	}
	return out, nil
}

// stringsOf formats each of xs.
func stringsOf[T fmt.Stringer](xs []T) []string {
	var out []string
	for _, x := range xs {
		out = append(out, x.String())
	}
	return out
}

// noBlankFirstLine drops the blank lines a message starts with (Hamcrest's
// "\nExpected: ...") so that its first line says something.
func noBlankFirstLine(msg string) string {
	for {
		line, rest, ok := strings.Cut(msg, "\n")
		if !ok || strings.TrimSpace(line) != "" {
			return msg
		}
		msg = rest
	}
}

// evidenceRun names an evidence run in a report.
func evidenceRun(e Evidence) string {
	run := "chaos " + Join(e.Strategies)
	switch {
	case len(e.Strategies) == 0:
		run = "unperturbed"
	case e.Run == string(Combined):
		run = "chaos combined " + Join(e.Strategies)
	}
	if e.Detail != "" {
		run += " (" + e.Detail + ")"
	}
	return run
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
// module, whose tests are order, through the flaky profile with
// strategies. A module's command also builds the sibling modules it
// depends on (-am) and keeps their tests from running (-Dtest names the
// order's classes). The profile's Surefire argLine ends the agent's
// options with token=${flaky.token}, so a flaky.token value starting with
// a comma adds options: the chaos ones. Relative roots resolve against the
// fork's working directory, the module.
func MavenCommand(module, orderFile string, order []string, strategies []Strategy, settings Settings) (string, error) {
	opts, err := settings.AgentOptions(strategies)
	if err != nil {
		return "", err
	}
	cmd, err := shellquote.Split(mvn.Reproduce(module, orderFile, order...))
	if err != nil {
		return "", err
	}
	enc, err := opts.Encode()
	if err != nil {
		return "", err
	}
	token := "" // an empty token, then the chaos options
	if enc != "" {
		token = "," + enc
	}
	return shellquote.Join(append(cmd, "-Dflaky.token="+token)...), nil
}

// Stats summarises a result for the report.
func Stats(res *Result) *report.ChaosStats {
	st := &report.ChaosStats{
		Mode:            string(res.Mode),
		Strategies:      IDs(res.Strategies),
		Runs:            res.Runs,
		BudgetMs:        res.Budget.Milliseconds(),
		BudgetExhausted: res.BudgetExhausted,
		BudgetWhy:       res.BudgetWhy,
		FailUnperturbed: res.FailUnperturbed,
		Unconfirmed:     res.Unconfirmed,
		Failing:         stringsOf(res.Failing),
		DurationMs:      res.Duration.Milliseconds(),
		Tests:           res.Tests,
		Skipped:         IDs(res.Skipped),
		Machinery:       res.Machinery,
	}
	if res.Interrupted {
		st.Interrupted = res.Cut
	}
	for _, sus := range res.Suspected {
		st.Suspected = append(st.Suspected, sus.String())
	}
	for _, n := range res.NOD {
		st.NOD = append(st.NOD, report.ChaosNOD{Test: n.Test, Runs: n.Runs, Failures: n.Failures, PerturbedRuns: n.PerturbedRuns, PerturbedFailures: n.PerturbedFailures})
	}
	if len(st.Skipped) == 0 {
		st.Skipped = nil
	}
	type group struct {
		stats           report.StrategyStats
		failing, notRun map[string]bool
	}
	var groups []*group
	byName := map[string]*group{}
	for _, c := range res.Coverage {
		s := report.StrategyStats{Name: c.Run, Tests: c.Ran, NotRun: c.NotRun, Failures: c.Failed, Findings: c.Findings, JVMs: c.JVMs, DurationMs: c.Duration.Milliseconds()}
		if c.Run == string(Combined) {
			st.PerStrategy = append(st.PerStrategy, s)
			continue
		}
		s.Group = c.Strategies[0].Group
		st.PerStrategy = append(st.PerStrategy, s)
		g := byName[s.Group]
		if g == nil {
			g = &group{stats: report.StrategyStats{Name: s.Group}, failing: map[string]bool{}, notRun: map[string]bool{}}
			byName[s.Group] = g
			groups = append(groups, g)
			for _, t := range c.NotRunTests {
				g.notRun[t] = true
			}
		}
		g.stats.Tests = max(g.stats.Tests, c.Ran)
		for t := range g.notRun {
			if !slices.Contains(c.NotRunTests, t) {
				delete(g.notRun, t) // run under another strategy of the group
			}
		}
		for _, t := range c.FailedTests {
			g.failing[t] = true
		}
	}
	for _, g := range groups {
		g.stats.NotRun, g.stats.Failures = len(g.notRun), len(g.failing)
		for _, f := range res.Findings {
			if slices.ContainsFunc(f.FailsWith, func(s Strategy) bool { return s.Group == g.stats.Name }) {
				g.stats.Findings++
			}
		}
		st.PerGroup = append(st.PerGroup, g.stats)
	}
	return st
}

// Merge puts an analysis' findings and stats into rep, replacing the
// findings (api, and nod from its control runs) and chaos stats of an
// earlier analysis and keeping the findings of other analyses (e.g. those
// of flaky detect; a nod finding of theirs stands for the same test's). The
// runs and orders counts drop the earlier analysis' runs and add this one's.
func Merge(rep *report.Report, findings []report.Finding, stats *report.ChaosStats) {
	rep.Findings = slices.DeleteFunc(rep.Findings, func(f report.Finding) bool { return f.Kind == report.API || madeByChaos(f) })
	rep.Findings = Add(rep.Findings, findings)
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

// Add appends findings to existing but for the nod findings of tests that
// have one already.
func Add(existing, findings []report.Finding) []report.Finding {
	for _, f := range findings {
		if f.Kind == report.NOD && slices.ContainsFunc(existing, func(e report.Finding) bool { return e.Kind == report.NOD && e.Test == f.Test }) {
			continue
		}
		existing = append(existing, f)
	}
	return existing
}

// madeByChaos reports whether f is a nod finding of an API perturbation
// analysis: its evidence has perturbed runs or control runs.
func madeByChaos(f report.Finding) bool {
	return f.Kind == report.NOD && slices.ContainsFunc(f.Evidence, func(e report.Evidence) bool {
		return strings.HasPrefix(e.Run, "chaos ") || e.Run == evidenceRun(Evidence{Detail: controlRun})
	})
}
