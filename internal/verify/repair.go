package verify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/flakyhq/flaky/internal/repair"
	"github.com/flakyhq/flaky/surefire"
)

// proposeRepairs runs flaky repair on the module's findings when the build
// asked for it (-Dflaky.repair=true), without applying anything: each
// finding's report entry gets its validated patch or the reason there is none.
func proposeRepairs(ctx context.Context, cfg Config, rec *surefire.ForkRecord, res *Result) error {
	if !cfg.Repair || len(res.Report.Findings) == 0 {
		return nil
	}
	java := cfg.Java
	if java == "" {
		java = rec.Java
	}
	flakyDir := filepath.Join(cfg.BuildDir, "flaky")
	rcfg := repair.Config{
		Module: repair.Module{
			Dir: cfg.ModuleDir, ClassesDir: filepath.Join(cfg.BuildDir, "classes"), TestClassesDir: rec.TestClassesDirectory,
			Classpath: rec.Classpath, JVMArgs: rec.JVMArgs, SysProps: rec.SystemProperties, Java: java,
		},
		Report:  res.Report,
		OutDir:  filepath.Join(flakyDir, "repair"),
		WorkDir: filepath.Join(flakyDir, "repair", "work"),
		Workers: cfg.Workers,
		Logf: func(format string, args ...any) {
			fmt.Fprintf(cfg.Out, "[flaky] module %s: repair: "+format+"\n", append([]any{cfg.Module}, args...)...)
		},
	}
	rcfg.LLM, rcfg.NoLLMWhy = repair.LLMFromEnv(os.Getenv)
	out, err := repair.Run(ctx, rcfg)
	if err != nil {
		return fmt.Errorf("repair: %w", err)
	}
	for i, f := range res.Report.Findings {
		if r, ok := out.Repairs[f.Key()]; ok {
			res.Report.Findings[i].Repair = r
		}
	}
	return nil
}
