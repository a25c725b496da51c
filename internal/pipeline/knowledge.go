package pipeline

import (
	"context"
	"time"

	"github.com/flakyhq/flaky/internal/knowledge"
)

// full reports whether opts run a full detection, whose knowledge is kept:
// not a shard's share of the orders nor a merge's replay of shards' runs
// (neither records data dependencies), nor a change's analysis (it judges
// only some tests).
func full(opts Options) bool {
	d := opts.Detect
	return d != nil && d.Shard.N == 0 && len(d.Partials) == 0 && d.Change == nil
}

// remember records what the full detection of res learned in the module's
// knowledge store in opts.Knowledge and says so. A store that cannot be
// read or written costs the next analysis only its knowledge: that is a
// line of the log, never an error.
func remember(ctx context.Context, m Module, opts Options, log Log, res *Result) {
	logf := log.logf(StageKnowledge)
	dir := opts.Knowledge
	old, note, err := knowledge.Load(dir)
	switch {
	case err != nil:
		logf("%s (%v)", note, err)
	case note.Kind == knowledge.Corrupt || note.Kind == knowledge.Stale:
		logf("%s", note)
	}
	classes, err := knowledge.HashClasses(m.ClassDirs...)
	if err != nil {
		logf("knowledge: not recorded: %v", err)
		return
	}
	run := knowledge.Run{Module: m.Name, Commit: knowledge.Commit(ctx, m.Dir), Time: time.Now().UTC(), Classes: classes,
		Tests: m.Tests, Findings: res.Report.Findings, Original: opts.Detect.Original}
	if cov := res.Report.Stats.Coverage; cov != nil {
		run.Unconfirmed = cov.Unconfirmed
	}
	if res.Dataflow != nil {
		run.References = res.Dataflow.References
	}
	if err := knowledge.Record(old, run).Save(dir); err != nil {
		logf("knowledge: not recorded: %v", err)
		return
	}
	logf("knowledge: %d tests recorded in %s", len(m.Tests), dir)
}
