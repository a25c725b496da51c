package pipeline

import (
	"context"
	"time"

	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/gate/knowledge"
)

// full reports whether opts run a full detection, whose knowledge is kept:
// not a shard's share of the orders nor a merge's replay of shards' runs
// (neither records data dependencies), nor a change's analysis that judged
// only what the change affects (one that analysed every test, for want of
// knowledge or because a build file changed, is full).
func full(opts Options) bool {
	d := opts.Detect
	return d != nil && d.Shard.N == 0 && len(d.Partials) == 0 &&
		(d.Change == nil || d.Change.full != "" || d.Change.Change.Everything())
}

// suspect carries the flips a change's analysis could not confirm into
// the module's knowledge store, for the next full analysis; without a
// store there is nothing to carry them into.
func suspect(ctx context.Context, m Module, opts Options, log logs.Logger, res *Result) {
	cov := res.Report.Stats.Coverage
	if cov == nil || len(cov.Unconfirmed) == 0 {
		return
	}
	logf := StageKnowledge.of(log).Logf
	st, _, err := knowledge.Load(opts.Knowledge)
	if st == nil || err != nil || !st.Suspect(cov.Unconfirmed, knowledge.Commit(ctx, m.Dir)) {
		return
	}
	if err := st.Save(opts.Knowledge); err != nil {
		logf("knowledge: suspected tests not recorded: %v", err)
		return
	}
	logf("knowledge: %d suspected test(s) recorded in %s for the next full analysis", len(cov.Unconfirmed), opts.Knowledge)
}

// remember records what the full detection of res learned in the module's
// knowledge store in opts.Knowledge and says so. A store that cannot be
// read or written costs the next analysis only its knowledge: that is a
// line of the log, never an error.
func remember(ctx context.Context, m Module, opts Options, log logs.Logger, res *Result) {
	logf := StageKnowledge.of(log).Logf
	dir := opts.Knowledge
	old, note, err := knowledge.Load(dir)
	switch {
	case err != nil:
		logf("%s (%v)", note, err)
	case (note.Kind == knowledge.Corrupt || note.Kind == knowledge.Stale) && (opts.Detect.Change == nil || opts.Detect.Change.full == ""):
		logf("%s", note) // a change's full analysis said so first
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
