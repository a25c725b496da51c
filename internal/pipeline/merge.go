package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"

	"github.com/flakyhq/flaky/internal/analysis/od"
	"github.com/flakyhq/flaky/internal/gate/knowledge"
	"github.com/flakyhq/flaky/internal/report"
)

// classesDigest is "sha256:" and the hex SHA-256 of the class files under
// dirs: each one's binary name and SHA-256 (knowledge.HashClasses), sorted.
// It ties a shard's part to the build the shard ran: javac gives the same
// class files for the same sources and JDK.
func classesDigest(dirs []string) (string, error) {
	hashes, err := knowledge.HashClasses(dirs...)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, name := range slices.Sorted(maps.Keys(hashes)) {
		fmt.Fprintf(h, "%s %s\n", name, hashes[name])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// newPartial is a shard's partial report of out, with the module's
// classes and commit.
func newPartial(ctx context.Context, m Module, cfg od.Config, out *od.Result) (*od.Partial, error) {
	p := od.NewPartial(cfg, out)
	var err error
	if p.Classes, err = classesDigest(m.ClassDirs); err != nil {
		return nil, fmt.Errorf("partial report: %w", err)
	}
	p.Commit = knowledge.Commit(ctx, m.Dir)
	return p, nil
}

// checkPartials refuses, by name, a part that is not of m: one of another
// suite (the tests not shared are named) or one that ran other classes.
// (od.ReadPartials checked each part's digest and that they agree.)
func checkPartials(ctx context.Context, m Module, parts []*od.Partial) error {
	p := parts[0]
	if !slices.Equal(m.Tests, p.Tests) {
		return fmt.Errorf("the module's %d tests are not the %d tests the shards ran%s", len(m.Tests), len(p.Tests), od.SuiteDiff(m.Tests, p.Tests))
	}
	classes, err := classesDigest(m.ClassDirs)
	if err != nil {
		return err
	}
	if p.Classes != classes {
		commit := ""
		if here := knowledge.Commit(ctx, m.Dir); p.Commit != "" && here != "" && here != p.Commit {
			commit = fmt.Sprintf(" (the shards ran commit %s, this is %s)", p.Commit, here)
		}
		return fmt.Errorf("%s: refused: its shard ran other classes than the module's here%s: build the shards and the merge from one commit with one JDK", p.Path, commit)
	}
	return nil
}

// mergeStats describes what the merge checked of each part.
func mergeStats(parts []*od.Partial, checks []od.PartCheck, trusted bool) *report.MergeStats {
	ms := &report.MergeStats{Trusted: trusted}
	for _, p := range parts {
		mp := report.MergePart{Shard: p.Shard, File: p.Path, Digest: p.Digest, Commit: p.Commit, Runs: len(p.Runs)}
		if i := slices.IndexFunc(checks, func(c od.PartCheck) bool { return c.Shard == p.Shard }); i >= 0 {
			c := checks[i]
			mp.Rerun, mp.Differences = c.Rerun, c.Differences
			for _, d := range c.Differ {
				mp.Differ = append(mp.Differ, report.MergeDifference{Test: d.Test, Run: d.Run, Recorded: string(d.Recorded), Here: d.Here})
			}
		}
		switch {
		case mp.Rerun >= mp.Runs:
			mp.Status = report.PartVerified
		case mp.Rerun > 0:
			mp.Status = report.PartSampled
		default:
			mp.Status = report.PartUnchecked
		}
		ms.Parts = append(ms.Parts, mp)
	}
	return ms
}
