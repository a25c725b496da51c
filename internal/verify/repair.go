package verify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/fix/repair"
	"github.com/flakyhq/flaky/internal/maven/defaultorder"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/maven/surefire"
	"github.com/flakyhq/flaky/internal/pipeline"
)

// proposeRepairs runs the pipeline's repair stage on the module's findings
// when the build asked for it (-Dflaky.repair=true), without applying
// anything: each finding's report entry gets its validated patch or the
// reason there is none.
func proposeRepairs(ctx context.Context, cfg Config, rec *surefire.ForkRecord, res *Result) error {
	if !cfg.Repair || len(res.Report.Findings) == 0 {
		return nil
	}
	java := cfg.Java
	if java == "" {
		java = rec.Java
	}
	m := pipeline.NewModule(cfg.Root, cfg.ModuleDir, flakydir.InBuild(cfg.BuildDir))
	m.Repair = repair.Module{
		Dir: cfg.ModuleDir, ClassesDir: filepath.Join(cfg.BuildDir, "classes"), TestClassesDir: rec.TestClassesDirectory,
		Classpath: rec.Classpath, JVMArgs: rec.JVMArgs, SysProps: rec.SystemProperties, Java: java,
		Order: func(infos []launcher.TestInfo) ([]launcher.TestInfo, error) {
			infos, _, err := defaultorder.Of(&mvn.TestSetup{TestClassesDir: rec.TestClassesDirectory}, infos, time.Now())
			return infos, err
		},
	}
	// The sandbox's JVMs cut a test at the same timeout as every other run.
	ropts := &pipeline.RepairOptions{TestTimeout: launcherOptions(cfg, rec).TestTimeout}
	ropts.LLM, ropts.NoLLMWhy = repair.LLMFromEnv(os.Getenv)
	if _, err := pipeline.Run(ctx, m, pipeline.Options{Report: res.Report, Workers: cfg.Workers, Repair: ropts}, logTo(cfg)); err != nil {
		return fmt.Errorf("repair: %w", err)
	}
	return nil
}
