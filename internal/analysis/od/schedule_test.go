package od

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// analysisWith returns an analysis of tests whose original run took the
// given test times plus one second of JVM start.
func analysisWith(times map[string]int64, order []string) *recorder {
	r := &launcher.Result{Order: order, Duration: time.Second}
	for _, t := range order {
		r.Tests = append(r.Tests, launcher.TestResult{Test: t, Outcome: launcher.Pass, TimeMs: times[t]})
		r.Duration += time.Duration(times[t]) * time.Millisecond
	}
	return &recorder{originals: []*launcher.Result{r}}
}

func TestScheduleRunsCheapOrdersFirst(t *testing.T) {
	suite := []string{"a.A#slow", "a.A#fast", "b.B#mid"}
	a := analysisWith(map[string]int64{"a.A#slow": 4000, "a.A#fast": 10, "b.B#mid": 500}, suite)
	plan := []plannedOrder{
		{gen: GenReverseClasses, tests: []string{"b.B#mid", "a.A#slow", "a.A#fast"}},
		{gen: GenTwice, tests: []string{"a.A#slow", "a.A#slow", "a.A#fast", "a.A#fast", "b.B#mid", "b.B#mid"}},
		{gen: GenIsolation, tests: []string{"a.A#slow"}},
		{gen: GenReverseMethods, tests: []string{"a.A#fast", "a.A#slow", "b.B#mid"}},
		{gen: GenIsolation, tests: []string{"a.A#fast"}},
		{gen: GenIsolation, tests: []string{"b.B#mid"}},
	}
	for i := range plan {
		plan[i].plan = i
	}
	got := (&ordering{a}).schedule(slices.Clone(plan))
	var positions []int
	for _, o := range got {
		positions = append(positions, o.plan)
	}
	// Costs: exploration 5.51 s each; alone fast 1.01 s, mid 1.5 s, slow 5 s; twice 10 s.
	want := []int{4, 0, 5, 2, 3, 1}
	if !slices.Equal(positions, want) {
		t.Errorf("scheduled plan positions %v, want %v", positions, want)
	}
}

// TestSizeWorkers sizes the workers from what a JVM of the suite demanded
// of the cores (CPU time plus time waiting for one): the same on a busy
// machine as on a quiet one, and more than the cores only when the JVMs
// provably waited.
func TestSizeWorkers(t *testing.T) {
	cores := runtime.NumCPU()
	for _, tt := range []struct {
		name     string
		cpu      time.Duration // per second of wall time
		delay    time.Duration // waiting for a core, per second of wall time
		known    bool          // the system said how long threads waited for a core
		rss      int64
		want     int
		memBound bool
	}{
		{"one core per JVM", time.Second, 0, true, 1 << 20, cores, false},
		{"one core per JVM, other processes keeping the cores busy", 100 * time.Millisecond, 900 * time.Millisecond, true, 1 << 20, cores, false},
		{"two cores per JVM", 2 * time.Second, 0, true, 1 << 20, max(1, (cores+1)/2), false},
		{"a JVM that mostly waits", 100 * time.Millisecond, 0, true, 1 << 20, 2 * cores, false},
		{"a JVM that mostly waits where the system does not say", 100 * time.Millisecond, 0, false, 1 << 20, cores, false},
		{"more memory than there is", time.Second, 0, true, 1 << 50, 1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.memBound && launcher.AvailableMemory() == 0 {
				t.Skip("available memory unknown here")
			}
			r := &launcher.Result{Duration: time.Second, CPU: tt.cpu, RunDelay: tt.delay, DelayKnown: tt.known, MaxRSS: tt.rss}
			a := &recorder{cfg: Config{Workers: 1, Log: logs.Logger{}}, originals: []*launcher.Result{r}}
			a.sizeWorkers()
			if a.cfg.Workers != tt.want || a.cov.WorkersWhy == "" {
				t.Errorf("workers %d (%s), want %d", a.cfg.Workers, a.cov.WorkersWhy, tt.want)
			}
		})
	}
}
