package chaos

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/base/progress"
	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

// behaviour says how a synthetic test reacts to perturbation.
type behaviour struct {
	results []string            // result ids it reports (default: the order entry itself)
	sites   map[string][]siteAt // group -> call sites it hits while that group is perturbed
	atClass bool                // its sites are hit in the class fixtures
	// after, when set, is an entry the test fails only after (in the same
	// run): a failure that needs another test's state.
	after string
	fails func(on map[string]bool) bool
	// ftype, message and stack describe its failure (default: a message
	// naming the agent options, no type, no stack).
	ftype, message, stack string
}

type siteAt struct {
	class, method string
	line          int
	api           string
}

// rates is nods with their rates only.
func rates(nods []NOD) []NOD {
	var out []NOD
	for _, n := range nods {
		out = append(out, NOD{Test: n.Test, Runs: n.Runs, Failures: n.Failures, PerturbedRuns: n.PerturbedRuns, PerturbedFailures: n.PerturbedFailures})
	}
	return out
}

// sameJobs reports whether got and want list the same jobs, in any order:
// the jobs of one step of the analysis run at once, so the order the runner
// gets them in is not fixed.
func sameJobs(got, want []string) bool {
	got, want = slices.Clone(got), slices.Clone(want)
	slices.Sort(got)
	slices.Sort(want)
	return slices.Equal(got, want)
}

// bubbled runs test in a synctest bubble, for t.Run: the fake runner's
// delays and the analysis' budgets, deadlines and intervals then run on the
// bubble's fake clock, which moves only while every goroutine waits, so
// that how busy the machine is changes nothing the test sees.
func bubbled(test func(t *testing.T)) func(t *testing.T) {
	return func(t *testing.T) { synctest.Test(t, test) }
}

// fakeRunner plays a synthetic suite: it reads the chaos agent option of
// each job, reports the call sites each test hits of the enabled groups and
// fails the tests whose behaviour says so.
type fakeRunner struct {
	suite map[string]behaviour
	delay time.Duration
	// slowFirst is how long the first RunJobs call takes instead of delay.
	slowFirst time.Duration
	calls     int
	// cancel, when set, is called on call number cancelAt (each call runs
	// one job), which then fails as a cancelled launcher does.
	cancel   context.CancelFunc
	cancelAt int
	// stream makes a job with an OnTestEnd report its tests' results to
	// it one by one over its delay, as a JVM reports them while it runs.
	stream bool
	// slowCombined is how long a job of several strategies takes instead
	// of delay; duringCombined counts the jobs started while one ran.
	slowCombined   time.Duration
	combinedRuns   int
	duringCombined int
	// startedBeforeEnd is how many jobs had started when the first slow
	// combined job ended.
	startedBeforeEnd int
	mu               sync.Mutex
	jobs             []launcher.Job
	// running counts the jobs running, mostRunning the most at once.
	running, mostRunning int
}

func (f *fakeRunner) RunJobs(ctx context.Context, jobs []launcher.Job) ([]*launcher.Result, error) {
	f.mu.Lock()
	f.jobs = append(f.jobs, jobs...)
	f.calls++
	f.running++
	f.mostRunning = max(f.mostRunning, f.running)
	defer func() { f.mu.Lock(); f.running--; f.mu.Unlock() }()
	delay := f.delay
	if f.calls == 1 && f.slowFirst > 0 {
		delay = f.slowFirst
	}
	cancel := f.cancel != nil && f.calls == f.cancelAt
	if f.combinedRuns > 0 {
		f.duringCombined++
	}
	combined := f.slowCombined > 0 && len(jobs) == 1 && strings.Contains(strings.Join(encoded(jobs[0].AgentOptions), ","), "+")
	if combined {
		delay = f.slowCombined
		f.combinedRuns++
		defer func() {
			f.mu.Lock()
			f.combinedRuns--
			if f.startedBeforeEnd == 0 {
				f.startedBeforeEnd = len(f.jobs)
			}
			f.mu.Unlock()
		}()
	}
	f.mu.Unlock()
	if cancel {
		f.cancel()
		return nil, ctx.Err()
	}
	out := f.results(jobs)
	if f.stream && jobs[0].OnTestEnd != nil {
		// The job's tests end one after another over its delay.
		tests := out[0].Tests
		for _, t := range tests {
			select {
			case <-time.After(delay / time.Duration(len(tests))):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			var sites []agent.Perturbation
			for _, p := range out[0].Perturbations {
				if p.Test == t.Test || p.Test == testid.ClassOf(t.Test) {
					sites = append(sites, p)
				}
			}
			jobs[0].OnTestEnd(t, sites)
		}
		delay = 0
	}
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
		}
		if err := ctx.Err(); err != nil { // both ready: the deadline came first
			return nil, err
		}
	}
	return out, nil
}

// results plays jobs.
func (f *fakeRunner) results(jobs []launcher.Job) []*launcher.Result {
	out := make([]*launcher.Result, len(jobs))
	for i, j := range jobs {
		on := map[string]bool{}
		groups := map[string]string{}
		on["alone"] = len(j.Order) == 1
		on["first:"+j.Order[0]] = true
		for _, o := range encoded(j.AgentOptions) {
			on[o] = true
			if v, ok := strings.CutPrefix(o, "chaos="); ok {
				for _, id := range strings.Split(v, "+") {
					on[id] = true
					s, _ := Parse(id)
					groups[s[0].Group] = id
				}
			}
		}
		r := &launcher.Result{Order: j.Order}
		for _, entry := range j.Order {
			b, ok := f.suite[entry]
			ids := b.results
			if id := testid.Parse(entry); !ok && id.Invocation != "" {
				b, ids = f.suite[id.Base().String()], []string{entry} // one invocation of a parameterized test
			}
			if ids == nil {
				ids = []string{entry}
			}
			for _, id := range ids {
				for _, g := range Groups() {
					strategy, enabled := groups[g]
					if !enabled {
						continue
					}
					for _, s := range b.sites[g] {
						test := id
						if b.atClass {
							test = testid.ClassOf(id)
						}
						r.Perturbations = append(r.Perturbations, agent.Perturbation{Test: test, Strategy: strategy, Group: g,
							API: s.api, Class: s.class, Method: s.method, File: s.class[strings.LastIndexByte(s.class, '.')+1:] + ".java", Line: s.line})
					}
				}
				t := launcher.TestResult{Test: id, Outcome: launcher.Pass}
				if b.fails != nil && b.fails(on) && (b.after == "" || slices.Index(j.Order, b.after) >= 0 && slices.Index(j.Order, b.after) < slices.Index(j.Order, entry)) {
					t.Outcome, t.Message = launcher.Fail, "failed under "+strings.Join(encoded(j.AgentOptions), ",")
					if b.ftype != "" || b.stack != "" {
						t.Outcome, t.FailureType, t.Message, t.Stack = launcher.Error, b.ftype, b.message, b.stack
					}
				}
				r.Tests = append(r.Tests, t)
			}
		}
		out[i] = r
	}
	return out
}

func anyOf(ids ...string) func(map[string]bool) bool {
	return func(on map[string]bool) bool {
		for _, id := range ids {
			if on[id] {
				return true
			}
		}
		return false
	}
}

