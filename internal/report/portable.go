package report

import (
	"path/filepath"
	"strings"

	"github.com/kballard/go-shellquote"
)

// ProjectRoot is the root of the project whose module at moduleDir the
// report is about: moduleDir less the report's module path; "" when
// moduleDir does not end in it.
func (r *Report) ProjectRoot(moduleDir string) string {
	dir := filepath.Clean(moduleDir)
	if r.Module == "" || r.Module == "." {
		return dir
	}
	rel := filepath.FromSlash(r.Module)
	root, ok := strings.CutSuffix(dir, string(filepath.Separator)+rel)
	if !ok || root == "" {
		return ""
	}
	return root
}

// Portable is a reproduce command of the module at moduleDir, in the
// project at root, as it runs from the root of another checkout: the order
// file of -Dflaky.order relative to the module (the provider resolves it
// there), every other path under root relative to root, and a step that
// only goes to the root (`cd ROOT && `) dropped. Paths outside root, and a
// command that does not split into shell words, stay as they are.
func Portable(command, root, moduleDir string) string {
	if root == "" || moduleDir == "" {
		return command
	}
	var steps []string
	for _, step := range strings.Split(command, " && ") {
		words, err := shellquote.Split(step)
		if err != nil {
			return command
		}
		if len(words) == 2 && words[0] == "cd" && filepath.Clean(words[1]) == filepath.Clean(root) {
			continue
		}
		for i, w := range words {
			if p, ok := strings.CutPrefix(w, "-Dflaky.order="); ok && within(root, p) {
				words[i] = "-Dflaky.order=" + relative(moduleDir, p)
			} else if within(root, w) {
				words[i] = relative(root, w)
			}
		}
		steps = append(steps, shellquote.Join(words...))
	}
	return strings.Join(steps, " && ")
}

// OrderFile is the order file a reproduce command runs (its -Dflaky.order
// or --order), as the command names it; "" when it names none.
func OrderFile(command string) string {
	for _, step := range strings.Split(command, " && ") {
		words, err := shellquote.Split(step)
		if err != nil {
			return ""
		}
		for i, w := range words {
			if p, ok := strings.CutPrefix(w, "-Dflaky.order="); ok {
				return p
			}
			if w == "--order" && i+1 < len(words) {
				return words[i+1]
			}
		}
	}
	return ""
}

// within says whether path is absolute and root or under it.
func within(root, path string) bool {
	if !filepath.IsAbs(path) {
		return false
	}
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// relative is path relative to dir (both absolute), slash-separated.
func relative(dir, path string) string {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(rel)
}
