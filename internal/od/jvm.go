package od

import (
	"slices"
	"strings"

	"github.com/flakyhq/flaky/internal/launcher"
)

// fastStart makes the analysis' many short-lived JVMs start faster: the
// client compiler only (about 40% less CPU for a typical test JVM here).
// It changes when code gets compiled, not what it does.
const fastStart = "-XX:TieredStopAtLevel=1"

// FastStart returns env with the JVM option that makes short runs faster
// added, unless its JVM arguments already choose the compilation tiers.
func FastStart(env launcher.Env) launcher.Env {
	if slices.ContainsFunc(env.JVMArgs, func(a string) bool {
		return strings.Contains(a, "TieredStopAtLevel") || strings.Contains(a, "TieredCompilation")
	}) {
		return env
	}
	env.JVMArgs = append(slices.Clone(env.JVMArgs), fastStart)
	return env
}

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
		c := ClassOf(t.ID)
		fixtures[c] = true
		if t.Engine != "junit4" {
			unrepeatable[c] = true
		}
	}
	return fixtures, unrepeatable
}
