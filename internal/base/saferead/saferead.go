// Package saferead reads files flaky did not just write (poms, caches,
// other CI jobs' artefacts) within bounds: only a regular file, also behind
// a symbolic link, is read (a FIFO, a device such as /dev/zero or a
// directory is refused before a byte is read, and opening never blocks on
// one swapped in after the check), and never more than a cap, even when
// the file grows while it is read.
package saferead

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// ErrRefused is what errors.Is finds in the error about a file refused for
// what it is (not a regular file) or its size, or by a caller's own bounds
// (see Refuse): the file is there, unlike a missing one, and must not be
// taken for missing.
var ErrRefused = errors.New("refused")

// refusal is an error that errors.Is matches with ErrRefused.
type refusal struct{ msg string }

func (r *refusal) Error() string        { return r.msg }
func (r *refusal) Is(target error) bool { return target == ErrRefused }

// Refuse is an error that says why a file is refused; errors.Is finds
// ErrRefused in it.
func Refuse(format string, args ...any) error {
	return &refusal{fmt.Sprintf(format, args...)}
}

// ReadFile reads the regular file at path, of at most max bytes. what
// names what the file holds ("a pom") in the error about the cap.
func ReadFile(path string, max int64, what string) ([]byte, error) {
	f, size, err := Open(path, max, what)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := bytes.NewBuffer(make([]byte, 0, size+1))
	if err := copyCapped(buf, f, path, max, what); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Copy writes the content of the regular file at path, of at most max
// bytes, to w (a hash, say) without holding it in memory.
func Copy(w io.Writer, path string, max int64, what string) error {
	f, _, err := Open(path, max, what)
	if err != nil {
		return err
	}
	defer f.Close()
	return copyCapped(w, f, path, max, what)
}

// Open opens the regular file at path for reading and returns its size,
// refusing a file that is not regular or is larger than max bytes. The
// caller must still read at most max bytes of it (see Copy): it may grow.
func Open(path string, max int64, what string) (*os.File, int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	if err := check(path, fi, max, what); err != nil {
		return nil, 0, err
	}
	// O_NONBLOCK: a FIFO swapped in since the Stat opens at once (and is
	// refused below) instead of waiting for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	if fi, err = f.Stat(); err == nil {
		err = check(path, fi, max, what)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// check refuses a file that is not regular or larger than max bytes.
func check(path string, fi os.FileInfo, max int64, what string) error {
	if !fi.Mode().IsRegular() {
		return Refuse("read %s: not a regular file (%s)", path, Kind(fi.Mode()))
	}
	if fi.Size() > max {
		return Refuse("read %s: %d bytes, more than the %s flaky reads in %s", path, fi.Size(), Size(max), what)
	}
	return nil
}

// copyCapped copies r to w, failing once more than max bytes came.
func copyCapped(w io.Writer, r io.Reader, path string, max int64, what string) error {
	n, err := io.Copy(w, io.LimitReader(r, max+1))
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if n > max {
		return Refuse("read %s: grew to more than the %s flaky reads in %s", path, Size(max), what)
	}
	return nil
}

// Kind names what a non-regular file is, for errors.
func Kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}

// Size writes a cap in the largest whole unit: "4 MiB", "64 KiB", "100 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
