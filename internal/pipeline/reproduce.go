package pipeline

import (
	"github.com/kballard/go-shellquote"

	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/report"
)

// withMavenArgs adds the user's Maven profiles and properties (-Pa,b
// -Dk=v) to the reproduce commands of findings: without them a build that
// needs one (a profile for the JDK, a plugin skipped) would not run the
// order as the analysis did.
func withMavenArgs(findings []report.Finding, args []string) {
	for i := range findings {
		f := &findings[i]
		f.Reproduce = mvn.WithArgs(f.Reproduce, "test", args)
		f.ReproduceRunOrder = mvn.WithArgs(f.ReproduceRunOrder, "flaky", args)
	}
}

// withInitStep makes the plain-Maven reproduce commands of findings work
// when the module does not get the flaky profile yet: without it
// `mvn -Pflaky test -Dflaky.order=…` runs the whole suite and passes, so
// each command first goes to the project root and runs `flaky init` there.
func withInitStep(findings []report.Finding, moduleDir, root string) error {
	reaches, err := mvn.ProfileReaches(moduleDir)
	if err != nil || reaches {
		return err
	}
	for i := range findings {
		if findings[i].Reproduce != "" {
			findings[i].Reproduce = shellquote.Join("cd", root) + " && flaky init && " + findings[i].Reproduce
		}
	}
	return nil
}
