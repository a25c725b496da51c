package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/report"
)

// TestWrite generates the default suite and checks what it plants: 20
// distinct dependencies, each between two tests that exist, a victim's
// polluter after it in the original order and a brittle's setter before
// it, each test holding the access to its root.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	planted, err := Write(dir, Default)
	if err != nil {
		t.Fatal(err)
	}
	classes, err := filepath.Glob(filepath.Join(dir, "src", "test", "java", "bench", "suite", "C*Test.java"))
	if err != nil || len(classes) != Default.Classes {
		t.Fatalf("%d test classes, want %d (%v)", len(classes), Default.Classes, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pom.xml")); err != nil {
		t.Fatal(err)
	}
	source := func(id string) string {
		class, method := testid.Split(strings.TrimPrefix(id, Package+"."))
		data, err := os.ReadFile(filepath.Join(dir, "src", "test", "java", "bench", "suite", class+".java"))
		if err != nil {
			t.Fatal(err)
		}
		_, body, ok := strings.Cut(string(data), "public void "+method+"() {")
		if !ok {
			t.Fatalf("%s: no method %s", class, method)
		}
		body, _, _ = strings.Cut(body, "}")
		return body
	}
	tests := map[string]bool{}
	victims := 0
	for _, p := range planted {
		field := strings.TrimPrefix(p.Root, Package+".Planted.")
		if tests[p.Test] || tests[p.Writer] {
			t.Errorf("%s or %s planted twice", p.Test, p.Writer)
		}
		tests[p.Test], tests[p.Writer] = true, true
		after := p.Writer > p.Test // ids sort as the original order runs
		switch p.Kind {
		case report.ODVictim:
			victims++
			if !after || !strings.Contains(source(p.Writer), "Planted."+field+".add(") || !strings.Contains(source(p.Test), "Planted."+field+".isEmpty()") {
				t.Errorf("victim %+v", p)
			}
		case report.ODBrittle:
			if after || !strings.Contains(source(p.Writer), "Planted."+field+" = ") || !strings.Contains(source(p.Test), "Planted."+field+");") {
				t.Errorf("brittle %+v", p)
			}
		}
	}
	if len(planted) != 20 || victims != 10 {
		t.Errorf("%d planted, %d victims; want 20 and 10", len(planted), victims)
	}
	if src := source(Package + ".C001Test#t05"); !strings.Contains(src, "Planted.counter0 >= 0") {
		t.Errorf("C001Test#t05 does not read its class's counter:%s", src)
	}
	if _, err := Write(t.TempDir(), Options{Classes: 4, Methods: 2}); err == nil {
		t.Error("a suite too small for its plants was written")
	}
}
