package defaultorder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/mvn"
)

func TestOf(t *testing.T) {
	target := filepath.Join(t.TempDir(), "target")
	testClasses := filepath.Join(target, "test-classes")
	for _, c := range []string{"p/ATest.class", "p/BTest.class", "p/CTest.class", "p/CTest$Inner.class"} {
		os.MkdirAll(filepath.Dir(filepath.Join(testClasses, c)), 0o755)
		os.WriteFile(filepath.Join(testClasses, c), nil, 0o644)
	}
	tests := []launcher.TestInfo{{ID: "p.ATest#a1"}, {ID: "p.ATest#a2"}, {ID: "p.BTest#b"}, {ID: "p.CTest$Inner#c"}, {ID: "p.CTest#c"}}
	ids := func(ts []launcher.TestInfo) string {
		var s []string
		for _, t := range ts {
			s = append(s, t.ID)
		}
		return strings.Join(s, " ")
	}
	setup := &mvn.TestSetup{TestClassesDir: testClasses, RunOrder: "reversealphabetical"}
	got, how, err := Of(setup, tests, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if how != "Surefire's runOrder=reversealphabetical" {
		t.Errorf("how %q", how)
	}
	if got := ids(got); got != "p.CTest$Inner#c p.CTest#c p.BTest#b p.ATest#a1 p.ATest#a2" {
		t.Errorf("runOrder order: %s", got)
	}

	// A recorded fork wins; classes it did not run follow in Surefire's order.
	os.MkdirAll(filepath.Join(target, "flaky"), 0o755)
	record := `{"version":1,"testClasses":["p.BTest","p.ATest"],"tests":[]}`
	if err := os.WriteFile(filepath.Join(target, "flaky", "fork.json"), []byte(record), 0o644); err != nil {
		t.Fatal(err)
	}
	got, how, err = Of(setup, tests, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(how, "the order of the recorded Surefire fork ("+filepath.Join(target, "flaky", "fork.json")+"), then classes it did not run in Surefire's runOrder=reversealphabetical") {
		t.Errorf("how %q", how)
	}
	if got := ids(got); got != "p.BTest#b p.ATest#a1 p.ATest#a2 p.CTest$Inner#c p.CTest#c" {
		t.Errorf("recorded order: %s", got)
	}
	// All listed tests ran in the fork: its order alone.
	if _, how, _ := Of(setup, tests[:3], time.Now()); how != "the order of the recorded Surefire fork ("+filepath.Join(target, "flaky", "fork.json")+")" {
		t.Errorf("how %q", how)
	}
}

func TestOfPutsTestNGFirstInAMixedModule(t *testing.T) {
	testClasses := filepath.Join(t.TempDir(), "target", "test-classes")
	for _, c := range []string{"p/ATest.class", "p/BTest.class", "p/CTest.class", "p/DTest.class"} {
		os.MkdirAll(filepath.Dir(filepath.Join(testClasses, c)), 0o755)
		os.WriteFile(filepath.Join(testClasses, c), nil, 0o644)
	}
	setup := &mvn.TestSetup{TestClassesDir: testClasses, RunOrder: "alphabetical"}
	for _, c := range []struct {
		name  string
		tests []launcher.TestInfo
		want  string
	}{
		{"mixed", []launcher.TestInfo{{ID: "p.ATest#a", Engine: "junit4"}, {ID: "p.BTest#b2", Engine: "testng"}, {ID: "p.BTest#b1", Engine: "testng"}, {ID: "p.CTest#c", Engine: "jupiter"}, {ID: "p.DTest#d", Engine: "testng"}},
			"p.BTest#b2 p.BTest#b1 p.DTest#d p.ATest#a p.CTest#c"},
		{"TestNG alone", []launcher.TestInfo{{ID: "p.ATest#a", Engine: "testng"}, {ID: "p.BTest#b", Engine: "testng"}}, "p.ATest#a p.BTest#b"},
		{"JUnit alone", []launcher.TestInfo{{ID: "p.ATest#a", Engine: "jupiter"}, {ID: "p.BTest#b", Engine: "junit4"}}, "p.ATest#a p.BTest#b"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, how, err := Of(setup, c.tests, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, ti := range got {
				ids = append(ids, ti.ID)
			}
			if strings.Join(ids, " ") != c.want {
				t.Errorf("got %v, want %s", ids, c.want)
			}
			if mixed := strings.Contains(how, "TestNG classes first"); mixed != (c.name == "mixed") {
				t.Errorf("how %q", how)
			}
		})
	}
}
