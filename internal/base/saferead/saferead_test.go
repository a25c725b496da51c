package saferead

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/flakyhq/flaky/internal/testkit/hostile"
)

// TestReadFile reads a file within its cap and each hostile stand-in: the
// regular file is read whole, every other one is refused at once with an
// error that names what it is.
func TestReadFile(t *testing.T) {
	const max = 64
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok")
	if err := os.WriteFile(ok, bytes.Repeat([]byte("x"), max), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(ok, max, "a test file"); err != nil || len(data) != max {
		t.Errorf("a file of the cap: %d bytes, %v; want %d bytes", len(data), err, max)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), max, "a test file"); !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrRefused) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist, not a refusal", err)
	}
	for i, f := range hostile.Files(max) {
		path := filepath.Join(dir, "f"+string(rune('a'+i)))
		if err := f.Make(path); err != nil {
			t.Fatal(err)
		}
		for _, read := range []struct {
			name string
			read func() error
		}{
			{"ReadFile", func() error { _, err := ReadFile(path, max, "a test file"); return err }},
			{"Copy", func() error { return Copy(&bytes.Buffer{}, path, max, "a test file") }},
		} {
			var err error
			if !hostile.Returns(path, func() { err = read.read() }) {
				t.Errorf("%s of %s: still reading after %v", read.name, f.Name, hostile.ReadBound)
				continue
			}
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), f.Want) || !strings.Contains(err.Error(), path) {
				t.Errorf("%s of %s: %v, want a refusal naming it and saying %q", read.name, f.Name, err, f.Want)
			}
		}
	}
}

// TestCopyCappedGrowing reads a file that grew past the cap after it was
// checked: the read stops one byte past the cap and fails.
func TestCopyCappedGrowing(t *testing.T) {
	var out bytes.Buffer
	r := iotest.OneByteReader(strings.NewReader(strings.Repeat("x", 1000)))
	err := copyCapped(&out, r, "grown", 10, "a test file")
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "grew to more than the 10 bytes") {
		t.Errorf("copyCapped: %v, want it to refuse the growth", err)
	}
	if out.Len() > 11 {
		t.Errorf("copyCapped read %d bytes, want at most 11", out.Len())
	}
	out.Reset()
	if err := copyCapped(&out, strings.NewReader("0123456789"), "exact", 10, "a test file"); err != nil || out.String() != "0123456789" {
		t.Errorf("copyCapped of the cap: %q, %v", out.String(), err)
	}
}

// TestSize names caps in their largest whole unit.
func TestSize(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{{4 << 20, "4 MiB"}, {64 << 10, "64 KiB"}, {1000, "1000 bytes"}, {1<<20 + 1, "1048577 bytes"}} {
		if got := Size(tt.n); got != tt.want {
			t.Errorf("Size(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
