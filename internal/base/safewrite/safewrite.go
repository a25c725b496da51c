// Package safewrite replaces files without losing what they held: a backup
// that never overwrites an earlier one, and an atomic write through a
// temporary file and a rename.
package safewrite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// Backup writes data to the first of name, name.1, name.2, ... that does
// not exist yet (created exclusively, synced) and returns the name used.
func Backup(name string, data []byte, perm os.FileMode) (string, error) {
	for n := 0; n < 10000; n++ {
		path := name
		if n > 0 {
			path += "." + strconv.Itoa(n)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if syncErr := f.Sync(); err == nil {
			err = syncErr
		}
		if closeErr := f.Close(); err == nil {
			err = closeErr
		}
		if err != nil {
			os.Remove(path)
			return "", err
		}
		return path, nil
	}
	return "", fmt.Errorf("too many backups of %s", name)
}

// Atomic writes data to path through a temporary file in the same
// directory and a rename, so readers see the old or the new file, never a
// part; the file gets exactly perm. Concurrent writers of the same data are
// safe. The temporary file is removed on every exit path, a signal's
// included (see RemoveTemps).
func Atomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer Forget(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// CheckDir makes sure files can be written in dir: it creates dir when
// missing, then creates and removes a temporary file in it. A read-only or
// full file system is found this way before work whose result would go there.
func CheckDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s is not writable: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".flaky-write-check-*")
	if err != nil {
		return fmt.Errorf("%s is not writable: %w", dir, err)
	}
	name := f.Name()
	_, err = f.Write([]byte("x"))
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	os.Remove(name)
	if err != nil {
		return fmt.Errorf("%s is not writable: %w", dir, err)
	}
	return nil
}
