package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedPartsHaveMarkers checks that every page -readme rewrites has
// its markers, begin before end, so that moving a table between pages cannot
// leave make bench -readme failing at the end of a long run.
func TestGeneratedPartsHaveMarkers(t *testing.T) {
	for _, part := range generatedParts {
		data, err := os.ReadFile(filepath.Join("..", "..", part.file))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		i, j := strings.Index(text, part.begin), strings.Index(text, part.end)
		if i < 0 || j < i {
			t.Errorf("%s has no %s ... %s section", part.file, part.begin, part.end)
		}
	}
}

// TestWriteTables checks that the text between the markers, and only it, is
// replaced.
func TestWriteTables(t *testing.T) {
	path := filepath.Join(t.TempDir(), "page.md")
	page := "before\n" + hostileBegin + "\nold table\n" + hostileEnd + "\nafter\n"
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeTables(path, hostileBegin, hostileEnd, "new table\n"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "before\n" + hostileBegin + "\nnew table\n" + hostileEnd + "\nafter\n"; string(got) != want {
		t.Errorf("page after writeTables:\n%s\nwant:\n%s", got, want)
	}
}
