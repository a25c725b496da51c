package repair

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// unifiedDiff is the unified diff (git style: a/ and b/ paths relative to the
// module) that turns the before contents into the after contents, file by
// file in path order; lines keep their own line ends.
func unifiedDiff(before, after map[string][]byte) string {
	var b strings.Builder
	paths := make([]string, 0, len(after))
	for p := range after {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		slash := filepath.ToSlash(p)
		d := udiff.Unified("a/"+slash, "b/"+slash, string(before[p]), string(after[p]))
		if d != "" {
			b.WriteString("diff --git a/" + slash + " b/" + slash + "\n")
			b.WriteString(d)
		}
	}
	return b.String()
}
