package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/mvn"
)

// TestListModuleNoTestsWithTestClasses: a real JVM lists no tests from a
// class path without the test framework (what a truncated class path
// gives), while a class named like a test is compiled: an error, not a run
// of 0 tests, that names the files the class path is kept in.
func TestListModuleNoTestsWithTestClasses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs javac and a JVM: skipped with -short")
	}
	dir := t.TempDir()
	classes := filepath.Join(dir, "target", "test-classes")
	src := filepath.Join(dir, "ATest.java")
	os.WriteFile(src, []byte("public class ATest { public void testA() {} }\n"), 0o644)
	if out, err := exec.Command("javac", "-d", classes, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	jars, err := agent.Extract()
	if err != nil {
		t.Fatal(err)
	}
	// The class path came from the shared cache (item 7 of #53): the error
	// names the files to delete, not target/flaky/cache alone.
	own, shared := filepath.Join(dir, "target", "flaky", "cache", "classpath-1.txt"), filepath.Join(dir, "cache", "classpath", "2.txt")
	setup := &mvn.TestSetup{ModuleDir: dir, TestClassesDir: classes, Classpath: []string{classes}, ClasspathFiles: []string{own, shared}}
	l, err := launcher.New(globalOptions{}.env(setup), jars, launcher.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, _, _, err = listModule(context.Background(), setup, l)
	if err == nil || !strings.Contains(err.Error(), "no tests found, yet "+filepath.Join(classes, "ATest.class")+" is compiled") {
		t.Errorf("err %v, want no tests found although ATest is compiled", err)
	}
	if want := "delete " + own + " and " + shared + " to have Maven resolve it again"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err %v, want it to say %q", err, want)
	}
}

func TestTestLikeClass(t *testing.T) {
	for _, tt := range []struct {
		files []string
		want  string
	}{
		{[]string{"p/Helper.class", "p/ATest$1.class"}, ""},
		{[]string{"p/Helper.class", "p/ATests.class"}, "p/ATests.class"},
		{[]string{"p/TestA.class"}, "p/TestA.class"},
		{[]string{"p/ATestCase.class"}, "p/ATestCase.class"},
		{nil, ""},
	} {
		dir := t.TempDir()
		for _, f := range tt.files {
			os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
			os.WriteFile(filepath.Join(dir, f), nil, 0o644)
		}
		want := tt.want
		if want != "" {
			want = filepath.Join(dir, want)
		}
		if got := testLikeClass(dir); got != want {
			t.Errorf("%q: %q, want %q", tt.files, got, want)
		}
	}
	if got := testLikeClass(filepath.Join(t.TempDir(), "missing")); got != "" {
		t.Errorf("a missing directory: %q", got)
	}
}
