// Package defaultorder is the one definition of a module's default test
// order: the order its Surefire runs the tests in. list-tests prints it;
// detect, chaos and pollution analyse it, and the order-dependence and
// data-dependency analyses run it as their "original" order.
package defaultorder

import (
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/maven/surefire"
)

// Of returns the module's tests (as the runner lists them) in their default
// order and says which order that is. Classes come in the order of the
// recorded Surefire fork (target/flaky/fork.json) when there is one, then
// the classes it did not run; else in the order of Surefire's runOrder
// (mvn.SurefireClassOrder: runOrder=filesystem, Surefire's default, is the
// order its directory scan finds the class files in). The tests of one
// class keep the runner's order. In a module that mixes TestNG and JUnit the
// TestNG classes come first, as Surefire's TestNG provider runs them.
func Of(setup *mvn.TestSetup, tests []launcher.TestInfo, now time.Time) ([]launcher.TestInfo, string, error) {
	classes, how, err := classOrder(setup, tests, now)
	if err != nil {
		return nil, "", fmt.Errorf("default order: %w", err)
	}
	ordered := inClassOrder(tests, classes)
	if mixed := testngFirst(ordered); mixed != nil {
		return mixed, how + ", the TestNG classes first (Surefire's TestNG provider runs a module that mixes frameworks)", nil
	}
	return ordered, how, nil
}

// testngFirst returns tests with TestNG's before the others', keeping their
// order, when the module tests with TestNG and another framework (Surefire
// then runs it with its TestNG provider, which runs the TestNG classes
// first); nil otherwise.
func testngFirst(tests []launcher.TestInfo) []launcher.TestInfo {
	var testng, others []launcher.TestInfo
	for _, t := range tests {
		if t.Engine == launcher.EngineTestNG {
			testng = append(testng, t)
		} else {
			others = append(others, t)
		}
	}
	if len(testng) == 0 || len(others) == 0 {
		return nil
	}
	return append(testng, others...)
}

// classOrder is the order in which the module's Surefire runs its test
// classes, and says which it is (see Of).
func classOrder(setup *mvn.TestSetup, tests []launcher.TestInfo, now time.Time) ([]string, string, error) {
	scanned, how, err := mvn.SurefireClassOrder(setup.TestClassesDir, setup.RunOrder, now)
	if err != nil {
		return nil, "", err
	}
	records, err := surefire.ReadForkRecords(filepath.Dir(setup.TestClassesDir))
	if err != nil {
		return scanned, how + " (the recorded fork is unreadable: " + err.Error() + ")", nil
	}
	if len(records) == 0 {
		return scanned, how, nil
	}
	var classes []string
	for _, r := range records {
		names := r.TestClasses
		if len(names) == 0 {
			for _, t := range r.Tests {
				names = append(names, topClass(t.Test))
			}
		}
		for _, n := range names {
			if !slices.Contains(classes, n) {
				classes = append(classes, n)
			}
		}
	}
	desc := "the order of the recorded Surefire fork (" + records[0].File + ")"
	recorded := len(classes)
	for _, n := range scanned {
		if !slices.Contains(classes, n) {
			classes = append(classes, n)
		}
	}
	for _, t := range tests {
		if !slices.Contains(classes[:recorded], topClass(t.ID)) {
			desc += ", then classes it did not run in " + how
			break
		}
	}
	return classes, desc, nil
}

// inClassOrder orders tests by the position of their top-level class in
// classes, keeping the order of the tests of one class (and of tests whose
// class is not listed, at the end).
func inClassOrder(tests []launcher.TestInfo, classes []string) []launcher.TestInfo {
	rank := make(map[string]int, len(classes))
	for i, c := range classes {
		if _, ok := rank[c]; !ok {
			rank[c] = i
		}
	}
	pos := func(t launcher.TestInfo) int {
		if r, ok := rank[topClass(t.ID)]; ok {
			return r
		}
		return len(classes)
	}
	out := slices.Clone(tests)
	slices.SortStableFunc(out, func(x, y launcher.TestInfo) int { return pos(x) - pos(y) })
	return out
}

// topClass is the top-level class of a test id or class name.
func topClass(id string) string { return testid.Parse(id).TopLevel() }
