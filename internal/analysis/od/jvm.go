package od

import (
	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// FixtureClasses returns the classes of listed tests that have class-level
// fixtures (Config.Fixtures), and of those the ones whose framework cannot
// run a method twice in one class-fixture scope (Config.Unrepeatable): only
// flaky's JUnit 4 runner can.
func FixtureClasses(tests []launcher.TestInfo) (fixtures, unrepeatable map[string]bool) {
	fixtures, unrepeatable = map[string]bool{}, map[string]bool{}
	for _, t := range tests {
		if !t.ClassFixtures {
			continue
		}
		c := testid.ClassOf(t.ID)
		fixtures[c] = true
		if t.Engine != "junit4" {
			unrepeatable[c] = true
		}
	}
	return fixtures, unrepeatable
}
