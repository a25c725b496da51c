package main

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/flakyhq/flaky/internal/analysis/invariants"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
	"github.com/urfave/cli/v2"
)

// noInvariantsFlag skips inferring the problem invariants of OD findings.
var noInvariantsFlag = &cli.BoolFlag{Name: "no-invariants", Usage: "do not infer the problem invariants (Takuan) of each OD victim and brittle"}

// daikonOutFlag makes run-order trace the run and write Daikon's files.
var daikonOutFlag = &cli.StringFlag{Name: "daikon-out", Usage: "trace the project's methods during the run and write Daikon's DIR/flaky.decls and DIR/flaky.dtrace (declaration version 2)"}

// writeDaikon writes the run's traced program points in Daikon's format
// and notes on w where.
func writeDaikon(w io.Writer, dir string, r *launcher.Result) error {
	points := invariants.Merge(r.Invariants)
	if err := invariants.WriteDaikon(dir, "flaky", points); err != nil {
		return err
	}
	fmt.Fprintf(w, "flaky: run-order: %d program points in %s (flaky.decls, flaky.dtrace)\n", len(points), dir)
	return nil
}

// printProblemInvariants prints a finding's problem invariants the way
// Takuan does: the program point, then pv> (failing run) and v> (passing
// run) lines.
func printProblemInvariants(w io.Writer, f report.Finding) {
	if len(f.ProblemInvariants) == 0 {
		return
	}
	fmt.Fprintln(w, "  problem invariants (pv>: the failing run, v>: the passing run):")
	for _, p := range f.ProblemInvariants {
		fmt.Fprintf(w, "    %s\n", p.Point)
		for _, inv := range p.Failing {
			fmt.Fprintf(w, "    pv> %s\n", inv)
		}
		for _, inv := range p.Passing {
			fmt.Fprintf(w, "    v> %s\n", inv)
		}
	}
	// A brittle's "cleaner" methods set the state it needs.
	role := "cleaner method"
	if f.Kind == report.ODBrittle {
		role = "state-setting method"
	}
	for _, m := range f.CleanerMethods {
		fmt.Fprintf(w, "  %s of %s: %s%s (called by %s)\n", role, m.Variable, m.Method, withArguments(m), m.Test)
	}
	for _, m := range f.ReturnValueModifiers {
		how := "changes"
		if m.Restores {
			how = "restores"
		}
		fmt.Fprintf(w, "  return-value modifier of %s: %s%s %s it (called by %s)\n", m.Variable, m.Method, withArguments(m), how, m.Test)
	}
}

// withArguments says which arguments a reset candidate's call had, when it
// had some.
func withArguments(m report.MethodCandidate) string {
	if len(m.Arguments) == 0 {
		return ""
	}
	args := make([]string, len(m.Arguments))
	for i, a := range m.Arguments {
		args[i] = cmp.Or(a, "?")
	}
	return " with (" + strings.Join(args, ", ") + ")"
}
