package main

import (
	"fmt"
	"io"

	"github.com/flakyhq/flaky/internal/report"
	"github.com/urfave/cli/v2"
)

// noInvariantsFlag skips inferring the problem invariants of OD findings.
var noInvariantsFlag = &cli.BoolFlag{Name: "no-invariants", Usage: "do not infer the problem invariants (Takuan) of each OD victim and brittle"}

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
}
