package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/surefire"
	"github.com/flakyhq/flaky/internal/report"
)

// odFixtures are the fixtures with order-dependent tests.
var odFixtures = []string{"junit4", "jupiter5", "jupiter6", "mixed-mockito"}

// TestOrderDependentOrders checks every victim, cleaner, brittle and state-setter of
// the fixtures in the orders that define them.
func TestOrderDependentOrders(t *testing.T) {
	t.Parallel()
	for _, name := range odFixtures {
		t.Run(name, func(t *testing.T) {
			p := fixture(t, name)
			type check struct {
				order []string
				test  string
				fail  bool
			}
			var checks []check
			for _, f := range p.expected.ofKind("od-victim") {
				checks = append(checks, check{[]string{f.Test}, f.Test, false})
				for _, pol := range f.Polluters {
					checks = append(checks, check{join(pol, []string{f.Test}), f.Test, true})
					if len(pol) > 1 {
						for _, single := range pol {
							checks = append(checks, check{[]string{single, f.Test}, f.Test, false})
						}
					}
					for _, cl := range f.Cleaners {
						checks = append(checks, check{join(pol, cl, []string{f.Test}), f.Test, false})
					}
				}
			}
			for _, f := range p.expected.ofKind("od-brittle") {
				checks = append(checks, check{[]string{f.Test}, f.Test, true})
				for _, s := range f.Setters {
					checks = append(checks, check{join(s, []string{f.Test}), f.Test, false})
				}
			}
			if len(checks) == 0 {
				t.Fatal("fixture has no order-dependent findings")
			}
			orders := make([][]string, len(checks))
			for i, c := range checks {
				orders[i] = c.order
			}
			results := runOrders(t, p.launcher, orders...)
			for i, c := range checks {
				got := outcomeOf(results[i], c.test)
				if failed(got) != c.fail || got == "" {
					want := "pass"
					if c.fail {
						want = "fail"
					}
					t.Errorf("order %v: %s = %q, want %s\n%s", c.order, c.test, got, want, describe(results[i]))
				}
			}
		})
	}
}

// TestNonIdempotentOutcome runs each NIO test twice in one JVM: pass, then fail.
func TestNonIdempotentOutcome(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"junit4", "jupiter5"} {
		t.Run(name, func(t *testing.T) {
			p := fixture(t, name)
			nio := p.expected.ofKind("nio")
			if len(nio) == 0 {
				t.Fatal("fixture has no NIO test")
			}
			for _, f := range nio {
				r := runOrders(t, p.launcher, []string{f.Test, f.Test})[0]
				if len(r.Tests) != 2 || r.Tests[0].Outcome != launcher.Pass || !failed(r.Tests[1].Outcome) {
					t.Errorf("%s twice: want pass then fail, got\n%s", f.Test, describe(r))
				}
			}
		})
	}
}

