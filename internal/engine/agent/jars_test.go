package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestExtractConcurrent(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("FLAKY_CACHE_DIR", dir)
	const n = 8
	results := make([]Jars, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = extract()
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if results[i] != results[0] {
			t.Fatalf("paths differ: %v vs %v", results[i], results[0])
		}
	}
	for path, name := range map[string]string{results[0].Agent: agentJar, results[0].Runner: runnerJar, results[0].Provider: providerJar} {
		want, _ := jarFS.ReadFile("jars/" + name)
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s content differs from the embedded jar", path)
		}
		if filepath.Base(path) != name {
			t.Errorf("path %s, want base %s", path, name)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(results[0].Agent))
	if len(entries) != 3 {
		t.Errorf("cache dir holds %d entries, want only the 3 jars (temp files left?)", len(entries))
	}
}

func TestExtractRepairsTruncatedFile(t *testing.T) {
	t.Setenv("FLAKY_CACHE_DIR", t.TempDir())
	jars, err := extract()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(jars.Runner, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := extract(); err != nil {
		t.Fatal(err)
	}
	want, _ := jarFS.ReadFile("jars/" + runnerJar)
	if got, _ := os.ReadFile(jars.Runner); !bytes.Equal(got, want) {
		t.Error("truncated jar not rewritten")
	}
}

func TestContentKey(t *testing.T) {
	tests := []struct {
		name string
		a, b [][]byte
		same bool
	}{
		{"equal", [][]byte{[]byte("a"), []byte("b")}, [][]byte{[]byte("a"), []byte("b")}, true},
		{"different", [][]byte{[]byte("a"), []byte("b")}, [][]byte{[]byte("a"), []byte("c")}, false},
		{"boundary moved", [][]byte{[]byte("ab"), []byte("c")}, [][]byte{[]byte("a"), []byte("bc")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := contentKey(tt.a...) == contentKey(tt.b...); got != tt.same {
				t.Errorf("same = %v, want %v", got, tt.same)
			}
		})
	}
}

// A same-size replacement of an extracted jar (tampering, corruption) is not
// trusted: its content hash differs, so it is extracted again.
func TestExtractReplacesSameSizeTampering(t *testing.T) {
	t.Setenv("FLAKY_CACHE_DIR", t.TempDir())
	jars, err := extract()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := jarFS.ReadFile("jars/" + agentJar)
	evil := bytes.Repeat([]byte{'E'}, len(want))
	if err := os.WriteFile(jars.Agent, evil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := extract(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(jars.Agent); !bytes.Equal(got, want) {
		t.Error("a same-size replacement of the agent jar was kept")
	}
}