func allOf(ids ...string) func(map[string]bool) bool {
	return func(on map[string]bool) bool {
		for _, id := range ids {
			if !on[id] {
				return false
			}
		}
		return true
	}
}

var (
	diceSite   = siteAt{"p.Dice", "roll", 12, "java.util.Random#nextInt(int)"}
	clockSite  = siteAt{"p.Clock", "elapsed", 30, "java.lang.System#currentTimeMillis()"}
	clockSite2 = siteAt{"p.Clock", "start", 20, "java.lang.System#nanoTime()"}
	dateSite   = siteAt{"p.Calendar", "now", 5, "java.util.Date#<init>()"}
	localeSite = siteAt{"p.LocaleTest", "setUp", 9, "java.util.Locale#getDefault()"}
	sleepSite  = siteAt{"p.Worker", "await", 40, "java.lang.Thread#sleep(long)"}
)

// suite is the synthetic module the table tests run.
var suite = map[string]behaviour{
	"p.DiceTest#roll":    {sites: map[string][]siteAt{"RANDOM": {diceSite}}, fails: anyOf("RANDOM_MAX")},
	"p.ClockTest#window": {sites: map[string][]siteAt{"TIME": {clockSite2, clockSite, clockSite}}, fails: anyOf("TIME_INCREMENT", "TIME_ROUNDING")},
	"p.StableTest#a":     {sites: map[string][]siteAt{"RANDOM": {diceSite}, "TIME": {clockSite}}},
	"p.BrokenTest#x":     {sites: map[string][]siteAt{"RANDOM": {diceSite}}, fails: func(map[string]bool) bool { return true }},
	"p.ComboTest#both":   {sites: map[string][]siteAt{"RANDOM": {diceSite}, "DATE": {dateSite}}, fails: allOf("RANDOM_MAX", "DATE_FIXED")},
	"p.LocaleTest#upper": {sites: map[string][]siteAt{"LOCALE": {localeSite}}, atClass: true, fails: anyOf("LOCALE")},
	"p.SleepTest#s":      {sites: map[string][]siteAt{"SLEEP": {sleepSite}}, fails: anyOf("SLEEP_DECREASE")},
	"p.ParamTest#t":      {results: []string{"p.ParamTest#t[1]", "p.ParamTest#t[2]"}, sites: map[string][]siteAt{"DATE": {dateSite}}, fails: anyOf("DATE_FIXED")},
}

var suiteOrder = []string{"p.DiceTest#roll", "p.ClockTest#window", "p.StableTest#a", "p.BrokenTest#x", "p.ComboTest#both", "p.LocaleTest#upper", "p.SleepTest#s", "p.ParamTest#t"}

func cs(s siteAt) report.CallSite {
	return report.CallSite{Class: s.class, Method: s.method, File: s.class[strings.LastIndexByte(s.class, '.')+1:] + ".java", Line: s.line, API: s.api}
}

// summary is the part of a finding the table tests compare.
type summary struct {
	test       string
	strategies string
	attributed bool
	sites      []report.CallSite
}

func summarize(fs []Finding) []summary {
	out := make([]summary, len(fs))
	for i, f := range fs {
		out[i] = summary{f.Test, Join(f.Strategies), f.Attributed, f.CallSites}
	}
	slices.SortFunc(out, func(a, b summary) int { return strings.Compare(a.test, b.test) })
	return out
}

