package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/surefire"
)

func listTestsCommand() *cli.Command {
	return &cli.Command{
		Name:  "list-tests",
		Usage: "print the module's tests, one id per line, in their default order (Surefire's class order; stderr says which)",
		Flags: []cli.Flag{
			moduleFlag,
			mavenProfileFlag(),
			mavenPropertyFlag(),
			&cli.BoolFlag{Name: "json", Usage: "print the tests as a JSON array of {id, class, method, engine, classFixtures, dynamic}"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			return listTests(c.Context, listTestsOptions{globalOptions: globalsOf(c), Module: c.String("module"), JSON: c.Bool("json")})
		},
	}
}

// listTestsOptions are list-tests' flags.
type listTestsOptions struct {
	globalOptions
	Module string // the module's directory
	JSON   bool
}

// listTests prints the module's tests in their default order.
func listTests(ctx context.Context, o listTestsOptions) error {
	setup, l, err := o.openModule(ctx, o.Module, launcher.Options{})
	if err != nil {
		return err
	}
	defer l.Close()
	tests, _, how, err := listModule(ctx, setup, l)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Stderr, "flaky: default order: classes in %s\n", how)
	records, _ := surefire.ReadForkRecords(filepath.Dir(setup.TestClassesDir))
	var expanded, unknown int
	tests, expanded, unknown = withInvocations(tests, records)
	if expanded > 0 {
		fmt.Fprintf(o.Stderr, "flaky: %d parameterized or dynamic test(s) listed as the %d invocations the recorded Surefire fork ran\n", expanded, countInvocations(tests))
	}
	if unknown > 0 {
		fmt.Fprintf(o.Stderr, "flaky: %d parameterized or dynamic test(s) listed once each: their invocations (ID[1], ID[2], ...; Surefire counts each) are known only when they run (run mvn -Pflaky test to record them)\n", unknown)
	}
	if o.JSON {
		enc := json.NewEncoder(o.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(tests)
	}
	for _, t := range tests {
		if _, err := fmt.Fprintln(o.Stdout, t.ID); err != nil {
			return err
		}
	}
	return nil
}

// withInvocations replaces each dynamic test (a test template or factory)
// that the recorded Surefire forks ran by the invocations they ran, in
// their order. It returns the tests, how many dynamic tests it expanded
// and how many it could not (the forks did not run them).
func withInvocations(tests []launcher.TestInfo, records []*surefire.ForkRecord) (out []launcher.TestInfo, expanded, unknown int) {
	for _, t := range tests {
		if !t.Dynamic {
			out = append(out, t)
			continue
		}
		var ids []string
		for _, r := range records {
			for _, ft := range r.Tests {
				if id := testid.Parse(ft.Test); id.IsIndexed() && id.IsInvocationOf(testid.Parse(t.ID)) && !slices.Contains(ids, ft.Test) {
					ids = append(ids, ft.Test)
				}
			}
		}
		if len(ids) == 0 {
			unknown++
			out = append(out, t)
			continue
		}
		expanded++
		for _, id := range ids {
			inv := t
			inv.ID, inv.Method, inv.Dynamic = id, t.Method+strings.TrimPrefix(id, t.ID), false
			out = append(out, inv)
		}
	}
	return out, expanded, unknown
}

// countInvocations counts the tests whose id names an invocation (ID[i]).
func countInvocations(tests []launcher.TestInfo) int {
	n := 0
	for _, t := range tests {
		if testid.Parse(t.ID).IsIndexed() {
			n++
		}
	}
	return n
}
