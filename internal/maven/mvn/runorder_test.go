package mvn

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSurefireClassOrder(t *testing.T) {
	dir := t.TempDir()
	classes := []string{"b.ZTest", "a.MTest", "a.MTest$Inner", "a.sub.ATest", "c.BTest"}
	for _, c := range classes {
		path := filepath.Join(dir, filepath.FromSlash(strings.ReplaceAll(c, ".", "/"))+".class")
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sorted := []string{"a.MTest", "a.MTest$Inner", "a.sub.ATest", "b.ZTest", "c.BTest"}
	reversed := slices.Clone(sorted)
	slices.Reverse(reversed)
	even := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	odd := even.Add(time.Hour)
	tests := []struct {
		runOrder string
		now      time.Time
		want     []string // nil: the filesystem order
		wantHow  string
	}{
		{"", even, nil, "runOrder=filesystem (the directory order of " + dir + ")"},
		{"filesystem", even, nil, "runOrder=filesystem"},
		{"alphabetical", even, sorted, "runOrder=alphabetical"},
		{"reversealphabetical", even, reversed, "runOrder=reversealphabetical"},
		{"hourly", even, sorted, "runOrder=hourly (alphabetical at this hour)"},
		{"hourly", odd, reversed, "runOrder=hourly (reversealphabetical at this hour)"},
		{"random", even, nil, "the filesystem order: Surefire's runOrder=random cannot be told before the run"},
	}
	for _, tt := range tests {
		got, how, err := SurefireClassOrder(dir, tt.runOrder, tt.now)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(how, tt.wantHow) {
			t.Errorf("%s: how %q, want %q", tt.runOrder, how, tt.wantHow)
		}
		if tt.want != nil && !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.runOrder, got, tt.want)
		}
		if tt.want == nil {
			// The directory order: the same classes, each directory's own
			// entries in the order the directory lists them.
			if s := slices.Sorted(slices.Values(got)); !slices.Equal(s, sorted) {
				t.Errorf("%s: %v is not the classes", tt.runOrder, got)
			}
			f, _ := os.Open(filepath.Join(dir, "a"))
			names, _ := f.Readdirnames(-1)
			f.Close()
			var inA []string
			for _, c := range got {
				if rest, ok := strings.CutPrefix(c, "a."); ok {
					inA = append(inA, strings.SplitN(rest, ".", 2)[0])
				}
			}
			var listed []string
			for _, n := range names {
				listed = append(listed, strings.TrimSuffix(n, ".class"))
			}
			if !slices.Equal(inA, listed) {
				t.Errorf("%s: package a in order %v, the directory lists %v", tt.runOrder, inA, listed)
			}
		}
	}
	if got, _, err := SurefireClassOrder(filepath.Join(dir, "missing"), "", even); err != nil || len(got) != 0 {
		t.Errorf("no test classes: %v, %v", got, err)
	}
}
