package e2e

import (
	"encoding/json"
	"os/exec"
	"slices"
	"testing"

	"github.com/flakyhq/flaky/internal/launcher"
)

// TestTestNG lists and runs the TestNG fixtures (7.12.0 and 6.14.3):
// `flaky list-tests` gives the default order (data-provider tests once, the
// classes with @BeforeClass or dependsOnMethods marked as having class
// fixtures); an order runs a class's methods in the requested order, except
// a class with dependsOnMethods, which keeps TestNG's order and passes in any
// requested order; @BeforeSuite runs once per run; the victim fails after
// its polluter. Exact findings: TestDetectFindsExactlyTheExpectedFindings and
// TestVerifyRunsOrderDependenceAnalysis.
func TestTestNG(t *testing.T) {
	for _, name := range []string{"testng7", "testng6"} {
		t.Run(name, func(t *testing.T) { checkTestNG(t, name) })
	}
}

func checkTestNG(t *testing.T, name string) {
	p := fixture(t, name)
	pkg := "fixture." + name + "."
	var (
		victim    = pkg + "DiscountTest#standardDiscount"
		polluter  = pkg + "OverrideTest#specialDiscount"
		isOpen    = pkg + "RegistryTest#isOpen"
		addsEntry = pkg + "RegistryTest#addsEntry"
		opens     = pkg + "AccountTest#opens"
		withdraws = pkg + "AccountTest#withdraws"
		env       = pkg + "EnvTest#environmentIsReady"
		squares   = pkg + "SquareTest#squares"
	)
	out, err := exec.Command(flakyBin(t), "list-tests", "--json", "--module", p.dir).Output()
	if err != nil {
		t.Fatalf("list-tests --json: %v", err)
	}
	var infos []launcher.TestInfo
	if err := json.Unmarshal(out, &infos); err != nil {
		t.Fatalf("list-tests --json printed invalid JSON: %v\n%s", err, out)
	}
	var ids, withFixtures []string
	for _, ti := range infos {
		ids = append(ids, ti.ID)
		if ti.ClassFixtures {
			withFixtures = append(withFixtures, ti.ID)
		}
		if ti.Engine != "testng" {
			t.Errorf("%s listed with engine %q, want testng", ti.ID, ti.Engine)
		}
	}
	if want := p.expected.Fixture.DefaultOrder; !slices.Equal(ids, want) {
		t.Fatalf("listed %v, want %v", ids, want)
	}
	if want := p.expected.Fixture.ClassFixtures; !slices.Equal(withFixtures, want) {
		t.Errorf("classFixtures on %v, want %v", withFixtures, want)
	}

	res := runOrders(t, p.launcher, ids,
		[]string{isOpen, addsEntry, env, withdraws, opens, squares, env},
		[]string{polluter, victim})
	for _, tr := range res[0].Tests {
		if tr.Outcome != launcher.Pass {
			t.Errorf("default order: %s %s\n%s", tr.Test, tr.Outcome, describe(res[0]))
		}
	}
	var ran []string
	for _, tr := range res[1].Tests {
		ran = append(ran, tr.Test)
		if tr.Outcome != launcher.Pass {
			t.Errorf("%s %s: @BeforeClass, @BeforeSuite or dependsOnMethods not kept\n%s", tr.Test, tr.Outcome, describe(res[1]))
		}
	}
	// The requested method order, but TestNG's order inside the dependsOnMethods chain.
	if want := []string{isOpen, addsEntry, env, opens, withdraws, squares, env}; !slices.Equal(ran, want) {
		t.Errorf("ran %v, want %v", ran, want)
	}
	if got := outcomeOf(res[2], victim); got != launcher.Fail {
		t.Errorf("victim after its polluter: %s, want fail\n%s", got, describe(res[2]))
	}
}