func TestRun(t *testing.T) {
	tests := []struct {
		name            string
		cfg             Config
		delay           time.Duration
		want            []summary
		wantSuspected   []summary
		wantRuns        int
		wantJobs        []string // chaos option of each job, "" for unperturbed, with the order's length
		wantUnperturbed []string
		wantExhausted   bool
		wantMessages    map[string]string // test -> message substring
	}{
		{
			name: "combined attributes each failure to the strategy that reproduces it",
			cfg:  Config{Mode: Combined},
			want: []summary{
				{"p.ClockTest#window", "TIME_INCREMENT", true, []report.CallSite{cs(clockSite2), cs(clockSite)}},
				{"p.ComboTest#both", "RANDOM_MAX+DATE_FIXED", false, []report.CallSite{cs(dateSite), cs(diceSite)}},
				{"p.DiceTest#roll", "RANDOM_MAX", true, []report.CallSite{cs(diceSite)}},
				{"p.LocaleTest#upper", "LOCALE", true, []report.CallSite{cs(localeSite)}},
				{"p.ParamTest#t[1]", "DATE_FIXED", true, []report.CallSite{cs(dateSite)}},
				{"p.ParamTest#t[2]", "DATE_FIXED", true, []report.CallSite{cs(dateSite)}},
			},
			wantRuns: 2 + 5 + 4 + 2 + 2 + 5 + 5 + 3 + 24 + 2 + 2 + 3,
			wantJobs: []string{
				"chaos=RANDOM_MAX+TIME_INCREMENT+DATE_FIXED+LOCALE+SLEEP_INCREASE+CONCURRENCY_SHRINK+NETWORK_DELAY 8", " 8",
				// The control runs: the failing tests alone, unperturbed, with BrokenTest, which failed unperturbed.
				" 6", " 6", " 6", " 6", " 6",
				// The strategies whose call sites the failing tests hit, each on the classes of those tests.
				"chaos=RANDOM_MAX 2", "chaos=TIME_INCREMENT 1", "chaos=DATE_FIXED 2", "chaos=LOCALE 1",
				// Beside them, a second run of those of RANDOM_MAX and DATE_FIXED, the only suspects of DiceTest and
				// ParamTest: confirmation's rerun of their likely findings.
				"chaos=RANDOM_MAX 2", "chaos=DATE_FIXED 2",
				// ComboTest (entry 4): neither of its suspects reproduced it on its class, so on the suite's order up to it.
				"chaos=RANDOM_MAX 5", "chaos=DATE_FIXED 5",
				// Nor there: the rest of the set, on its class, then on the suite's order.
				"chaos=TIME_INCREMENT 1", "chaos=LOCALE 1", "chaos=SLEEP_INCREASE 1", "chaos=CONCURRENCY_SHRINK 1", "chaos=NETWORK_DELAY 1",
				"chaos=TIME_INCREMENT 5", "chaos=LOCALE 5", "chaos=SLEEP_INCREASE 5", "chaos=CONCURRENCY_SHRINK 5", "chaos=NETWORK_DELAY 5",
				// Attributed findings already alone in their class's run need no rerun alone; each of ParamTest's
				// invocations alone, then TIME's milder rerun.
				"chaos=DATE_FIXED 1", "chaos=DATE_FIXED 1", "chaos=TIME_INCREMENT 1",
				// The control runs like each finding's reproduce order: ComboTest's (the suite's up to it, run once
				// already), and the others' alone (DiceTest's is the first of the control runs above).
				" 5", " 5", " 5", " 5",
				" 1", " 1", " 1", " 1", " 1", " 1", " 1", " 1", " 1", " 1", " 1", " 1", " 1", " 1", " 1", " 1", " 1", " 1", " 1", " 1",
				// A finding rests on two failing runs with its strategy after the combined run: ParamTest's and
				// DiceTest's have theirs (attribution's and the second run beside it), the others' reproduce orders
				// run again.
				"chaos=TIME_INCREMENT 1", "chaos=LOCALE 1",
				// ComboTest failed in the combined run only: its reproduce order twice more, with its suspects together.
				"chaos=RANDOM_MAX+DATE_FIXED 5", "chaos=RANDOM_MAX+DATE_FIXED 5",
				// ITERATION_ORDER, out of the combined run, in its own pass and under the two further seeds: no test fails.
				"chaos=ITERATION_ORDER 8", "chaos=ITERATION_ORDER 8", "chaos=ITERATION_ORDER 8",
			},
			wantUnperturbed: []string{"p.BrokenTest#x"},
			wantMessages:    map[string]string{"p.ComboTest#both": "fails only with strategies combined: none of RANDOM_MAX+TIME_INCREMENT+DATE_FIXED+LOCALE+SLEEP_INCREASE+CONCURRENCY_SHRINK+NETWORK_DELAY alone made it fail; it hit call sites of RANDOM_MAX+DATE_FIXED"},
		},
		{
			name: "combined with one strategy needs no attribution runs",
			cfg:  Config{Mode: Combined, Strategies: mustLookup("TIME_ROUNDING")},
			want: []summary{
				{"p.ClockTest#window", "TIME_ROUNDING", true, []report.CallSite{cs(clockSite2), cs(clockSite)}},
			},
			// The combined run is the strategy's: the finding is rerun alone, then again.
			wantRuns:        4 + 6,
			wantJobs:        []string{"chaos=TIME_ROUNDING 8", " 8", " 2", " 2", " 2", " 2", " 2", "chaos=TIME_ROUNDING 1", "chaos=TIME_ROUNDING 1", "chaos=TIME_ROUNDING 1"},
			wantUnperturbed: []string{"p.BrokenTest#x"},
		},
		{
			name:  "combined stops attributing at the budget: the failures are suspected, not findings",
			cfg:   Config{Mode: Combined, Strategies: mustLookup("RANDOM_MAX", "DATE_FIXED"), Budget: 30 * time.Millisecond},
			delay: 50 * time.Millisecond,
			wantSuspected: []summary{
				{"p.ComboTest#both", "RANDOM_MAX+DATE_FIXED", false, []report.CallSite{cs(dateSite), cs(diceSite)}},
				{"p.DiceTest#roll", "RANDOM_MAX", false, []report.CallSite{cs(diceSite)}},
				{"p.ParamTest#t[1]", "DATE_FIXED", false, []report.CallSite{cs(dateSite)}},
				{"p.ParamTest#t[2]", "DATE_FIXED", false, []report.CallSite{cs(dateSite)}},
			},
			// The control runs are not cut by the budget, nor those like the suspects' reproduce orders: ComboTest's
			// and ParamTest's the suite's order up to them (run once already), DiceTest's the first of the control runs.
			wantRuns:        2 + 5 + 4 + 8,
			wantJobs:        []string{"chaos=RANDOM_MAX+DATE_FIXED 8", " 8", " 4", " 4", " 4", " 4", " 4", " 5", " 5", " 5", " 5", " 8", " 8", " 8", " 8", " 8", " 8", " 8", " 8"},
			wantUnperturbed: []string{"p.BrokenTest#x"},
			wantExhausted:   true,
			wantMessages:    map[string]string{"p.DiceTest#roll": "suspected, not a finding: the budget ended before each strategy was tried alone"},
		},
		{
			name: "single runs each strategy and prefers the canonical one",
			cfg:  Config{Mode: Single, Strategies: mustLookup("TIME_INCREMENT", "TIME_ROUNDING", "SLEEP_DECREASE", "RANDOM_MAX"), Workers: 2},
			want: []summary{
				{"p.ClockTest#window", "TIME_INCREMENT", true, []report.CallSite{cs(clockSite2), cs(clockSite)}},
				{"p.DiceTest#roll", "RANDOM_MAX", true, []report.CallSite{cs(diceSite)}},
				{"p.SleepTest#s", "SLEEP_DECREASE", true, []report.CallSite{cs(sleepSite)}},
			},
			wantRuns: 9 + 5 + 10 + 4,
			// DiceTest is the suite's first test: its run of the suite is its reproduce order, rerun twice
			// (RANDOM_MAX 1); the others alone, their control runs alone (DiceTest's are the first of the control
			// runs), and again, then TIME's and SLEEP's milder reruns.
			wantJobs: []string{" 8", "chaos=RANDOM_MAX 8", "chaos=TIME_INCREMENT 8", "chaos=TIME_ROUNDING 8", "chaos=SLEEP_DECREASE 8", " 4", " 4", " 4", " 4", " 4",
				"chaos=TIME_INCREMENT 1", "chaos=SLEEP_DECREASE 1", " 1", " 1", " 1", " 1", " 1", " 1", " 1", " 1", " 1", " 1", "chaos=RANDOM_MAX 1", "chaos=RANDOM_MAX 1", "chaos=TIME_INCREMENT 1", "chaos=SLEEP_DECREASE 1",
				"chaos=TIME_INCREMENT 1", "chaos=SLEEP_DECREASE 1"},
			wantUnperturbed: []string{"p.BrokenTest#x"},
			wantMessages: map[string]string{
				"p.ClockTest#window": "(TIME_ROUNDING make it fail too)",
				"p.SleepTest#s":      "SLEEP_DECREASE goes beyond what the API's specification allows",
			},
		},
		{
			name: "single uses the caller's unperturbed runs",
			cfg: Config{Mode: Single, Strategies: mustLookup("LOCALE"), Baseline: []*launcher.Result{{Tests: []launcher.TestResult{
				{Test: "p.LocaleTest#upper", Outcome: launcher.Pass}, {Test: "p.BrokenTest#x", Outcome: launcher.Fail},
			}}}},
			want:            []summary{{"p.LocaleTest#upper", "LOCALE", true, []report.CallSite{cs(localeSite)}}},
			wantRuns:        2 + 6,
			wantJobs:        []string{"chaos=LOCALE 8", " 1", " 1", " 1", " 1", " 1", "chaos=LOCALE 1", "chaos=LOCALE 1"},
			wantUnperturbed: []string{"p.BrokenTest#x"},
		},
		{
			// The finding's one failing run cannot be rerun before the budget ends: suspected.
			name:            "single stops starting strategies at the budget",
			cfg:             Config{Mode: Single, Strategies: mustLookup("RANDOM_MAX", "LOCALE"), Workers: 2, Budget: 30 * time.Millisecond},
			delay:           50 * time.Millisecond,
			wantSuspected:   []summary{{"p.DiceTest#roll", "RANDOM_MAX", true, []report.CallSite{cs(diceSite)}}},
			wantRuns:        2 + 5,
			wantJobs:        []string{" 8", "chaos=RANDOM_MAX 8", " 2", " 2", " 2", " 2", " 2"},
			wantUnperturbed: []string{"p.BrokenTest#x"},
			wantExhausted:   true,
		},
	}
	for _, tt := range tests {
		// The budget ends before the delayed runs do on the bubble's clock.
		t.Run(tt.name, bubbled(func(t *testing.T) {
			r := &fakeRunner{suite: suite, delay: tt.delay}
			cfg := tt.cfg
			cfg.Tests = suiteOrder
			res, err := Run(context.Background(), r, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := summarize(res.Findings); len(got)+len(tt.want) > 0 && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("findings:\n got %+v\nwant %+v", got, tt.want)
			}
			var suspected []Finding
			for _, f := range res.Suspected {
				suspected = append(suspected, f.Finding)
			}
			if got := summarize(suspected); len(got)+len(tt.wantSuspected) > 0 && !reflect.DeepEqual(got, tt.wantSuspected) {
				t.Errorf("suspected:\n got %+v\nwant %+v", got, tt.wantSuspected)
			}
			if res.Runs != tt.wantRuns {
				t.Errorf("runs = %d, want %d", res.Runs, tt.wantRuns)
			}
			var jobs []string
			for _, j := range r.jobs {
				opt := ""
				if o := encoded(j.AgentOptions); len(o) > 0 {
					opt = o[0]
				}
				jobs = append(jobs, opt+" "+strconv.Itoa(len(j.Order)))
			}
			if !sameJobs(jobs, tt.wantJobs) {
				t.Errorf("jobs:\n got %q\nwant %q", jobs, tt.wantJobs)
			}
			if !slices.Equal(res.FailUnperturbed, tt.wantUnperturbed) {
				t.Errorf("fail unperturbed = %q, want %q", res.FailUnperturbed, tt.wantUnperturbed)
			}
			// BrokenTest fails in every run: failing, not flaky.
			var failing []string
			for _, f := range res.Failing {
				if strings.HasPrefix(f.Why, "fails in every unperturbed run") {
					failing = append(failing, f.Test)
				}
			}
			if !slices.Equal(failing, tt.wantUnperturbed) || len(res.NOD) > 0 {
				t.Errorf("failing = %v, nod = %v; want %q failing in every run and no NOD", res.Failing, res.NOD, tt.wantUnperturbed)
			}
			if res.BudgetExhausted != tt.wantExhausted {
				t.Errorf("budget exhausted = %v, want %v", res.BudgetExhausted, tt.wantExhausted)
			}
			for test, sub := range tt.wantMessages {
				found := false
				for _, f := range slices.Concat(res.Findings, suspected) {
					if f.Test == test {
						found = true
						if !strings.Contains(f.Message, sub) {
							t.Errorf("%s: message %q lacks %q", test, f.Message, sub)
						}
					}
				}
				if !found {
					t.Errorf("no finding for %s", test)
				}
			}
		}))
	}
}

