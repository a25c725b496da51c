package od

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/base/saferead"
	"github.com/flakyhq/flaky/internal/base/safewrite"
	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/launcher"
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

// RecordedRun is one recorded run of a shard: which step of the plan it was and
// what the JVM reported, enough to replay it into a merged analysis.
type RecordedRun struct {
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
	// Part is the shard whose part recorded the run (MergeRuns sets it).
	Part string `json:"-"`
}

// result turns a recorded run back into the launcher's result.
func (r RecordedRun) result() *launcher.Result {
	return &launcher.Result{Order: r.Order, Tests: r.Tests, ClassScopes: r.ClassScopes, Clashed: r.Clashed, Duration: time.Duration(r.DurationMs) * time.Millisecond, Warm: r.Warm}
}

// Partial is a shard's part of an analysis (target/flaky/shard-I-of-N.json).
type Partial struct {
	Version int      `json:"version"`
	Seed    int64    `json:"seed"`
	Shard   string   `json:"shard"`
	Tests   []string `json:"tests"`
	Rounds  int      `json:"rounds"` // Config.Rounds the shard ran with
	// Classes is the SHA-256 of the module's class files the shard ran
	// (see pipeline's classesDigest); Commit the commit checked out, when
	// known.
	Classes  string `json:"classes"`
	Commit   string `json:"commit,omitempty"`
	Coverage struct {
		Orders          int  `json:"orders"`
		BudgetExhausted bool `json:"budgetExhausted"`
	} `json:"coverage"`
	Runs []RecordedRun `json:"runs"`
	// Digest is the SHA-256 of the rest of the part (contentDigest), which
	// WritePartial sets and ReadPartials checks: it finds a part damaged
	// or edited since, unless whoever edited it computed it again (it is
	// no signature).
	Digest string `json:"digest"`
	// Path is the file ReadPartials read the part from.
	Path string `json:"-"`
}

// partialVersion is the version of the partial report format: 2 added
// the classes and the digest.
const partialVersion = 2

// contentDigest is "sha256:" and the hex SHA-256 of p's JSON encoding
// without its digest: encoding/json writes the fields in their order and
// map keys sorted, so a part read back gives the digest it was written with.
func (p *Partial) contentDigest() (string, error) {
	c := *p
	c.Digest, c.Path = "", ""
	data, err := json.Marshal(&c)
	if err != nil {
		return "", fmt.Errorf("digest of a partial report: %w", err)
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

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
	if p.Digest, err = p.contentDigest(); err != nil {
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
	if err := safewrite.Atomic(path, append(data, '\n'), 0o644); err != nil {
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
// target/flaky), checks each against its digest, and checks that they are
// the N distinct shards of one analysis: one seed, one suite, one N, one
// number of rounds, the same classes. A part that fails a check is
// refused by its file's name.
func ReadPartials(dirs []string) ([]*Partial, error) {
	var parts []*Partial
	seen := map[string]string{}
	for _, dir := range dirs {
		p, err := readPartial(dir)
		if err != nil {
			return nil, err
		}
		if prev, ok := seen[p.Shard]; ok {
			return nil, fmt.Errorf("shard %s given twice: %s and %s", p.Shard, prev, p.Path)
		}
		seen[p.Shard] = p.Path
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("no partial reports")
	}
	first, err := ParseShard(parts[0].Shard)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", parts[0].Path, err)
	}
	for _, p := range parts[1:] {
		if err := p.sameAnalysis(parts[0], first); err != nil {
			return nil, err
		}
	}
	if len(parts) != first.N {
		return nil, fmt.Errorf("%d of %d shards given", len(parts), first.N)
	}
	return parts, nil
}

// readPartial reads the one partial report in dir and checks it on its
// own: format version, digest, the tests its runs name.
func readPartial(dir string) (*Partial, error) {
	matches, _ := filepath.Glob(filepath.Join(dir, "shard-*-of-*.json"))
	if len(matches) != 1 {
		return nil, fmt.Errorf("%s: want exactly one shard-I-of-N.json (a shard's target/flaky), found %d", dir, len(matches))
	}
	path := matches[0]
	data, err := saferead.ReadFile(path, MaxPartialSize, "a partial report")
	if err != nil {
		return nil, err
	}
	p := &Partial{}
	if err := json.Unmarshal(data, p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p.Path = path
	if p.Version != partialVersion {
		return nil, fmt.Errorf("%s: partial report version %d, want %d (run the shards with this flaky)", path, p.Version, partialVersion)
	}
	if d, err := p.contentDigest(); err != nil || d != p.Digest {
		return nil, fmt.Errorf("%s: refused: its content does not match its digest %q: edited or damaged since its shard wrote it", path, p.Digest)
	}
	if unknown := p.unknownTests(); len(unknown) > 0 {
		return nil, fmt.Errorf("%s: its runs name tests that are not in its suite: %s", path, ListSome(unknown, 5))
	}
	return p, nil
}

// sameAnalysis checks that p is another shard of first's analysis (split
// into sh.N): the same split, seed, rounds, suite and classes.
func (p *Partial) sameAnalysis(first *Partial, sh Shard) error {
	s, err := ParseShard(p.Shard)
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", p.Path, err)
	case s.N != sh.N:
		return fmt.Errorf("shards of different splits: %s (%s) and %s (%s)", first.Path, first.Shard, p.Path, p.Shard)
	case p.Seed != first.Seed:
		return fmt.Errorf("shards of different seeds: %s (%d) and %s (%d) (give every shard the same --seed)", first.Path, first.Seed, p.Path, p.Seed)
	case p.Rounds != first.Rounds || !slices.Equal(p.Tests, first.Tests):
		return fmt.Errorf("%s and %s ran different suites or rounds", first.Path, p.Path)
	case p.Classes != first.Classes:
		return fmt.Errorf("%s and %s ran different classes (%s%s, %s%s): build every shard from one commit with one JDK", first.Path, p.Path, first.Classes, at(first.Commit), p.Classes, at(p.Commit))
	}
	return nil
}

// at is " at commit C", or "" when the commit is not known.
func at(commit string) string {
	if commit == "" {
		return ""
	}
	return " at commit " + commit
}

// MergeRuns returns the runs of the partials, the original runs first,
// then in the order of the detection plan, each with its part's shard.
func MergeRuns(parts []*Partial) []RecordedRun {
	var runs []RecordedRun
	for _, p := range parts {
		for _, r := range p.Runs {
			r.Part = p.Shard
			runs = append(runs, r)
		}
	}
	slices.SortStableFunc(runs, func(x, y RecordedRun) int { return x.Plan - y.Plan })
	return runs
}
