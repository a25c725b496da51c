package repair

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// TestSandboxApply: patches are compiled in the copy only, never written
// through a symbolic link; a patch that does not compile is reported, and the next Apply compiles its files again,
// so no class of an earlier patch is left behind.
func TestSandboxApply(t *testing.T) {
	if testing.Short() {
		t.Skip("runs javac: skipped with -short")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatal("java not on PATH")
	}
	dir := t.TempDir()
	rel := filepath.Join("src", "test", "java", "p", "A.java")
	relB := filepath.Join("src", "test", "java", "p", "B.java")
	os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755)
	source := func(s string) []byte {
		return []byte("package p;\npublic class A { public static String s() { return \"" + s + "\"; } }\n")
	}
	os.WriteFile(filepath.Join(dir, rel), source("original"), 0o644)
	// B.java is a link to a file outside the module: patches of it in the
	// sandbox must not reach that file.
	outsideB := filepath.Join(t.TempDir(), "B.java")
	os.WriteFile(outsideB, []byte("package p;\nclass B {}\n"), 0o644)
	if err := os.Symlink(outsideB, filepath.Join(dir, relB)); err != nil {
		t.Fatal(err)
	}
	classes := filepath.Join(dir, "target", "test-classes")
	os.MkdirAll(classes, 0o755)
	if out, err := exec.Command("javac", "-d", classes, filepath.Join(dir, rel), filepath.Join(dir, relB)).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	jars, err := agent.Extract()
	if err != nil {
		t.Fatal(err)
	}
	mod := Module{Dir: dir, ClassesDir: filepath.Join(dir, "target", "classes"), TestClassesDir: classes, Classpath: []string{classes}, Java: java}
	sb, err := NewSandbox(mod, filepath.Join(dir, "target", "flaky", "repair", "work"), jars, launcher.Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	class := filepath.Join(sb.Dir, "target", "test-classes", "p", "A.class")
	holds := func(s string) bool {
		data, _ := os.ReadFile(class)
		return bytes.Contains(data, []byte(s))
	}
	ctx := context.Background()
	if err := sb.Apply(ctx, map[string][]byte{rel: source("patched")}); err != nil || !holds("patched") {
		t.Fatalf("patched: err %v, class holds it: %v", err, holds("patched"))
	}
	var ce *CompileError
	// A broken patch of B, which also restores A: A's source is restored but
	// not compiled, since the compilation fails.
	if err := sb.Apply(ctx, map[string][]byte{relB: []byte("package p; class B { oops }")}); !errors.As(err, &ce) {
		t.Fatalf("a broken patch: %v, want a CompileError", err)
	}
	if data, _ := os.ReadFile(outsideB); string(data) != "package p;\nclass B {}\n" {
		t.Errorf("the patch was written through the link to %s: %q", outsideB, data)
	}
	if err := sb.Apply(ctx, nil); err != nil || !holds("original") {
		t.Errorf("restored: err %v, class holds the original: %v", err, holds("original"))
	}
	if data, _ := os.ReadFile(filepath.Join(dir, rel)); !bytes.Equal(data, source("original")) {
		t.Errorf("the module's own source changed: %s", data)
	}
}

// TestLLMSandbox: with the LLM loop on, the sandbox's JVMs run confined
// where the machine can; where it cannot, unconfined only with
// --unconfined-llm-validation, which the evidence of an LLM patch says,
// and otherwise the loop is off with the reason; without the loop they
// are not confined.
func TestLLMSandbox(t *testing.T) {
	none := errors.New("user namespaces refused")
	tests := []struct {
		name       string
		llm        *LLMConfig
		available  error
		confine    bool
		loop       bool
		line, why  string
		logContain string
	}{
		{"no loop", nil, nil, false, false, "", "", ""},
		{"sandbox", &LLMConfig{}, nil, true, true, "the model's code ran confined: no network", "", "runs confined"},
		{"no sandbox, flag", &LLMConfig{Unconfined: true}, none, false, true, "the model's code ran UNCONFINED, with the user's rights and network (--unconfined-llm-validation): user namespaces refused", "", "UNCONFINED"},
		{"no sandbox, no flag", &LLMConfig{}, none, false, false, "", "LLM loop off: a model's patch runs only in a sandbox, and this machine has none (user namespaces refused); --unconfined-llm-validation", "LLM loop off"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logged bytes.Buffer
			cfg := Config{LLM: tt.llm, Log: logs.Printf(func(format string, args ...any) { fmt.Fprintf(&logged, format, args...) })}
			got, confine, line := llmSandbox(cfg, func() error { return tt.available })
			if confine != tt.confine || (got.LLM != nil) != tt.loop {
				t.Errorf("confine %v, loop %v; want %v, %v", confine, got.LLM != nil, tt.confine, tt.loop)
			}
			if !strings.HasPrefix(line, tt.line) || (tt.line == "") != (line == "") {
				t.Errorf("evidence %q, want %q", line, tt.line)
			}
			if !strings.HasPrefix(got.NoLLMWhy, tt.why) || (tt.why == "") != (got.NoLLMWhy == "") {
				t.Errorf("NoLLMWhy %q, want %q", got.NoLLMWhy, tt.why)
			}
			if !strings.Contains(logged.String(), tt.logContain) {
				t.Errorf("logged %q, want %q", logged.String(), tt.logContain)
			}
		})
	}
}
