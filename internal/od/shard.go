package od

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/internal/saferead"
	"github.com/flakyhq/flaky/internal/safewrite"
	"github.com/flakyhq/flaky/internal/testid"
)

// Shard picks one of N disjoint shares of the detection orders: the
// orders whose position in the plan is I-1 modulo N. The plan derives from
// the seed, so shards of one seed together run exactly the orders of an
// unsharded analysis. The zero Shard is the whole plan.
type Shard struct {
	I, N int
}

// ParseShard reads "I/N" (1 <= I <= N).
func ParseShard(s string) (Shard, error) {
	var sh Shard
	if _, err := fmt.Sscanf(s, "%d/%d", &sh.I, &sh.N); err != nil || sh.N < 1 || sh.I < 1 || sh.I > sh.N || fmt.Sprintf("%d/%d", sh.I, sh.N) != s {
		return Shard{}, fmt.Errorf("shard %q: want I/N with 1 <= I <= N", s)
	}
	return sh, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// takes reports whether the shard runs the detection order at position i.
func (s Shard) takes(i int) bool {
	return s.N <= 1 || i%s.N == s.I-1
}

// Run is one recorded run of a shard: which step of the plan it was and
// what the JVM reported, enough to replay it into a merged analysis.
type Run struct {
	Gen         string                `json:"gen"`
	Label       string                `json:"label"`
	Plan        int                   `json:"plan"` // position in the detection plan; -1 for the original runs
	Order       []string              `json:"order"`
	Tests       []launcher.TestResult `json:"tests"`
	ClassScopes map[string]int        `json:"classScopes,omitempty"`
	Clashed     []string              `json:"clashed,omitempty"`
	DurationMs  int64                 `json:"durationMs"`
	// Warm says the run was in a warm JVM (Config.Warm): a candidate's
	// evidence, never a finding's.
	Warm bool `json:"warm,omitempty"`
}

// result turns a recorded run back into the launcher's result.
func (r Run) result() *launcher.Result {
	return &launcher.Result{Order: r.Order, Tests: r.Tests, ClassScopes: r.ClassScopes, Clashed: r.Clashed, Duration: time.Duration(r.DurationMs) * time.Millisecond, Warm: r.Warm}
}

// Partial is a shard's part of an analysis (target/flaky/shard-I-of-N.json).
type Partial struct {
	Version  int      `json:"version"`
	Seed     int64    `json:"seed"`
	Shard    string   `json:"shard"`
	Tests    []string `json:"tests"`
	Rounds   int      `json:"rounds"` // Config.Rounds the shard ran with
	Coverage struct {
		Orders          int  `json:"orders"`
		BudgetExhausted bool `json:"budgetExhausted"`
	} `json:"coverage"`
	Runs []Run `json:"runs"`
}

// partialVersion is the version of the partial report format.
const partialVersion = 1

// PartialName is the file name of shard s's partial report.
func PartialName(s Shard) string {
	return fmt.Sprintf("shard-%d-of-%d.json", s.I, s.N)
}

// NewPartial describes a shard's result for its partial report.
func NewPartial(cfg Config, res *Result) *Partial {
	p := &Partial{Version: partialVersion, Seed: cfg.Seed, Shard: cfg.Shard.String(), Tests: cfg.Tests, Rounds: cfg.Rounds, Runs: res.Runs}
	p.Coverage.Orders, p.Coverage.BudgetExhausted = res.Coverage.Orders, res.Coverage.BudgetExhausted
	return p
}

// WritePartial writes p into dir atomically and returns its path.
func WritePartial(dir string, p *Partial) (string, error) {
	sh, err := ParseShard(p.Shard)
	if err != nil {
		return "", err
	}
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	path := filepath.Join(dir, PartialName(sh))
	tmp, err := safewrite.CreateTemp(dir, ".shard-*.tmp")
	if err != nil {
		return "", fmt.Errorf("write partial report: %w", err)
	}
	defer safewrite.Forget(tmp.Name())
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return "", fmt.Errorf("write partial report: %w", err)
	}
	return path, nil
}

// MaxPartialSize bounds a partial report file: far more than the runs of
// a shard of a large suite take, far less than what would exhaust memory.
const MaxPartialSize = 128 << 20

