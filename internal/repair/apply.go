package repair

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/flakyhq/flaky/internal/safewrite"
)

// Applied is one file --apply changed and where its original was saved.
type Applied struct {
	File   string // module-relative
	Backup string
}

// Apply writes the validated patches of res into the module at dir: each
// file is checked to still hold what the repair read, its original saved
// under backupDir (numbered when a backup exists), and the new content
// written atomically with the file's permissions. Nothing is written when a
// file changed since the repair read it.
func Apply(dir, backupDir string, res *Result) ([]Applied, error) {
	rels := slices.Sorted(maps.Keys(res.Files))
	perms := map[string]os.FileMode{}
	for _, rel := range rels {
		path := filepath.Join(dir, rel)
		fi, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("apply: %w", err)
		}
		cur, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("apply: %w", err)
		}
		if !bytes.Equal(cur, res.Originals[rel]) {
			return nil, fmt.Errorf("apply: %s changed since flaky repair read it; run flaky repair again", rel)
		}
		perms[rel] = fi.Mode().Perm()
	}
	var out []Applied
	for _, rel := range rels {
		backup := filepath.Join(backupDir, rel)
		if err := os.MkdirAll(filepath.Dir(backup), 0o755); err != nil {
			return out, fmt.Errorf("apply: back up %s: %w", rel, err)
		}
		backup, err := safewrite.Backup(backup, res.Originals[rel], 0o644)
		if err != nil {
			return out, fmt.Errorf("apply: back up %s: %w", rel, err)
		}
		if err := safewrite.Atomic(filepath.Join(dir, rel), res.Files[rel], perms[rel]); err != nil {
			return out, fmt.Errorf("apply: write %s: %w", rel, err)
		}
		out = append(out, Applied{File: rel, Backup: backup})
	}
	return out, nil
}
