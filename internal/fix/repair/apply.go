package repair

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/flakyhq/flaky/internal/base/safewrite"
)

// Applied is one file --apply changed and where its original was saved.
type Applied struct {
	File   string // module-relative
	Backup string
	Target string // the file written: the link's target when the file is a followed link
}

// ApplyOptions are Apply's choices.
type ApplyOptions struct {
	// FollowSymlinks writes a patched file that is a symbolic link (or lies
	// under one) to the link's target, which may be outside the module, and
	// keeps the link; without it such a file is refused.
	FollowSymlinks bool
}

// Apply writes the validated patches of res into the module at dir: each
// file is checked to still hold what the repair read and not to be reached
// through a symbolic link (unless o.FollowSymlinks), all originals are
// saved under backupDir (numbered when a backup exists) before the first
// write, and each new content is written atomically with the file's
// permissions. Nothing is written when a check fails.
func Apply(dir, backupDir string, res *Result, o ApplyOptions) ([]Applied, error) {
	rels := slices.Sorted(maps.Keys(res.Files))
	perms := map[string]os.FileMode{}
	targets := map[string]string{}
	for _, rel := range rels {
		path := filepath.Join(dir, rel)
		if err := checkNoLink(dir, rel); err != nil {
			if !o.FollowSymlinks {
				return nil, fmt.Errorf("apply: %w; pass --follow-symlinks to patch the link's target", err)
			}
			if path, err = filepath.EvalSymlinks(path); err != nil {
				return nil, fmt.Errorf("apply: %w", err)
			}
		}
		fi, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("apply: %w", err)
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("apply: %s is not a regular file", rel)
		}
		cur, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("apply: %w", err)
		}
		if !bytes.Equal(cur, res.Originals[rel]) {
			return nil, fmt.Errorf("apply: %s changed since flaky repair read it; run flaky repair again", rel)
		}
		perms[rel], targets[rel] = fi.Mode().Perm(), path
	}
	backups := map[string]string{}
	for _, rel := range rels {
		backup := filepath.Join(backupDir, rel)
		if err := os.MkdirAll(filepath.Dir(backup), 0o755); err != nil {
			return nil, fmt.Errorf("apply: back up %s: %w", rel, err)
		}
		backup, err := safewrite.Backup(backup, res.Originals[rel], 0o644)
		if err != nil {
			return nil, fmt.Errorf("apply: back up %s: %w", rel, err)
		}
		backups[rel] = backup
	}
	var out []Applied
	for _, rel := range rels {
		if err := safewrite.Atomic(targets[rel], res.Files[rel], perms[rel]); err != nil {
			return out, fmt.Errorf("apply: write %s: %w", rel, err)
		}
		out = append(out, Applied{File: rel, Backup: backups[rel], Target: targets[rel]})
	}
	return out, nil
}