// TestCombinedTriesOtherStrategies tries a failure with the strategies
// whose call sites the test did not report, once those it did report fail
// to reproduce it; the one that reproduces it perturbed no call of the test
// either, so nothing ties the failure to it: dismissed, not a finding.
func TestCombinedTriesOtherStrategies(t *testing.T) {
	r := &fakeRunner{suite: map[string]behaviour{
		"p.A#hidden": {sites: map[string][]siteAt{"RANDOM": {diceSite}}, fails: anyOf("LOCALE")},
		"p.A#dice":   {sites: map[string][]siteAt{"RANDOM": {diceSite}}, fails: anyOf("RANDOM_MAX")},
	}}
	res, err := Run(context.Background(), r, Config{Tests: []string{"p.A#hidden", "p.A#dice"}, Mode: Combined, Strategies: mustLookup("RANDOM_MAX", "LOCALE", "DATE_FIXED")})
	if err != nil {
		t.Fatal(err)
	}
	want := []summary{{"p.A#dice", "RANDOM_MAX", true, []report.CallSite{cs(diceSite)}}}
	if got := summarize(res.Findings); !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n got %+v\nwant %+v", got, want)
	}
	var jobs []string
	for _, j := range r.jobs {
		jobs = append(jobs, strings.Join(encoded(j.AgentOptions), ",")+" "+strconv.Itoa(len(j.Order)))
	}
	// p.A#hidden's reproduce order twice more (LOCALE 1): three strategies were tried alone before LOCALE
	// was named, so it rests on three failing runs with it after the combined run, not two.
	// RANDOM_MAX 2 twice: the first round, and beside it the rerun that confirmation would need had
	// RANDOM_MAX, the only suspect, reproduced the failure. p.A#dice alone unperturbed five times: the
	// control runs like its reproduce order (p.A#hidden's is the control runs' first test alone).
	wantJobs := []string{"chaos=RANDOM_MAX+DATE_FIXED+LOCALE 2", " 2", " 2", " 2", " 2", " 2", " 2", "chaos=RANDOM_MAX 2", "chaos=RANDOM_MAX 2", "chaos=DATE_FIXED 1", "chaos=LOCALE 1", "chaos=RANDOM_MAX 1",
		" 1", " 1", " 1", " 1", " 1", "chaos=LOCALE 1", "chaos=LOCALE 1"}
	if !sameJobs(jobs, wantJobs) {
		t.Errorf("jobs:\n got %q\nwant %q", jobs, wantJobs)
	}
	const why = "none of the 4 run(s) it failed with LOCALE perturbed a call during it or its class's fixtures: nothing ties the failure to LOCALE"
	if want := []Dismissal{{Test: "p.A#hidden", Strategy: "LOCALE", Why: why}}; !reflect.DeepEqual(res.Dismissed, want) {
		t.Errorf("dismissed = %+v, want %+v", res.Dismissed, want)
	}
}