// unknownTests are the test ids p's runs name (in their orders and
// results) that are not in p.Tests, sorted: ids are compared without their
// invocation suffix (a parameterized test's m[2] is m's), and a class-level
// id of one of the suite's classes is known.
func (p *Partial) unknownTests() []string {
	methods, classes := map[testid.ID]bool{}, map[string]bool{}
	for _, t := range p.Tests {
		id := testid.Parse(t)
		methods[id.Base()], classes[id.Class] = true, true
	}
	known := func(t string) bool {
		id := testid.Parse(t)
		return methods[id.Base()] || id.Method == "" && classes[id.Class]
	}
	unknown := map[string]bool{}
	for _, r := range p.Runs {
		for _, t := range r.Order {
			if !known(t) {
				unknown[t] = true
			}
		}
		for _, t := range r.Tests {
			if !known(t.Test) {
				unknown[t.Test] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(unknown))
}

// SuiteDiff says how the shards' suite differs from the module's tests:
// the tests only the shards ran (unknown to the module) and those only the
// module has, a few of each; when they hold the same tests in another
// order (which also keeps a merge from replaying the shards' plan), it
// says so.
func SuiteDiff(module, shards []string) string {
	in := func(ids []string) map[string]bool {
		m := map[string]bool{}
		for _, id := range ids {
			m[id] = true
		}
		return m
	}
	mod, sh := in(module), in(shards)
	var unknown, missing []string
	for _, id := range shards {
		if !mod[id] {
			unknown = append(unknown, id)
		}
	}
	for _, id := range module {
		if !sh[id] {
			missing = append(missing, id)
		}
	}
	var out string
	if len(unknown) > 0 {
		out += "; not in the module: " + ListSome(unknown, 5)
	}
	if len(missing) > 0 {
		out += "; not run by the shards: " + ListSome(missing, 5)
	}
	if out == "" {
		return "; the same tests in another order"
	}
	return out
}

// ListSome lists the first n of ids, and how many more there are.
func ListSome(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:n], ", "), len(ids)-n)
}

// ReadPartials reads the partial report in each of dirs (a shard's
// target/flaky) and checks that they are the N distinct shards of one
// analysis: one seed, one suite, one N, one number of rounds.
func ReadPartials(dirs []string) ([]*Partial, error) {
	var parts []*Partial
	seen := map[string]string{}
	for _, dir := range dirs {
		matches, _ := filepath.Glob(filepath.Join(dir, "shard-*-of-*.json"))
		if len(matches) != 1 {
			return nil, fmt.Errorf("%s: want exactly one shard-I-of-N.json (a shard's target/flaky), found %d", dir, len(matches))
		}
		data, err := saferead.ReadFile(matches[0], MaxPartialSize, "a partial report")
		if err != nil {
			return nil, err
		}
		var p Partial
		if err := json.Unmarshal(data, &p); err != nil {
			return nil, fmt.Errorf("%s: %w", matches[0], err)
		}
		if p.Version != partialVersion {
			return nil, fmt.Errorf("%s: partial report version %d, want %d", matches[0], p.Version, partialVersion)
		}
		if unknown := p.unknownTests(); len(unknown) > 0 {
			return nil, fmt.Errorf("%s: its runs name tests that are not in its suite: %s", matches[0], ListSome(unknown, 5))
		}
		if prev, ok := seen[p.Shard]; ok {
			return nil, fmt.Errorf("shard %s given twice: %s and %s", p.Shard, prev, matches[0])
		}
		seen[p.Shard] = matches[0]
		parts = append(parts, &p)
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("no partial reports")
	}
	first, err := ParseShard(parts[0].Shard)
	if err != nil {
		return nil, err
	}
	for _, p := range parts[1:] {
		sh, err := ParseShard(p.Shard)
		switch {
		case err != nil:
			return nil, err
		case sh.N != first.N:
			return nil, fmt.Errorf("shards of different splits: %s and %s", parts[0].Shard, p.Shard)
		case p.Seed != parts[0].Seed:
			return nil, fmt.Errorf("shards of different seeds: %d and %d (give every shard the same --seed)", parts[0].Seed, p.Seed)
		case p.Rounds != parts[0].Rounds || !slices.Equal(p.Tests, parts[0].Tests):
			return nil, fmt.Errorf("shards %s and %s ran different suites or rounds", parts[0].Shard, p.Shard)
		}
	}
	if len(parts) != first.N {
		return nil, fmt.Errorf("%d of %d shards given", len(parts), first.N)
	}
	return parts, nil
}

// MergeRuns returns the runs of the partials, the original runs first,
// then in the order of the detection plan.
func MergeRuns(parts []*Partial) []Run {
	var runs []Run
	for _, p := range parts {
		runs = append(runs, p.Runs...)
	}
	slices.SortStableFunc(runs, func(x, y Run) int { return x.Plan - y.Plan })
	return runs
}
