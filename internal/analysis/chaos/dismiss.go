package chaos

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// Dismissal is a perturbed failure that is not the test's flakiness.
type Dismissal struct {
	Test     string
	Strategy string // the strategy, or the '+'-joined set of a combined run
	Why      string
}

// frameworkTimeouts match a test framework's own timeout anywhere in a
// failure's type, message or stack (causes included, and the message of a
// wrapper such as JUnit 4's ExpectedException, "Expected X but: <...
// TestTimedOutException: test timed out after 2000 milliseconds>"):
// JUnit 4's TestTimedOutException, Jupiter's @Timeout TimeoutException
// ("m() timed out after 2 seconds") and JUnit 4.11's plain Exception ("test
// timed out after 2000 milliseconds"). The unit may be in another locale's
// casing ("mıllıseconds").
var frameworkTimeouts = []*regexp.Regexp{
	regexp.MustCompile(`(?:org\.junit\.runners\.model\.TestTimedOutException|java\.util\.concurrent\.TimeoutException): [^\n]*?timed out after (\d+) (\pL+)`),
	regexp.MustCompile(`java\.lang\.Exception: test timed out after (\d+) (\pL+)`),
}

// frameworkLimit returns the limit of a test framework's own timeout that
// ended a test, or false when t did not fail that way.
func frameworkLimit(t launcher.TestResult) (time.Duration, bool) {
	text := t.FailureType + ": " + t.Message + "\n" + t.Stack
	var m []string
	for _, re := range frameworkTimeouts {
		if m = re.FindStringSubmatch(text); m != nil {
			break
		}
	}
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return 0, false
	}
	unit := strings.NewReplacer("ı", "i", "İ", "i").Replace(strings.ToLower(m[2]))
	for _, u := range []struct {
		prefix string
		d      time.Duration
	}{{"nano", time.Nanosecond}, {"micro", time.Microsecond}, {"milli", time.Millisecond}, {"min", time.Minute}, {"sec", time.Second}, {"hour", time.Hour}, {"day", 24 * time.Hour}} {
		if strings.HasPrefix(unit, u.prefix) {
			return time.Duration(n) * u.d, true
		}
	}
	return 0, false
}

// stretchesWaits are the strategies that make a test take longer in real
// time without the test assuming anything about it: TIME_INCREMENT and
// TIME_SLOW pause threads that read the clock (within a budget per test),
// TIME_ROUNDING makes a wait on the clock last until the next tick.
var stretchesWaits = map[string]bool{"TIME_INCREMENT": true, "TIME_SLOW": true, "TIME_ROUNDING": true, "SLEEP_INCREASE": true}

// dismiss excuses, in the perturbed run r with strategies set, the failures
// that are not the test's flakiness, and marks them passed so that no
// finding is made of them:
//   - under TIME_INCREMENT, TIME_SLOW, TIME_ROUNDING and SLEEP_INCREASE, a test framework's own timeout
//     (which measures real time) unless the test took at least half that
//     limit unperturbed;
//   - under LOCALE and TIMEZONE, a framework's timeout at all: the
//     perturbation only changed how its message is formatted.
//
// With several strategies, a framework timeout is excused when one of them
// stretches waits or formats (and the test is far from the limit). A hang
// under a RANDOM strategy needs no rerun of its own: the perturbed run
// already returns extremes only the first few times per call site
// (chaos.random.limit), so a correct rejection-sampling loop ends there.
func (a *analysis) dismiss(set []Strategy, r *launcher.Result) {
	if r == nil {
		return
	}
	for i, t := range r.Tests {
		if why := a.excusal(set, t); why != "" {
			a.excuse(r, i, Join(set), why)
		}
	}
}

// excusal says why dismiss excuses t, a result of a run with set, or "".
func (a *analysis) excusal(set []Strategy, t launcher.TestResult) string {
	if !t.Outcome.Failed() {
		return ""
	}
	formatsOnly, stretch := true, ""
	for _, s := range set {
		formatsOnly = formatsOnly && s.Group == "LOCALE"
		if stretchesWaits[s.ID] || s.Group == "LOCALE" {
			stretch = s.ID
		}
	}
	limit, framework := frameworkLimit(t)
	took, ran := a.unperturbedTime(t.Test)
	switch {
	case framework && formatsOnly:
		return fmt.Sprintf("the test framework's own %s timeout ended it; %s only changed how its message reads", limit, Join(set))
	case framework && stretch != "" && ran && took < limit/2:
		return fmt.Sprintf("%s stretched it past the test framework's own %s timeout, which measures real time; unperturbed it takes %s", stretch, limit, took)
	}
	return ""
}

// excuse records a dismissal and marks the perturbed result passed.
func (a *analysis) excuse(r *launcher.Result, i int, label, why string) {
	t := &r.Tests[i]
	a.res.Dismissed = append(a.res.Dismissed, Dismissal{Test: t.Test, Strategy: label, Why: why})
	a.cfg.Log.Logf("not reporting %s under %s: %s", t.Test, label, why)
	t.Outcome = launcher.Pass
	t.Message = "(failure dismissed: " + why + ")\n" + t.Message
}

// unperturbedTime is the longest time test took in the unperturbed runs
// where it passed.
func (a *analysis) unperturbedTime(test string) (time.Duration, bool) {
	var took time.Duration
	found := false
	for _, r := range a.baseline {
		if t, ok := resultOf(r, test); ok && t.Outcome == launcher.Pass {
			took, found = max(took, time.Duration(t.TimeMs)*time.Millisecond), true
		}
	}
	return took, found
}
