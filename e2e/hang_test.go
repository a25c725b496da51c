package e2e

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/maven/surefire"
	"github.com/flakyhq/flaky/internal/report"
	"github.com/flakyhq/flaky/internal/verify"
)

// TestProviderCutsHangingTests runs mvn -Pflaky verify on the hang fixture
// with its tests made to hang and a short -Dflaky.testTimeout: the build
// ends, the test that ends when interrupted and the one that never ends are
// reported as timed out in Surefire's XML, the fork record and flaky's
// console, the other tests ran and passed, and verify's own runs used the
// same timeout. Confirmation reruns show the hangs failing in every run and
// a test that failed in the Surefire run and the three reruns flaky.
func TestProviderCutsHangingTests(t *testing.T) {
	t.Parallel()
	needsTools(t)
	dir := copyFixture(t, "hang")
	flakyInit(t, dir)
	began := time.Now()
	out, code := mvnRun(t, dir, "-Pflaky", "clean", "verify", "-Dfixture.hang=true", "-Dflaky.testTimeout=3s", "-Dflaky.budget=0")
	took := time.Since(began)
	t.Logf("mvn -Pflaky verify took %s, exit %d", took.Round(time.Second), code)
	const hanging, stuck = "fixture.hang.HangingTest#waitsForever", "fixture.hang.HangingTest#ignoresInterrupts"
	if code == 0 {
		t.Errorf("the build passed with two tests that hang:\n%s", tail(out))
	}
	// verify's reruns cut each hang at the fork's 3 s as well: at the 2-minute
	// default, the two hangs of each rerun alone would take 4 minutes.
	if took > 3*time.Minute {
		t.Errorf("mvn -Pflaky verify took %s: verify's runs did not use -Dflaky.testTimeout", took)
	}
	// The hangs fail in every run (they get no confirmation rerun: each
	// would cost the test timeout); the test that fails in the first four
	// runs (the Surefire run and the three reruns) passes in a confirmation
	// rerun: flaky, not failing.
	const firstRuns = "fixture.hang.FirstRunsTest#failsTheFirstFourRuns"
	for _, want := range []string{"[flaky] FAILS in every run: " + hanging, "[flaky] FAILS in every run: " + stuck, "[flaky] NEW   nod        " + firstRuns} {
		if !strings.Contains(out, want) {
			t.Errorf("the build output lacks %q:\n%s", want, tail(out))
		}
	}
	if strings.Contains(out, "[flaky] FAILS in every run: "+firstRuns) {
		t.Errorf("%s, which passed in a confirmation rerun, is called failing in every run:\n%s", firstRuns, tail(out))
	}
	r, err := report.Read(filepath.Join(dir, "target", "flaky", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The Surefire run, three reruns and one round of confirmation reruns
	// (one per core, at most four): FirstRunsTest passes in all of them.
	if want := 1 + verify.DefaultReruns + min(runtime.NumCPU(), verify.ConfirmReruns); r.Runs != want {
		t.Errorf("%d runs in the report, want %d", r.Runs, want)
	}

	// Surefire's own report: the cut tests are errors that say they timed out.
	data, err := os.ReadFile(filepath.Join(dir, "target", "surefire-reports", "TEST-fixture.hang.HangingTest.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var suite struct {
		Cases []struct {
			Name  string `xml:"name,attr"`
			Error *struct {
				Type    string `xml:"type,attr"`
				Message string `xml:"message,attr"`
			} `xml:"error"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(data, &suite); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range suite.Cases {
		got[c.Name] = "pass"
		if c.Error != nil {
			got[c.Name] = c.Error.Type + ": " + c.Error.Message
		}
	}
	const timedOut = "dev.flaky.surefire.TestTimedOutException: timed out after 3s without progress (test timeout, -Dflaky.testTimeout)"
	if len(got) != 3 || got["passes"] != "pass" || !strings.HasPrefix(got["waitsForever"], timedOut) || !strings.HasPrefix(got["ignoresInterrupts"], timedOut) ||
		!strings.Contains(got["ignoresInterrupts"], "did not stop when interrupted") {
		t.Errorf("HangingTest in Surefire's XML: %q", got)
	}

	// The fork record, which verify reads: every test ran, the cut ones as timeout, and the timeout it applied.
	recs, err := surefire.ReadForkRecords(filepath.Join(dir, "target"))
	if err != nil || len(recs) != 1 {
		t.Fatalf("fork records: %v, %v", recs, err)
	}
	outcomes := map[string]string{}
	for _, ft := range recs[0].Tests {
		outcomes[ft.Test] = ft.Outcome
	}
	want := map[string]string{
		"fixture.hang.AlphaTest#one": "pass", "fixture.hang.AlphaTest#two": "pass", stuck: "timeout", firstRuns: "fail",
		"fixture.hang.HangingTest#passes": "pass", hanging: "timeout", "fixture.hang.OmegaTest#last": "pass",
	}
	if len(outcomes) != len(want) {
		t.Errorf("fork record outcomes %q, want %q", outcomes, want)
	}
	for id, w := range want {
		if outcomes[id] != w {
			t.Errorf("%s: %q in the fork record, want %q", id, outcomes[id], w)
		}
	}
	if ms := recs[0].TestTimeoutMs; ms == nil || *ms != 3000 {
		t.Errorf("fork record's test timeout %v, want 3000 ms", ms)
	}
}

// verifyHangBound is how long TestVerifyAnalysisCutsHangingTests lets mvn
// -Pflaky verify take on the hang-late fixture before it calls the build
// hung. The fixed build takes about 40 s on a 2-core machine (most of it
// Maven and the budget of 10 s): the bound leaves it six times that on a
// loaded machine, and a build whose analysis does not cut the hang waits
// for the JVM's own 10-minute run timeout, and then again for the next.
const verifyHangBound = 4 * time.Minute

// TestVerifyAnalysisCutsHangingTests runs mvn -Pflaky verify with
// -Dflaky.testTimeout=3s on a module whose test passes in the Surefire run
// and the three reruns and hangs uninterruptibly from then on (item 4 of
// #53: the data-dependency JVM of verify's analysis was started without
// the test timeout and hung for good): the build ends, and the analysis's
// runs cut the hang at the timeout.
func TestVerifyAnalysisCutsHangingTests(t *testing.T) {
	t.Parallel()
	needsTools(t)
	dir := copyFixture(t, "hang-late")
	flakyInit(t, dir)
	cmd := exec.Command("mvn", "-B", "-Dstyle.color=never", "-Dflaky.bin="+flakyBin(t), "-Pflaky", "clean", "verify",
		"-Dfixture.hang=true", "-Dflaky.testTimeout=3s", "-Dflaky.budget=10s")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	began := time.Now()
	select {
	case <-done:
		t.Logf("mvn -Pflaky verify took %s, exit %d", time.Since(began).Round(time.Second), cmd.ProcessState.ExitCode())
	case <-time.After(verifyHangBound):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("mvn -Pflaky verify still running after %v: the analysis did not cut the hanging test at -Dflaky.testTimeout\n%s", verifyHangBound, tail(out.String()))
	}
	count, err := os.ReadFile(filepath.Join(dir, "target", "late-hang.count"))
	if err != nil || len(count) != 4 || int(count[3]) <= 4 {
		t.Errorf("late-hang.count %v, %v: want more than the four runs before the analysis", count, err)
	}
	const late = "fixture.hanglate.LateHangTest#hangsFromTheFifthRun"
	if !strings.Contains(out.String(), late) || !strings.Contains(out.String(), "timed out after 3s without progress (test timeout)") {
		t.Errorf("the build output does not name %s as cut at the test timeout:\n%s", late, tail(out.String()))
	}
}