// TestInterleavedOrder runs A#1, B#1, A#2: exactly that order, A's class fixtures twice.
func TestInterleavedOrder(t *testing.T) {
	t.Parallel()
	for _, name := range odFixtures[:3] {
		t.Run(name, func(t *testing.T) {
			p := fixture(t, name)
			il := p.expected.Fixture.Interleave
			order := []string{il.A1, il.B1, il.A2}
			r := runOrders(t, p.launcher, order)[0]
			var ran []string
			for _, tr := range r.Tests {
				ran = append(ran, tr.Test)
				if tr.Outcome != launcher.Pass {
					t.Errorf("%s = %s, want pass", tr.Test, tr.Outcome)
				}
			}
			if !slices.Equal(ran, order) {
				t.Fatalf("ran %v, want %v", ran, order)
			}
			a, b := testid.ClassOf(il.A1), testid.ClassOf(il.B1)
			want := []string{
				"before-class " + a, "test " + il.A1, "after-class " + a,
				"before-class " + b, "test " + il.B1, "after-class " + b,
				"before-class " + a, "test " + il.A2, "after-class " + a,
			}
			var got []string
			for _, m := range regexp.MustCompile(`FLAKY-FIXTURE ([^\r\n]+)`).FindAllStringSubmatch(r.Output, -1) {
				got = append(got, m[1])
			}
			if !slices.Equal(got, want) {
				t.Errorf("fixture trace:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestHangingTestTimesOut kills a hung JVM at the test timeout (not the
// run timeout) and keeps the earlier results. The timeouts are sized from
// a control run of the tests around the hang (measureHangLimits): a fixed
// 3 s fired on a busy machine before the first test began.
func TestHangingTestTimesOut(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"junit4", "jupiter5"} {
		t.Run(name, func(t *testing.T) {
			p := fixture(t, name)
			before, after := p.expected.Fixture.Stable[0], p.expected.Fixture.Stable[1]
			hang := p.expected.Fixture.Hangs[0]
			lim := measureHangLimits(t, p, []string{before, after})
			l, err := newLauncher(p.setup, javaBin(), launcher.Options{TestTimeout: lim.Test, RunTimeout: lim.Run})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			r := runOrders(t, l, []string{before, hang, after})[0]
			want := []launcher.Outcome{launcher.Pass, launcher.Timeout, launcher.NotRun}
			for i, id := range []string{before, hang, after} {
				if got := outcomeOf(r, id); got != want[i] {
					t.Errorf("%s = %q, want %q\n%s", id, got, want[i], describe(r))
				}
			}
			// The test timeout cut the hang, not the run timeout.
			if msg := resultOf(r, hang).Message; !strings.HasSuffix(msg, "without progress (test timeout)") {
				t.Errorf("%s cut with %q, want the test timeout", hang, msg)
			}
		})
	}
}

// TestSystemExitIsReported reports a test calling System.exit as a crash of that test.
func TestSystemExitIsReported(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"junit4", "jupiter5"} {
		t.Run(name, func(t *testing.T) {
			p := fixture(t, name)
			before, after := p.expected.Fixture.Stable[0], p.expected.Fixture.Stable[1]
			exit := p.expected.Fixture.Exits[0]
			r := runOrders(t, p.launcher, []string{before, exit, after})[0]
			want := []launcher.Outcome{launcher.Pass, launcher.Crash, launcher.NotRun}
			for i, id := range []string{before, exit, after} {
				if got := outcomeOf(r, id); got != want[i] {
					t.Errorf("%s = %q, want %q\n%s", id, got, want[i], describe(r))
				}
			}
			if msg := resultOf(r, exit).Message; !strings.Contains(msg, "System.exit(1)") {
				t.Errorf("crash message %q does not name System.exit(1)", msg)
			}
		})
	}
}

// TestListMatchesExpectedDefaultOrder compares the listed tests with the fixture's default order.
func TestListMatchesExpectedDefaultOrder(t *testing.T) {
	t.Parallel()
	for _, name := range append(odFixtures, "mockito-subclass") {
		t.Run(name, func(t *testing.T) {
			p := fixture(t, name)
			infos := list(t, p)
			var ids []string
			for _, ti := range infos {
				ids = append(ids, ti.ID)
			}
			if want := p.expected.Fixture.DefaultOrder; !slices.Equal(ids, want) {
				t.Errorf("listed:\n%s\nwant:\n%s", strings.Join(ids, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func list(t *testing.T, p *prepared) []launcher.TestInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callSafetyNet)
	defer cancel()
	infos, err := p.launcher.List(ctx, launcher.Selection{
		TestClassesDir: p.setup.TestClassesDir,
		Includes:       p.setup.Includes,
		Excludes:       p.setup.Excludes,
	})
	if err != nil {
		t.Fatalf("listing tests: %v", err)
	}
	return infos
}

// TestDefaultOrderMatchesSurefire runs each fixture's default order with flaky and with
// real Surefire (2.22.2 and 3.x) and compares every test's outcome.
func TestDefaultOrderMatchesSurefire(t *testing.T) {
	t.Parallel()
	cases := []struct{ fixture, surefire string }{
		{"junit4", "2.22.2"}, {"junit4", "3.5.4"},
		{"jupiter5", "2.22.2"}, {"jupiter5", "3.5.4"},
		{"jupiter6", "3.5.4"},
		{"mixed-mockito", "3.5.4"},
		{"mockito-subclass", "3.5.4"},
	}
	for _, c := range cases {
		t.Run(c.fixture+"/surefire-"+c.surefire, func(t *testing.T) {
			p := fixture(t, c.fixture)
			nod := map[string]bool{}
			for _, f := range p.expected.ofKind("nod") {
				nod[f.Test] = true
			}
			var order []string
			for _, ti := range list(t, p) {
				order = append(order, ti.ID)
			}
			ours := runOrders(t, p.launcher, order)[0]

			dir := copyFixture(t, c.fixture)
			cmd := exec.Command("mvn", "-B", "-q", "test", "-Dsurefire.version="+c.surefire, "-Dmaven.test.failure.ignore=true")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("mvn test: %v\n%s", err, out)
			}
			cases, err := surefire.ReadReports(filepath.Join(dir, "target", "surefire-reports"))
			if err != nil {
				t.Fatal(err)
			}
			theirs := map[string]surefire.Outcome{}
			for _, tc := range cases {
				theirs[tc.ID()] = tc.Outcome
			}
			compared := 0
			for _, tr := range ours.Tests {
				if nod[tr.Test] {
					continue
				}
				want, ok := theirs[tr.Test]
				if !ok {
					continue // parameterized invocations are named differently by Surefire's reporters
				}
				compared++
				if got := surefireOutcome(tr.Outcome); got != want {
					t.Errorf("%s: flaky %s, surefire %s (%s)", tr.Test, tr.Outcome, want, report.FirstLine(tr.Message))
				}
			}
			if compared < len(cases)/2 || compared < 5 {
				t.Errorf("compared only %d of %d Surefire test cases; ids do not line up", compared, len(cases))
			}
		})
	}
}

func surefireOutcome(o launcher.Outcome) surefire.Outcome {
	switch o {
	case launcher.Pass:
		return surefire.Pass
	case launcher.Fail:
		return surefire.Fail
	case launcher.Skipped:
		return surefire.Skipped
	default:
		return surefire.Error
	}
}

// TestMockitoWithAgent runs the Mockito fixtures' whole suites with the agent attached, on every JDK.
func TestMockitoWithAgent(t *testing.T) {
	t.Parallel()
	jdks := []string{javaBin()}
	if o := otherJDK(); o != "" {
		jdks = append(jdks, o)
	}
	for _, name := range []string{"mixed-mockito", "mockito-subclass"} {
		for _, java := range jdks {
			t.Run(name+"/"+filepath.Base(filepath.Dir(filepath.Dir(java))), func(t *testing.T) {
				p := fixture(t, name)
				l, err := newLauncher(p.setup, java, launcher.Options{RunTimeout: jvmSafetyNet})
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
				var order []string
				for _, ti := range list(t, p) {
					order = append(order, ti.ID)
				}
				r := runOrders(t, l, order)[0]
				for _, tr := range r.Tests {
					if tr.Outcome != launcher.Pass && tr.Outcome != launcher.Skipped {
						t.Errorf("%s = %s: %s", tr.Test, tr.Outcome, report.FirstLine(tr.Message))
					}
				}
				if len(r.Tests) < 3 {
					t.Errorf("ran %d tests:\n%s", len(r.Tests), r.Output)
				}
			})
		}
	}
}

// TestOtherJDK runs the OD orders of one fixture on the second JDK too.
func TestOtherJDK(t *testing.T) {
	t.Parallel()
	java := otherJDK()
	if java == "" {
		t.Skip("no second JDK on this machine")
	}
	for _, name := range []string{"junit4", "jupiter6"} {
		t.Run(name, func(t *testing.T) {
			p := fixture(t, name)
			l, err := newLauncher(p.setup, java, launcher.Options{RunTimeout: jvmSafetyNet})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			v := p.expected.ofKind("od-victim")[0]
			rs := runOrders(t, l, join(v.Polluters[0], []string{v.Test}), []string{v.Test})
			if !failed(outcomeOf(rs[0], v.Test)) || outcomeOf(rs[1], v.Test) != launcher.Pass {
				t.Errorf("on %s: polluted %s, alone %s", java, outcomeOf(rs[0], v.Test), outcomeOf(rs[1], v.Test))
			}
		})
	}
}
