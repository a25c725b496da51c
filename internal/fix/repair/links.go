package repair

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// LinkError is a write that would go through a symbolic link: into a file
// outside the directory that was meant to be written.
type LinkError struct {
	Path string // the link, relative to the root written under
	Dest string // where it points
}

func (e *LinkError) Error() string {
	return fmt.Sprintf("%s is a symbolic link (to %s): flaky does not write through links", e.Path, e.Dest)
}

// checkNoLink returns a LinkError when rel, or a directory on the way to it
// from root, is a symbolic link; rel and its directories need not exist.
func checkNoLink(root, rel string) error {
	cur := root
	parts := strings.Split(filepath.Clean(rel), string(filepath.Separator))
	for i, part := range parts {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			dest, _ := os.Readlink(cur)
			return &LinkError{Path: filepath.Join(parts[:i+1]...), Dest: dest}
		}
	}
	return nil
}

// checkNoLinkTree returns a LinkError when dir (relative to root), a
// directory on the way to it or anything under it is a symbolic link.
func checkNoLinkTree(root, rel string) error {
	if err := checkNoLink(root, rel); err != nil {
		return err
	}
	err := filepath.WalkDir(filepath.Join(root, rel), func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			r, _ := filepath.Rel(root, p)
			dest, _ := os.Readlink(p)
			return &LinkError{Path: r, Dest: dest}
		}
		return nil
	})
	return err
}
