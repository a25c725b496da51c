package e2e

import (
	"encoding/json"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// TestClassFixturesListed checks that `flaky list-tests --json` marks exactly
// the tests whose class has class-level fixtures.
func TestClassFixturesListed(t *testing.T) {
	t.Parallel()
	checkListing(t, fixture(t, "classfixtures"))
}

// listTestsCLI runs `flaky list-tests --json` on the module in dir.
func listTestsCLI(t *testing.T, dir string) []launcher.TestInfo {
	t.Helper()
	out, err := exec.Command(flakyBin(t), "list-tests", "--json", "--module", dir).Output()
	if err != nil {
		t.Fatalf("list-tests --json: %v", err)
	}
	var infos []launcher.TestInfo
	if err := json.Unmarshal(out, &infos); err != nil {
		t.Fatalf("list-tests --json printed invalid JSON: %v\n%s", err, out)
	}
	return infos
}

// checkListing lists p's tests and checks the ids (its expected default
// order) and which tests are marked with class fixtures; it returns the
// listed tests.
func checkListing(t *testing.T, p *prepared) []launcher.TestInfo {
	t.Helper()
	infos := listTestsCLI(t, p.dir)
	var ids, withFixtures []string
	for _, ti := range infos {
		ids = append(ids, ti.ID)
		if ti.ClassFixtures {
			withFixtures = append(withFixtures, ti.ID)
		}
	}
	if want := p.expected.Fixture.DefaultOrder; !slices.Equal(ids, want) {
		t.Fatalf("listed %v, want %v", ids, want)
	}
	if want := p.expected.Fixture.ClassFixtures; !slices.Equal(withFixtures, want) {
		t.Errorf("classFixtures on %v, want %v", withFixtures, want)
	}
	return infos
}

// TestClassFixtureScopes runs orders that repeat or split classes whose class
// fixtures work once per JVM: JUnit 4 repeats stay in one class-fixture scope
// and pass; splits (and Jupiter repeats) open a second scope, which the result
// reports, and fail in the class set-up.
func TestClassFixtureScopes(t *testing.T) {
	t.Parallel()
	p := fixture(t, "classfixtures")
	const (
		consumes     = "fixture.classfixtures.ConsumerTest#consumes"
		acknowledges = "fixture.classfixtures.ConsumerTest#acknowledges"
		adds         = "fixture.classfixtures.PlainTest#adds"
		produces     = "fixture.classfixtures.ProducerTest#produces"
	)
	cases := []struct {
		order      []string
		scopes     map[string]int
		failing    string // the test that fails in the class set-up, "" when all pass
		failingMsg string
	}{
		{order: []string{consumes, consumes}, scopes: map[string]int{testid.ClassOf(consumes): 1}},
		{order: []string{consumes, acknowledges, consumes}, scopes: map[string]int{testid.ClassOf(consumes): 1}},
		{
			order:   []string{consumes, adds, acknowledges},
			scopes:  map[string]int{testid.ClassOf(consumes): 2, testid.ClassOf(adds): 1},
			failing: acknowledges, failingMsg: "a mock with name consumer already exists",
		},
		{
			order:   []string{produces, produces},
			scopes:  map[string]int{testid.ClassOf(produces): 2},
			failing: produces, failingMsg: "a mock with name producer already exists",
		},
	}
	orders := make([][]string, len(cases))
	for i, c := range cases {
		orders[i] = c.order
	}
	results := runOrders(t, p.launcher, orders...)
	for i, c := range cases {
		r := results[i]
		if len(r.Tests) != len(c.order) {
			t.Errorf("order %v: %d results, want %d\n%s", c.order, len(r.Tests), len(c.order), describe(r))
			continue
		}
		for j, tr := range r.Tests {
			wantFail := c.failing != "" && j == len(c.order)-1
			if tr.Test != c.order[j] || failed(tr.Outcome) != wantFail || (!wantFail && tr.Outcome != launcher.Pass) {
				t.Errorf("order %v: result %d is %s %s, want %s failing=%v\n%s",
					c.order, j, tr.Test, tr.Outcome, c.order[j], wantFail, describe(r))
			}
			if wantFail && !strings.Contains(tr.Message, c.failingMsg) {
				t.Errorf("order %v: %s message %q lacks %q", c.order, tr.Test, tr.Message, c.failingMsg)
			}
		}
		if !maps.Equal(r.ClassScopes, c.scopes) {
			t.Errorf("order %v: class scopes %v, want %v", c.order, r.ClassScopes, c.scopes)
		}
	}
}
