package hostile

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// File is one hostile stand-in for a file flaky reads that it did not
// write (a cache entry, another job's artefact): Make creates it at a path,
// and Want is what the error refusing it says.
type File struct {
	Name string
	Make func(path string) error
	Want string
}

// Files are the hostile stand-ins for a file that flaky reads up to max
// bytes: a FIFO (opening it blocks until a writer comes), a link to one, a
// link to a character device (/dev/null: the same check refuses
// /dev/zero, which a reader would read for ever), a directory, and a
// sparse file one byte larger than max.
func Files(max int64) []File {
	return []File{
		{"a FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "not a regular file (a FIFO)"},
		{"a link to a FIFO", func(p string) error {
			fifo := p + ".fifo"
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				return err
			}
			return os.Symlink(filepath.Base(fifo), p)
		}, "not a regular file (a FIFO)"},
		{"a link to /dev/null", func(p string) error { return os.Symlink("/dev/null", p) }, "not a regular file (a character device)"},
		{"a directory", func(p string) error { return os.Mkdir(p, 0o755) }, "not a regular file (a directory)"},
		{"a sparse file over the cap", func(p string) error {
			if err := os.WriteFile(p, []byte("{"), 0o644); err != nil {
				return err
			}
			return os.Truncate(p, max+1)
		}, fmt.Sprintf("%d bytes, more than the", max+1)},
	}
}

// ReadBound is how long a read of a hostile File may take before a test
// calls it hung. Refusing one takes a stat and at most an open, well under
// a millisecond even on a loaded machine; without the checks a FIFO blocks
// and a device is read for ever, so the bound only ends a hang.
const ReadBound = 30 * time.Second

// Returns runs read and reports whether it returned within ReadBound. When
// it did not, it opens path for writing once, so that a read blocked on a
// FIFO there ends (at end of file) instead of outliving the test.
func Returns(path string, read func()) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		read()
	}()
	select {
	case <-done:
		return true
	case <-time.After(ReadBound):
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		return false
	}
}
