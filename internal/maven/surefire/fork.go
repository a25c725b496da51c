package surefire

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/base/saferead"
)

// ForkRecordVersion is the fork record format this package reads.
const ForkRecordVersion = 1

// ForkRecord is what the flaky Surefire provider records about the fork it
// ran in (target/flaky/fork.json): enough to launch the module's tests the
// way Surefire really runs them, and the outcomes of that run.
type ForkRecord struct {
	Version         int      `json:"version"`
	SurefireVersion string   `json:"surefireVersion"`
	ProviderAPI     string   `json:"providerApi"`
	Java            string   `json:"java"`
	JavaVersion     string   `json:"javaVersion"`
	JVMArgs         []string `json:"jvmArgs"`
	AgentAttached   bool     `json:"agentAttached"`
	// SystemProperties are the system properties Surefire set for the fork
	// (systemPropertyVariables, systemProperties, systemPropertiesFile,
	// Maven's user properties, basedir, ...), all of them.
	SystemProperties map[string]string `json:"systemProperties"`
	// Environment holds only the variables Surefire set for the fork
	// (environmentVariables) and those that shape a JVM (JAVA_HOME, PATH,
	// HOME, USER, TZ, LANG, LANGUAGE, LC_*); never the rest of the build's
	// environment, which the driver's JVMs inherit from flaky itself.
	Environment          map[string]string `json:"environment"`
	WorkingDirectory     string            `json:"workingDirectory"`
	Classpath            []string          `json:"classpath"`
	TestClassesDirectory string            `json:"testClassesDirectory"`
	TestClasses          []string          `json:"testClasses"`
	Order                string            `json:"order"`
	Seed                 int64             `json:"seed"`
	Tests                []ForkTest        `json:"tests"`
	// TestTimeoutMs is the per-test timeout the provider applied in the
	// fork (-Dflaky.testTimeout), 0 for none; nil in records of providers
	// that had none.
	TestTimeoutMs *int64 `json:"testTimeoutMs,omitempty"`
	File          string `json:"-"` // the file it was read from
}

// ForkTest is one test's outcome in the fork's run.
type ForkTest struct {
	Test    string `json:"test"`
	Outcome string `json:"outcome"`
	TimeMs  int64  `json:"timeMs"`
	Message string `json:"message,omitempty"`
}

// TestIDs returns the ids of the fork's tests in executed order.
func (r *ForkRecord) TestIDs() []string {
	ids := make([]string, len(r.Tests))
	for i, t := range r.Tests {
		ids[i] = t.Test
	}
	return ids
}

// MaxRecordSize bounds a file of the Maven build flaky reads (a fork
// record, a Surefire report): far above what a fork's thousands of tests
// and their output take.
const MaxRecordSize = 128 << 20

// ReadForkRecords reads the fork records in buildDir/flaky: fork.json, or
// fork-<n>.json when the module ran in several forks. A module whose tests
// did not run (no tests, packaging pom, -DskipTests) has none: nil, nil.
func ReadForkRecords(buildDir string) ([]*ForkRecord, error) {
	dir := flakydir.InBuild(buildDir).Path()
	files, err := filepath.Glob(filepath.Join(dir, "fork*.json"))
	if err != nil {
		return nil, fmt.Errorf("listing fork records: %w", err)
	}
	if len(files) == 0 {
		return nil, nil
	}
	sort.Strings(files)
	records := make([]*ForkRecord, 0, len(files))
	for _, f := range files {
		data, err := saferead.ReadFile(f, MaxRecordSize, "a fork record")
		if err != nil {
			return nil, fmt.Errorf("reading fork record: %w", err)
		}
		var r ForkRecord
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("parsing fork record %s: %w", f, err)
		}
		if r.Version != ForkRecordVersion {
			return nil, fmt.Errorf("fork record %s has version %d; this flaky reads version %d (is the profile current? run flaky init --check)", f, r.Version, ForkRecordVersion)
		}
		r.File = f
		records = append(records, &r)
	}
	return records, nil
}
