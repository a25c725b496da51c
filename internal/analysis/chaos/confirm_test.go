package chaos

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// Single mode records every strategy that fails a test, counts per
// strategy, shortens the reproduce order to the test alone when that
// reproduces it, checks TIME and SLEEP findings with a tenth of the
// parameter, and leaves out failures of the machinery and the framework.
func TestSingleConfirmsAndCounts(t *testing.T) {
	suite := map[string]behaviour{
		"p.A#first": {},
		// Fails with TIME_INCREMENT and SLEEP_INCREASE, whatever the setting: robust.
		"p.A#clock": {sites: map[string][]siteAt{"TIME": {clockSite}, "SLEEP": {sleepSite}}, fails: anyOf("TIME_INCREMENT", "SLEEP_INCREASE")},
		// Fails with TIME_INCREMENT only at the full increment: not robust.
		"p.A#amplified": {sites: map[string][]siteAt{"TIME": {clockSite}}, fails: func(on map[string]bool) bool { return on["chaos=TIME_INCREMENT"] && !on["chaos.time.increment=30"] }},
		// Fails with RANDOM_MAX only after the tests before it.
		"p.B#needsPrefix": {sites: map[string][]siteAt{"RANDOM": {diceSite}}, fails: func(on map[string]bool) bool { return on["chaos=RANDOM_MAX"] && !on["alone"] }},
		// Fails with LOCALE only after another test of its class.
		"p.D#first":    {},
		"p.D#needsOwn": {sites: map[string][]siteAt{"LOCALE": {localeSite}}, fails: func(on map[string]bool) bool { return on["chaos=LOCALE"] && !on["alone"] }},
		// The agent's wrapper threw under RANDOM_MAX: not the test's failure.
		"p.B#agent": {fails: anyOf("RANDOM_MAX"), ftype: "java.lang.IllegalStateException", message: "bug",
			stack: "java.lang.IllegalStateException: bug\n\tat dev.flaky.agent.chaos.Wrappers.nextInt(Wrappers.java:10)\n\tat p.B.agent(B.java:3)\n"},
		// A parameterized test: each invocation reproduces alone.
		"p.C#param": {results: []string{"p.C#param[1]", "p.C#param[2]"}, sites: map[string][]siteAt{"RANDOM": {diceSite}}, fails: anyOf("RANDOM_MAX")},
		// The framework failed outside the test's code under SLEEP_INCREASE.
		"p.B#framework": {fails: anyOf("SLEEP_INCREASE"), ftype: "org.junit.platform.commons.PreconditionViolationException",
			stack: "org.junit.platform.commons.PreconditionViolationException\n\tat org.junit.platform.commons.util.Preconditions.condition(Preconditions.java:1)\n"},
	}
	order := []string{"p.A#first", "p.A#clock", "p.A#amplified", "p.B#needsPrefix", "p.B#agent", "p.B#framework", "p.C#param", "p.D#first", "p.D#needsOwn"}
	r := &fakeRunner{suite: suite}
	res, err := Run(context.Background(), r, Config{Tests: order, Mode: Single, Strategies: mustLookup("RANDOM_MAX", "TIME_INCREMENT", "LOCALE", "SLEEP_INCREASE"), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		strategy, failsWith string
		order               int
		robust              string
	}
	want := map[string]got{
		"p.A#clock":       {"TIME_INCREMENT", "TIME_INCREMENT+SLEEP_INCREASE", 1, "true"},
		"p.A#amplified":   {"TIME_INCREMENT", "TIME_INCREMENT", 1, "false"},
		"p.B#needsPrefix": {"RANDOM_MAX", "RANDOM_MAX", 4, "-"},
		"p.C#param[1]":    {"RANDOM_MAX", "RANDOM_MAX", 1, "-"},
		"p.C#param[2]":    {"RANDOM_MAX", "RANDOM_MAX", 1, "-"},
		"p.D#needsOwn":    {"LOCALE", "LOCALE", 2, "-"},
	}
	if len(res.Findings) != len(want) {
		t.Errorf("findings: %+v", summarize(res.Findings))
	}
	for _, f := range res.Findings {
		robust := "-"
		if f.Robust != nil {
			robust = map[bool]string{true: "true", false: "false"}[*f.Robust]
		}
		g := got{Join(f.Strategies), Join(f.FailsWith), len(f.Order), robust}
		if g != want[f.Test] {
			t.Errorf("%s: got %+v, want %+v", f.Test, g, want[f.Test])
		}
		if g.order == 1 && f.Order[0] != f.Test {
			t.Errorf("%s: reproduce order %q, want the test alone", f.Test, f.Order)
		}
	}
	if len(res.Machinery) != 2 || !strings.Contains(res.Machinery[0], "p.B#agent under RANDOM_MAX: thrown by the perturbation machinery at dev.flaky.agent") ||
		!strings.Contains(res.Machinery[1], "p.B#framework under SLEEP_INCREASE: thrown by the test framework") {
		t.Errorf("machinery = %q", res.Machinery)
	}
	var cov []string
	for _, c := range res.Coverage {
		cov = append(cov, c.Run+" "+strings.Join([]string{itoa(c.Ran), itoa(c.NotRun), itoa(c.Failed), itoa(c.Findings)}, "/"))
	}
	if w := []string{"RANDOM_MAX 10/0/3/3", "TIME_INCREMENT 10/0/2/2", "LOCALE 10/0/1/1", "SLEEP_INCREASE 10/0/1/1"}; !slices.Equal(cov, w) {
		t.Errorf("coverage (ran/not run/failed/findings) = %q, want %q", cov, w)
	}
	if res.Tests != 10 { // the parameterized test's invocations count one each
		t.Errorf("tests = %d, want 10", res.Tests)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// A finding's order is the part of the suite its JVM ran: from where the
// run resumed in a fresh JVM.
func TestJVMOrder(t *testing.T) {
	order := []string{"a", "b", "c", "d", "e"}
	r := &launcher.Result{Resumed: []launcher.Resumption{{At: 2, After: "b", Why: "timeout"}, {At: 4, After: "d", Why: "crash"}}}
	for entry, want := range map[int]string{1: "a b", 2: "c", 3: "c d", 4: "e"} {
		if got := strings.Join(jvmOrder(order, r, entry), " "); got != want {
			t.Errorf("jvmOrder(%d) = %q, want %q", entry, got, want)
		}
	}
}

// milder scales a strategy's parameter, the user's value or the default,
// to a tenth (a factor's excess over 1).
func TestMilder(t *testing.T) {
	for _, c := range []struct {
		id     string
		params []string
		want   string
	}{
		{"TIME_INCREMENT", nil, "time.increment=30"},
		{"TIME_INCREMENT", []string{"chaos.time.increment=3000", "seed=7"}, "seed=7 time.increment=300"},
		{"TIME_SLOW", nil, "time.slow=1.9"},
		{"TIME_INCREMENT", []string{"time.fast=3"}, "time.increment=200"},
		{"SLEEP_DECREASE", []string{"sleep=1000"}, "sleep=100"},
		{"RANDOM_MAX", nil, ""},
	} {
		s, param, ok := milder(mustLookup(c.id)[0], Settings{Params: c.params})
		got := ""
		if ok {
			got = strings.Join(s.Params, " ")
			if !strings.HasSuffix(got, param) {
				t.Errorf("%s: param %q not last in %q", c.id, param, got)
			}
		}
		if got != c.want {
			t.Errorf("milder(%s, %q) = %q, want %q", c.id, c.params, got, c.want)
		}
	}
}

// Without a budget, the analysis sizes one from the unperturbed run: its
// duration for every round of Workers JVMs the strategies need, twice, plus
// one, and at least DefaultBudget.
func TestAutoBudget(t *testing.T) {
	baseline := func(d time.Duration) []*launcher.Result {
		return []*launcher.Result{{Duration: d, Tests: []launcher.TestResult{{Test: "p.LocaleTest#upper", Outcome: launcher.Pass}}}}
	}
	for _, c := range []struct {
		baseline []*launcher.Result
		want     time.Duration
		why      string
	}{
		{baseline(2 * time.Minute), 10 * time.Minute, "the unperturbed run's 2m0s x (2 x 2 round(s) of 1 JVM(s) for 1 strategies + 1)"},
		{baseline(time.Second), DefaultBudget, "at least 5m0s (the unperturbed run took 1s)"},
		{nil, DefaultBudget, "at least 5m0s (the unperturbed run took 0s)"}, // measured: the fake runner takes no time
	} {
		res, err := Run(context.Background(), &fakeRunner{suite: suite}, Config{Tests: suiteOrder, Mode: Single, Strategies: mustLookup("LOCALE"), Workers: 1, Baseline: c.baseline})
		if err != nil {
			t.Fatal(err)
		}
		if res.Budget != c.want || res.BudgetWhy != c.why {
			t.Errorf("budget %s (%s), want %s (%s)", res.Budget, res.BudgetWhy, c.want, c.why)
		}
	}
}

// Combined mode runs the milder reruns of the strategies that are a
// candidate's only suspect beside attribution's first round, and reads them
// for the findings whose order they answer for; a finding whose order they
// do not answer for gets its own milder run after attribution.
func TestCombinedRunsMilderBesideAttribution(t *testing.T) {
	for _, stream := range []bool{false, true} {
		// The runner's delays run on the bubble's fake clock.
		t.Run(fmt.Sprintf("stream=%t", stream), bubbled(func(t *testing.T) { testMilderBesideAttribution(t, stream) }))
	}
}

// testMilderBesideAttribution is TestCombinedRunsMilderBesideAttribution,
// with the combined run's JVM reporting its tests as they end (stream): the
// control runs, the first round and the runs beside it then start before
// the combined run ends, and confirmation reads them the same.
func testMilderBesideAttribution(t *testing.T, stream bool) {
	sleepSite := siteAt{"p.Loader", "poll", 9, "java.lang.Thread#sleep(long)"}
	r := &fakeRunner{stream: stream, suite: map[string]behaviour{
		// Fails with TIME_INCREMENT whatever the setting: robust.
		"p.A#clock": {sites: map[string][]siteAt{"TIME": {clockSite}}, fails: anyOf("TIME_INCREMENT")},
		// Fails with SLEEP_INCREASE only at the full setting: not robust.
		"p.A#slow": {sites: map[string][]siteAt{"SLEEP": {sleepSite}}, fails: func(on map[string]bool) bool { return on["SLEEP_INCREASE"] && !on["chaos.sleep=200"] }},
		// Hits both groups' call sites, fails with TIME_INCREMENT: attributed
		// after p.A#clock in the round's run, reproduced alone.
		"p.B#two": {sites: map[string][]siteAt{"TIME": {clockSite2}, "SLEEP": {sleepSite}}, fails: anyOf("TIME_INCREMENT")},
	}}
	if stream {
		r.slowCombined = 300 * time.Millisecond
	}
	res, err := Run(context.Background(), r, Config{Tests: []string{"p.A#clock", "p.A#slow", "p.B#two"}, Mode: Combined, Strategies: mustLookup("TIME_INCREMENT", "SLEEP_INCREASE"), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	robust := map[string]string{}
	for _, f := range res.Findings {
		r := "-"
		if f.Robust != nil {
			r = strconv.FormatBool(*f.Robust)
		}
		robust[f.Test] = Join(f.Strategies) + " " + strings.Join(f.Order, ",") + " " + r
	}
	want := map[string]string{
		"p.A#clock": "TIME_INCREMENT p.A#clock true",
		"p.A#slow":  "SLEEP_INCREASE p.A#slow false",
		"p.B#two":   "TIME_INCREMENT p.B#two true",
	}
	if !reflect.DeepEqual(robust, want) {
		t.Errorf("findings (strategy, order, robust):\n got %q\nwant %q", robust, want)
	}
	var jobs []string
	for _, j := range r.jobs {
		jobs = append(jobs, strings.Join(encoded(j.AgentOptions), ",")+" "+strings.Join(j.Order, ","))
	}
	const all = "p.A#clock,p.A#slow,p.B#two"
	wantJobs := []string{
		"chaos=TIME_INCREMENT+SLEEP_INCREASE " + all, " " + all, // the combined and unperturbed runs
		" " + all, " " + all, " " + all, " " + all, " " + all, // the control runs
		"chaos=TIME_INCREMENT p.A#clock,p.B#two", "chaos=SLEEP_INCREASE p.A#slow,p.B#two", // the first round
		"chaos=TIME_INCREMENT,chaos.time.increment=30 p.A#clock,p.B#two", "chaos=SLEEP_INCREASE,chaos.sleep=200 p.A#slow,p.B#two", // beside it
		"chaos=TIME_INCREMENT p.B#two", // p.B#two alone
		// The control runs like p.A#slow's and p.B#two's reproduce orders, each alone (p.A#clock's is the first
		// of the control runs above).
		" p.A#slow", " p.A#slow", " p.A#slow", " p.A#slow", " p.A#slow", " p.B#two", " p.B#two", " p.B#two", " p.B#two", " p.B#two",
		"chaos=TIME_INCREMENT,chaos.time.increment=30 p.B#two", // and milder
		// Each finding's second failing run with its strategy after the combined run (p.B#two's third, after
		// attribution's and alone, since both its suspects were tried): SLEEP_INCREASE's beside the first round,
		// since it is p.A#slow's only suspect; the rest after it, findings of a strategy whose reproduce order is
		// the test alone together.
		"chaos=SLEEP_INCREASE p.A#slow,p.B#two", "chaos=TIME_INCREMENT p.A#clock,p.B#two",
	}
	if !stream && !sameJobs(jobs, wantJobs) {
		t.Errorf("jobs:\n got %q\nwant %q", jobs, wantJobs)
	}
	// Streamed, each test fails at its own time: the jobs are the same
	// runs of each test, in more JVMs, most while the combined run runs.
	if stream && r.duringCombined < 5+2 {
		t.Errorf("%d jobs started while the combined run ran, want at least the first test's control runs, its first round and beside it: %q", r.duringCombined, jobs)
	}
}

// A finding rests on failing runs after the one that found it: a test that
// failed in its strategy's run of the suite only (the reruns of its
// reproduce order passed) is suspected, and so is a failure only the
// strategies together made that the combination does not make again.
func TestFindingsFailAgain(t *testing.T) {
	for _, mode := range []Mode{Single, Combined} {
		t.Run(string(mode), func(t *testing.T) {
			perturbed := 0
			r := &fakeRunner{suite: map[string]behaviour{
				"p.A#first": {},
				// Fails in the first perturbed run that gets to it (the
				// suite's run of RANDOM_MAX, or the combined run), and never again.
				"p.A#once": {sites: map[string][]siteAt{"RANDOM": {diceSite}}, fails: func(on map[string]bool) bool {
					if !on["RANDOM_MAX"] {
						return false
					}
					perturbed++
					return perturbed == 1
				}},
			}}
			res, err := Run(context.Background(), r, Config{Tests: []string{"p.A#first", "p.A#once"}, Mode: mode, Strategies: mustLookup("RANDOM_MAX", "LOCALE"), Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Findings) != 0 {
				t.Errorf("findings %+v, want none", summarize(res.Findings))
			}
			// Combined, attribution's first round and the again run beside it ran it before the control runs
			// like it (its reproduce order unperturbed, to ten unperturbed runs in all): with those, one more run
			// could still have made it clear.
			want := map[Mode]string{Single: "with RANDOM_MAX it failed 0 of 2 runs after the one that found it, unperturbed 0 of 10: not clearly more often",
				Combined: "with RANDOM_MAX it failed 0 of 3 runs after the one that found it, unperturbed 0 of 10: not clearly more often"}[mode]
			if len(res.Suspected) != 1 || !strings.Contains(res.Suspected[0].Why, want) {
				t.Fatalf("suspected %+v, want p.A#once, not failing again", res.Suspected)
			}
			var runs []string
			for _, e := range res.Suspected[0].Evidence {
				runs = append(runs, e.Run+" "+e.Detail+" "+string(e.Outcome))
			}
			if last := runs[len(runs)-1]; last != Join(res.Suspected[0].Strategies)+" again pass" {
				t.Errorf("evidence %q: want the rerun of its reproduce order, passing, last", runs)
			}
		})
	}
}