// TestControlRuns reports a test that fails perturbed and in one of the
// unperturbed control runs as flaky without perturbation, with its rates,
// and attributes no strategy to it.
func TestControlRuns(t *testing.T) {
	runs := 0
	r := &fakeRunner{suite: map[string]behaviour{
		// Fails every fifth run, perturbed or not: the first (combined) and the sixth (the fourth control run).
		"p.Counter#flips": {sites: map[string][]siteAt{"RANDOM": {diceSite}}, fails: func(map[string]bool) bool { runs++; return runs%5 == 1 }},
		"p.A#dice":        {sites: map[string][]siteAt{"RANDOM": {diceSite}}, fails: anyOf("RANDOM_MAX")},
	}}
	res, err := Run(context.Background(), r, Config{Tests: []string{"p.Counter#flips", "p.A#dice"}, Mode: Combined, Strategies: mustLookup("RANDOM_MAX", "LOCALE"), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := summarize(res.Findings), []summary{{"p.A#dice", "RANDOM_MAX", true, []report.CallSite{cs(diceSite)}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n got %+v\nwant %+v", got, want)
	}
	want := []NOD{{Test: "p.Counter#flips", Runs: 6, Failures: 1, PerturbedRuns: 1, PerturbedFailures: 1}}
	if !reflect.DeepEqual(rates(res.NOD), want) || !slices.Equal(res.FailUnperturbed, []string{"p.Counter#flips"}) {
		t.Errorf("nod = %+v, fail unperturbed %q; want %+v", res.NOD, res.FailUnperturbed, want)
	}
	if got := want[0].String(); got != "p.Counter#flips fails unperturbed 1 of 6 runs, perturbed 1 of 1" {
		t.Errorf("String() = %q", got)
	}
}

// TestUnperturbedFailuresJudged judges every test that failed unperturbed
// by its unperturbed runs: flaky without perturbation (NOD) only when it
// passed and failed in runs of one order, else failing, with why.
func TestUnperturbedFailuresJudged(t *testing.T) {
	const combined = "chaos=RANDOM_MAX+LOCALE"
	r := &fakeRunner{suite: map[string]behaviour{
		"p.A#first": {},
		// Fails after p.A#first: in the suite's order, perturbed or not.
		"p.Victim#v": {after: "p.A#first", fails: func(map[string]bool) bool { return true }},
		// Fails perturbed, and unperturbed whenever the suite's first test did not run first.
		"p.Alone#a":  {sites: map[string][]siteAt{"RANDOM": {diceSite}}, fails: func(on map[string]bool) bool { return on[combined] || !on["first:p.A#first"] }},
		"p.Broken#b": {fails: func(map[string]bool) bool { return true }},
		// Fails in the unperturbed run of the suite's order, passes in the combined one.
		"p.Flip#f":    {fails: func(on map[string]bool) bool { return !on[combined] && on["first:p.A#first"] }},
		"p.Dice#roll": {sites: map[string][]siteAt{"RANDOM": {diceSite}}, fails: anyOf("RANDOM_MAX")},
	}}
	order := []string{"p.A#first", "p.Victim#v", "p.Alone#a", "p.Broken#b", "p.Flip#f", "p.Dice#roll"}
	var updates []progress.Update
	tracker := progress.NewTracker(func(u progress.Update) { updates = append(updates, u) })
	res, err := Run(context.Background(), r, Config{Tests: order, Mode: Combined, Strategies: mustLookup("RANDOM_MAX", "LOCALE"), Workers: 1, Progress: tracker})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := summarize(res.Findings), []summary{{"p.Dice#roll", "RANDOM_MAX", true, []report.CallSite{cs(diceSite)}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n got %+v\nwant %+v", got, want)
	}
	// The progress ends in attribution's phase, with the api finding and the NOD one.
	if last := updates[len(updates)-1]; last.Phase != "attributing" || last.Findings != 2 {
		t.Errorf("last progress update %+v, want phase attributing and 2 flaky", last)
	}
	if want := []NOD{{Test: "p.Flip#f", Runs: 1, Failures: 1, PerturbedRuns: 1}}; !reflect.DeepEqual(rates(res.NOD), want) {
		t.Fatalf("nod = %+v, want %+v", rates(res.NOD), want)
	}
	if n := res.NOD[0]; !slices.Equal(n.Order, order[:5]) || len(n.Evidence) != 2 || n.Evidence[1].Outcome != launcher.Pass || len(n.Evidence[1].Strategies) != 2 {
		t.Errorf("nod order %q, evidence %+v: want the suite's order up to it, and its unperturbed failure and combined pass", n.Order, n.Evidence)
	}
	want := []Failing{
		{"p.Alone#a", "fails unperturbed alone (5 of 5 runs) and passes in the suite's order (1 of 1): order-dependent? (flaky detect)"},
		{"p.Victim#v", "fails unperturbed in the suite's order (1 of 1 runs) and passes alone (5 of 5): order-dependent? (flaky detect)"},
		{"p.Broken#b", "fails in every unperturbed run (6 of 6)"},
	}
	if !reflect.DeepEqual(res.Failing, want) {
		t.Errorf("failing:\n got %v\nwant %v", res.Failing, want)
	}
	unperturbed := slices.Sorted(slices.Values(res.FailUnperturbed))
	if want := []string{"p.Alone#a", "p.Broken#b", "p.Flip#f", "p.Victim#v"}; !slices.Equal(unperturbed, want) {
		t.Errorf("fail unperturbed = %q, want %q", unperturbed, want)
	}
	for _, j := range r.jobs {
		if len(encoded(j.AgentOptions)) == 0 && slices.Contains(j.Order, "p.Flip#f") && j.Order[0] != "p.A#first" {
			t.Errorf("control run %q of p.Flip#f, which the suite's runs showed flaky", j.Order)
		}
	}
}

// TestUnhitCandidatesWaitForControls runs the first attribution round of a
// failing test that hit no call site only after the control runs: a test
// that fails one of them (flaky without perturbation) gets no attribution
// run at all, one that passes them is tried with every strategy then.
func TestUnhitCandidatesWaitForControls(t *testing.T) {
	runs := 0
	r := &fakeRunner{suite: map[string]behaviour{
		// Hits no call site, fails every fifth run: the first (combined) and the sixth (the fourth control run).
		"p.Counter#flips": {fails: func(map[string]bool) bool { runs++; return runs%5 == 1 }},
		"p.A#dice":        {sites: map[string][]siteAt{"RANDOM": {diceSite}}, fails: anyOf("RANDOM_MAX")},
		// Hits no call site either, fails under LOCALE: nothing ties the failure to it.
		"p.B#odd": {fails: anyOf("LOCALE")},
	}}
	order := []string{"p.Counter#flips", "p.A#dice", "p.B#odd"}
	res, err := Run(context.Background(), r, Config{Tests: order, Mode: Combined, Strategies: mustLookup("RANDOM_MAX", "LOCALE"), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []summary{{"p.A#dice", "RANDOM_MAX", true, []report.CallSite{cs(diceSite)}}}
	if got := summarize(res.Findings); !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n got %+v\nwant %+v", got, want)
	}
	if len(res.Dismissed) != 1 || res.Dismissed[0].Test != "p.B#odd" || res.Dismissed[0].Strategy != "LOCALE" {
		t.Errorf("dismissed = %+v, want p.B#odd under LOCALE", res.Dismissed)
	}
	if want := []NOD{{Test: "p.Counter#flips", Runs: 6, Failures: 1, PerturbedRuns: 1, PerturbedFailures: 1}}; !reflect.DeepEqual(rates(res.NOD), want) {
		t.Errorf("nod = %+v, want %+v", res.NOD, want)
	}
	var jobs []string
	for i, j := range r.jobs {
		jobs = append(jobs, strings.Join(encoded(j.AgentOptions), ",")+" "+strings.Join(j.Order, ","))
		if i > 6 && slices.Contains(j.Order, "p.Counter#flips") {
			t.Errorf("job %d after the control runs runs the test flaky without perturbation: %q", i, j.Order)
		}
	}
	const failing = "p.Counter#flips,p.A#dice,p.B#odd"
	wantJobs := []string{
		"chaos=RANDOM_MAX+LOCALE " + failing, " " + failing, // the combined and unperturbed runs
		" " + failing, " " + failing, " " + failing, " " + failing, " " + failing, // the control runs
		"chaos=RANDOM_MAX p.A#dice",                        // beside them, for the test that hit a call site
		"chaos=RANDOM_MAX p.B#odd", "chaos=LOCALE p.B#odd", // after them
		// Confirmation: the control runs like each reproduce order (each test alone), p.A#dice's again,
		// p.B#odd's once (two strategies were tried before LOCALE was named; the control runs make one more
		// failure enough).
		" p.A#dice", " p.A#dice", " p.A#dice", " p.A#dice", " p.A#dice", " p.B#odd", " p.B#odd", " p.B#odd", " p.B#odd", " p.B#odd",
		"chaos=RANDOM_MAX p.A#dice", "chaos=LOCALE p.B#odd",
	}
	if !sameJobs(jobs, wantJobs) {
		t.Errorf("jobs:\n got %q\nwant %q", jobs, wantJobs)
	}
}

// TestAttributionGetsItsShare attributes a failure although the combined
// run took the whole budget: attribution gets its share from then on. The
// runner's delay and the budget run on the bubble's fake clock.
func TestAttributionGetsItsShare(t *testing.T) {
	synctest.Test(t, testAttributionGetsItsShare)
}

func testAttributionGetsItsShare(t *testing.T) {
	r := &fakeRunner{slowFirst: 400 * time.Millisecond, suite: map[string]behaviour{
		"p.A#dice": {sites: map[string][]siteAt{"RANDOM": {diceSite}}, fails: anyOf("RANDOM_MAX")},
	}}
	var lines []string
	res, err := Run(context.Background(), r, Config{Tests: []string{"p.A#dice"}, Mode: Combined, Strategies: mustLookup("RANDOM_MAX", "LOCALE"),
		Workers: 2, Budget: 300 * time.Millisecond, Log: logs.Printf(func(f string, args ...any) { lines = append(lines, fmt.Sprintf(f, args...)) })})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := summarize(res.Findings), []summary{{"p.A#dice", "RANDOM_MAX", true, []report.CallSite{cs(diceSite)}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n got %+v\nwant %+v\n%s", got, want, strings.Join(lines, "\n"))
	}
	if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "attribution gets its share, 100ms, from now") }) {
		t.Errorf("no note of attribution's share:\n%s", strings.Join(lines, "\n"))
	}
}

// TestInterruptKeepsWhatWasJudged returns the partial result of an
// analysis cancelled during its control runs: the failures not yet judged
// are suspected, and the result says what was cut.
func TestInterruptKeepsWhatWasJudged(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &fakeRunner{cancel: cancel, cancelAt: 3, suite: map[string]behaviour{
		"p.A#dice":   {sites: map[string][]siteAt{"RANDOM": {diceSite}}, fails: anyOf("RANDOM_MAX")},
		"p.B#locale": {sites: map[string][]siteAt{"LOCALE": {localeSite}}, fails: anyOf("LOCALE")},
	}}
	res, err := Run(ctx, r, Config{Tests: []string{"p.A#dice", "p.B#locale"}, Mode: Combined, Strategies: mustLookup("RANDOM_MAX", "LOCALE"), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Cut != "the control runs" || len(res.Findings) != 0 || len(res.Suspected) != 2 {
		t.Fatalf("interrupted %v during %q, findings %+v, suspected %+v", res.Interrupted, res.Cut, summarize(res.Findings), res.Suspected)
	}
	if why := res.Suspected[0].Why; why != "the analysis was interrupted before the control runs" {
		t.Errorf("suspected because %q", why)
	}
}

// TestAttributionScopes runs the suspected strategy on the failing test
// alone first, then on its class, and on the suite's order up to the test
// only when neither reproduces the failure (it needs another class's test
// before it); the control runs run the failing test alone.
func TestAttributionScopes(t *testing.T) {
	order := []string{"p.A#a", "p.B#first", "p.C#c", "p.B#fails"}
	tests := []struct {
		name     string
		after    string // the entry the failure needs before it
		wantJobs []string
		wantRuns []string // the evidence of p.B#fails: run, outcome and order length
		order    int      // the finding's order's length
	}{
		{
			name: "reproduced alone",
			wantJobs: []string{"chaos=RANDOM_MAX+LOCALE 4", " 4", " 1", " 1", " 1", " 1", " 1",
				"chaos=RANDOM_MAX 1", // the failing test alone: no rerun alone needed
				"chaos=RANDOM_MAX 1", // its second failing run after the combined run's
			},
			wantRuns: []string{"combined fail 4", "RANDOM_MAX fail 1", "unperturbed pass 4", "RANDOM_MAX fail 1"},
			order:    1,
		},
		{
			name:  "needs another class's test first",
			after: "p.A#a",
			wantJobs: []string{"chaos=RANDOM_MAX+LOCALE 4", " 4", " 1", " 1", " 1", " 1", " 1",
				"chaos=RANDOM_MAX 1", // alone: passes
				"chaos=RANDOM_MAX 1", // and the rerun beside it, for a finding alone that did not come
				"chaos=RANDOM_MAX 2", // its class: passes
				"chaos=RANDOM_MAX 4", // the suite's order up to it: fails (alone and after its class it passed above)
				// The control runs like it: its reproduce order unperturbed, four more after the suite's run.
				" 4", " 4", " 4", " 4",
				"chaos=RANDOM_MAX 4", // and again
			},
			wantRuns: []string{"combined fail 4", "RANDOM_MAX pass 1", "RANDOM_MAX pass 2", "RANDOM_MAX fail 4", "unperturbed pass 4",
				"unperturbed pass 4", "unperturbed pass 4", "unperturbed pass 4", "unperturbed pass 4", "RANDOM_MAX fail 4"},
			order: 4,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &fakeRunner{suite: map[string]behaviour{
				"p.B#fails": {sites: map[string][]siteAt{"RANDOM": {diceSite}}, fails: anyOf("RANDOM_MAX"), after: tt.after},
			}}
			res, err := Run(context.Background(), r, Config{Tests: order, Mode: Combined, Strategies: mustLookup("RANDOM_MAX", "LOCALE"), Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			var jobs []string
			for _, j := range r.jobs {
				jobs = append(jobs, strings.Join(encoded(j.AgentOptions), ",")+" "+strconv.Itoa(len(j.Order)))
			}
			if !sameJobs(jobs, tt.wantJobs) {
				t.Errorf("jobs:\n got %q\nwant %q", jobs, tt.wantJobs)
			}
			if got, want := summarize(res.Findings), []summary{{"p.B#fails", "RANDOM_MAX", true, []report.CallSite{cs(diceSite)}}}; !reflect.DeepEqual(got, want) {
				t.Fatalf("findings:\n got %+v\nwant %+v", got, want)
			}
			f := res.Findings[0]
			var runs []string
			for _, e := range f.Evidence {
				runs = append(runs, e.Run+" "+string(e.Outcome)+" "+strconv.Itoa(len(e.Order)))
			}
			if !slices.Equal(runs, tt.wantRuns) {
				t.Errorf("evidence:\n got %q\nwant %q", runs, tt.wantRuns)
			}
			if len(f.Order) != tt.order || f.Order[len(f.Order)-1] != "p.B#fails" {
				t.Errorf("order %q, want %d entries ending with p.B#fails", f.Order, tt.order)
			}
		})
	}
}

// TestClassOrder checks the order of an attribution run on the failing
// tests' classes: each class's entries as the suite runs them, nested
// classes with their top-level class, up to the last failing test.
func TestClassOrder(t *testing.T) {
	suite := []string{"p.A#a", "p.B#b1", "p.B$Inner#i", "p.C#c", "p.B#b2", "p.D#d", "p.A#last", "p.D#e"}
	tests := []struct {
		name    string
		failing []string
		want    []string
	}{
		{"one class, up to the failure", []string{"p.B#b2"}, []string{"p.B#b1", "p.B$Inner#i", "p.B#b2"}},
		{"a nested class's failure runs its top-level class", []string{"p.B$Inner#i"}, []string{"p.B#b1", "p.B$Inner#i"}},
		{"two classes, up to the last failure", []string{"p.A#a", "p.B#b1"}, []string{"p.A#a", "p.B#b1"}},
		{"an invocation runs its template's class", []string{"p.D#d[2]", "p.C#c"}, []string{"p.C#c", "p.D#d"}},
		{"a class's later entries after another's", []string{"p.A#last", "p.C#c"}, []string{"p.A#a", "p.C#c", "p.A#last"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &analysis{cfg: Config{Tests: suite}}
			if got := a.classOrder(tt.failing); !slices.Equal(got, tt.want) {
				t.Errorf("classOrder(%q) = %q, want %q", tt.failing, got, tt.want)
			}
		})
	}
}

// TestCovers checks which attribution runs answer for a candidate: for the
// tests alone, any run with its test; on its classes, a run in which its
// class's entries before it are the suite's; on the suite's order, only a
// run whose order up to the test is the suite's.
func TestCovers(t *testing.T) {
	suite := []string{"p.A#a", "p.B#b1", "p.B#b2"}
	c := &candidate{test: "p.B#b2", entry: 2}
	tests := []struct {
		name  string
		order []string
		scope scope
		want  int
	}{
		{"the test alone for the tests", []string{"p.B#b2"}, scopeTests, 0},
		{"the test alone is not its class", []string{"p.B#b2"}, scopeClasses, -1},
		{"its class's run on its classes", []string{"p.B#b1", "p.B#b2"}, scopeClasses, 1},
		{"its class's run is not the suite's order", []string{"p.B#b1", "p.B#b2"}, scopeSuite, -1},
		{"the suite's order answers on its classes too", suite, scopeClasses, 2},
		{"the suite's order", suite, scopeSuite, 2},
		{"a run without the test", []string{"p.A#a", "p.B#b1"}, scopeTests, -1},
		{"the same tests in another order", []string{"p.B#b1", "p.A#a", "p.B#b2"}, scopeSuite, -1},
		{"its class in another order", []string{"p.B#b2", "p.B#b1"}, scopeClasses, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &analysis{cfg: Config{Tests: suite}}
			if got := a.covers(singleRun{order: tt.order}, c, tt.scope); got != tt.want {
				t.Errorf("covers(%q, scope %d) = %d, want %d", tt.order, tt.scope, got, tt.want)
			}
		})
	}
}

// TestTestsOrder checks the order of a run of the failing tests alone: their
// entries as the suite runs them, an invocation's as its template's.
func TestTestsOrder(t *testing.T) {
	suite := []string{"p.A#a", "p.B#b1", "p.C#c", "p.B#b2", "p.D#d"}
	a := &analysis{cfg: Config{Tests: suite}}
	got := a.testsOrder([]string{"p.D#d[2]", "p.B#b2", "p.A#a", "p.D#d[1]"})
	if want := []string{"p.A#a", "p.B#b2", "p.D#d"}; !slices.Equal(got, want) {
		t.Errorf("testsOrder = %q, want %q", got, want)
	}
}

// TestStartOrder checks that the longest expected job starts first, a
// perturbed one by its tests' perturbed durations (invocations summed per
// template), and that jobs waiting for the budget come last.
func TestStartOrder(t *testing.T) {
	ran := func(times map[string]int64) *launcher.Result {
		r := &launcher.Result{}
		for _, test := range slices.Sorted(maps.Keys(times)) {
			r.Tests = append(r.Tests, launcher.TestResult{Test: test, Outcome: launcher.Pass, TimeMs: times[test]})
		}
		return r
	}
	a := &analysis{
		baseline:      []*launcher.Result{ran(map[string]int64{"p.A#a": 500, "p.B#b": 10, "p.C#c": 20, "p.D#d[1]": 30, "p.D#d[2]": 40})},
		perturbedRuns: []*launcher.Result{ran(map[string]int64{"p.A#a": 600, "p.B#b": 4000, "p.C#c": 20})},
		deadline:      time.Now().Add(time.Minute),
	}
	job := func(order []string, strategies ...string) launcher.Job {
		j := launcher.Job{Order: order}
		if len(strategies) > 0 {
			opts, err := Settings{}.AgentOptions(mustLookup(strategies...))
			if err != nil {
				t.Fatal(err)
			}
			j.AgentOptions = opts
		}
		return j
	}
	jobs := []launcher.Job{
		job([]string{"p.A#a", "p.B#b"}),                   // 510 ms unperturbed
		job([]string{"p.C#c"}, "LOCALE"),                  // 20 ms
		job([]string{"p.B#b"}, "NETWORK_DELAY"),           // 4000 ms perturbed
		job([]string{"p.D#d"}),                            // 70 ms, its two invocations
		job([]string{"p.A#a", "p.C#c"}, "SLEEP_INCREASE"), // 620 ms
	}
	tests := []struct {
		name     string
		deadline time.Time
		mustRun  int
		want     []int
	}{
		{"budget sized: longest first", a.deadline, 1, []int{2, 4, 0, 3, 1}},
		{"budget not sized: the must-run jobs first", time.Time{}, 2, []int{0, 1, 2, 4, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a.deadline = tt.deadline
			if got := a.startOrder(jobs, tt.mustRun); !slices.Equal(got, tt.want) {
				t.Errorf("startOrder = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestJudgeUnperturbedSkipsCutRuns judges a test by the runs that ended: a
// control run cut short (nil) is no run. Its evidence leaves out the
// perturbed passes after the first.
func TestJudgeUnperturbedSkipsCutRuns(t *testing.T) {
	order := []string{"p.A#a", "p.F#f"}
	run := func(outcome launcher.Outcome) *launcher.Result {
		return &launcher.Result{Order: order, Tests: []launcher.TestResult{{Test: "p.A#a", Outcome: launcher.Pass}, {Test: "p.F#f", Outcome: outcome}}}
	}
	// Single mode: a perturbed run per strategy.
	a := &analysis{cfg: Config{Tests: order, Mode: Single, Log: logs.Printf(t.Logf)}, res: &Result{Strategies: slices.Concat(mustLookup("LOCALE"), mustLookup("RANDOM_MAX"), mustLookup("DATE_FIXED"))},
		baseline: []*launcher.Result{run(launcher.Fail)}, controlRuns: []*launcher.Result{nil, run(launcher.Pass)},
		perturbedRuns: []*launcher.Result{run(launcher.Pass), run(launcher.Pass), run(launcher.Fail)}}
	if a.judgeUnperturbed("p.F#f") {
		t.Fatal("a test that failed unperturbed judged as never failing")
	}
	if len(a.res.NOD) != 1 || a.res.NOD[0].Runs != 2 || a.res.NOD[0].PerturbedRuns != 3 || !slices.Equal(a.res.NOD[0].Order, order) {
		t.Fatalf("nod = %+v, want 1 of 2 unperturbed runs, 3 perturbed, the suite's order", a.res.NOD)
	}
	// The evidence: the unperturbed runs, the first perturbed pass and the perturbed failure.
	var runs []string
	for _, e := range a.res.NOD[0].Evidence {
		runs = append(runs, e.Run+" "+e.Detail+" "+string(e.Outcome))
	}
	if want := []string{"unperturbed  fail", "unperturbed control run pass", "LOCALE  pass", "DATE_FIXED  fail"}; !slices.Equal(runs, want) {
		t.Errorf("evidence %q, want %q", runs, want)
	}
}

// loadFunc is a jvmLoad whose waiting JVMs the function says.
type loadFunc func() int

func (f loadFunc) WaitingJVMs() int { return f() }

// allWait is a jvmLoad of r in which every running JVM waits.
func allWait(r *fakeRunner) jvmLoad {
	return loadFunc(func() int { r.mu.Lock(); defer r.mu.Unlock(); return r.running })
}

// TestAutoWorkers checks that AutoWorkers starts more JVMs than Workers (up
// to maxSpare times as many) only while fewer than Workers of those running
// keep a core busy, and that without it, or with a runner that does not
// measure its JVMs, Workers bounds the JVMs. The runner's delay and the
// analysis' settle and recheck intervals run on the bubble's fake clock.
func TestAutoWorkers(t *testing.T) {
	tests := []struct {
		name string
		auto bool
		load func(r *fakeRunner) jvmLoad // nil: the runner's own (none)
		want int
	}{
		{"the JVMs wait", true, allWait, maxSpare},
		{"the JVMs keep their cores busy", true, func(*fakeRunner) jvmLoad { return loadFunc(func() int { return 0 }) }, 1},
		{"without AutoWorkers", false, allWait, 1},
		{"a runner that does not measure its JVMs", true, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, bubbled(func(t *testing.T) {
			// Long enough for every spare to start while the first JVMs run.
			r := &fakeRunner{suite: map[string]behaviour{}, delay: maxSpare * (spareSettle + spareInterval)}
			cfg := Config{Tests: []string{"p.A#a"}, Mode: Single, Strategies: mustLookup("RANDOM_MAX", "LOCALE", "DATE_FIXED"),
				Workers: 1, AutoWorkers: tt.auto}
			if tt.load != nil {
				cfg.load = tt.load(r)
			}
			if _, err := Run(context.Background(), r, cfg); err != nil {
				t.Fatal(err)
			}
			if r.mostRunning != tt.want {
				t.Errorf("most JVMs at once = %d, want %d", r.mostRunning, tt.want)
			}
		}))
	}
}

// prestartRunner is a fakeRunner that starts JVMs ahead (prestarter): it
// records each call and whether the combined run's job was running then.
type prestartRunner struct {
	*fakeRunner
	prestarts, duringCombined int
	options                   []agent.Options
	upTo                      []int
}

func (p *prestartRunner) Prestart(opts agent.Options, upTo int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.prestarts++
	if p.combinedRuns > 0 {
		p.duringCombined++
	}
	p.options, p.upTo = append(p.options, opts), append(p.upTo, upTo)
	return true
}

// TestPrestartControls checks that combined mode starts JVMs for control
// runs ahead, unperturbed and up to a test's control runs' worth, only
// while the combined run's JVM runs, once a test failed in it, and only
// with AutoWorkers. The runner's delays and the analysis' settle and
// recheck intervals run on the bubble's fake clock.
func TestPrestartControls(t *testing.T) {
	// p.B#dice fails with RANDOM_MAX halfway through the combined run: its
	// attribution and control runs start at once, and JVMs start ahead
	// once they all have.
	dice := map[string]behaviour{"p.B#dice": {sites: map[string][]siteAt{"RANDOM": {diceSite}}, fails: anyOf("RANDOM_MAX")}}
	tests := []struct {
		name    string
		suite   map[string]behaviour
		auto    bool
		several bool // else none
		// jobs is how long the jobs after the combined run's take, in
		// spare intervals: long enough to outlast it where JVMs start ahead.
		jobs time.Duration
	}{
		{"a test fails", dice, true, true, 5},
		{"without AutoWorkers", dice, false, false, 1},
		{"no test fails", map[string]behaviour{}, true, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, bubbled(func(t *testing.T) {
			r := &prestartRunner{fakeRunner: &fakeRunner{suite: tt.suite, stream: true,
				delay: tt.jobs * (spareSettle + spareInterval), slowCombined: 16 * (spareSettle + spareInterval)}}
			cfg := Config{Tests: []string{"p.B#dice", "p.A#a"}, Mode: Combined, Strategies: mustLookup("RANDOM_MAX", "LOCALE"), Workers: 2,
				AutoWorkers: tt.auto, load: allWait(r.fakeRunner)}
			if _, err := Run(context.Background(), r, cfg); err != nil {
				t.Fatal(err)
			}
			if !tt.several {
				if r.prestarts != 0 {
					t.Errorf("%d JVMs started ahead, want none", r.prestarts)
				}
				return
			}
			if r.prestarts < 2 || r.duringCombined != r.prestarts {
				t.Errorf("%d JVMs started ahead, %d while the combined run ran: want several, all then", r.prestarts, r.duringCombined)
			}
			for i, o := range r.options {
				if len(o.Chaos.Strategies) != 0 || r.upTo[i] != ControlRuns {
					t.Errorf("started ahead with strategies %v up to %d, want none up to %d", o.Chaos.Strategies, r.upTo[i], ControlRuns)
				}
			}
		}))
	}
}

// TestPrestartUnperturbed checks that the suite's unperturbed run's JVM
// starts ahead with the options that run uses (no strategy), one of them,
// and only on a Runner that can.
func TestPrestartUnperturbed(t *testing.T) {
	r := &prestartRunner{fakeRunner: &fakeRunner{}}
	s := Settings{Include: []string{"com.acme"}}
	if !PrestartUnperturbed(r, s) {
		t.Fatal("started none")
	}
	want, err := s.AgentOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.prestarts != 1 || !reflect.DeepEqual(r.options[0], want) || r.upTo[0] != 1 {
		t.Errorf("started %d with %+v up to %v, want 1 with %+v up to 1", r.prestarts, r.options, r.upTo, want)
	}
	if PrestartUnperturbed(&fakeRunner{}, s) {
		t.Error("a Runner that cannot start JVMs ahead started one")
	}
}

// The JVMs of a split job add up to its result only when the last one ends,
// joined in the order's order whatever order they ended in; none when one
// of them failed.
func TestPiecesAdd(t *testing.T) {
	order := []string{"p.A#a", "p.B#b", "p.C#c"}
	ran := func(from, to int) *launcher.Result {
		r := &launcher.Result{Order: order[from:to], ClassScopes: map[string]int{}}
		for _, test := range order[from:to] {
			r.Tests = append(r.Tests, launcher.TestResult{Test: test, Outcome: launcher.Pass})
		}
		return r
	}
	tests := []struct {
		name   string
		failed int // the JVM that failed, -1 for none
		want   []string
	}{
		{name: "all ran", failed: -1, want: order},
		{name: "one failed", failed: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jvms := []*jvm{{from: 0}, {from: 1}, {from: 2}}
			p := &pieces{running: slices.Clone(jvms)}
			// The last part ends first, the first part last.
			for k, i := range []int{2, 1, 0} {
				r := ran(i, i+1)
				if i == tt.failed {
					r = nil
				}
				whole, last := p.add(jvms[i], r)
				if last != (k == 2) {
					t.Fatalf("after JVM %d ended: last = %v", i, last)
				}
				if !last && whole != nil {
					t.Fatalf("a result before the last JVM ended")
				}
				if last {
					var got []string
					if whole != nil {
						got = whole.Order
					}
					if !slices.Equal(got, tt.want) {
						t.Errorf("joined order = %v, want %v", got, tt.want)
					}
				}
			}
		})
	}
}
