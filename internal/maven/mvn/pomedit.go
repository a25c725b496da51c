package mvn

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/flakyhq/flaky/internal/base/safewrite"
)

// BackupDir is where, relative to the project's root, flaky keeps the copy
// of each pom it rewrites, at the pom's own path below it
// (.flaky/backups/core/pom.xml); a .gitignore of "*" there keeps git (and
// `git add -A`) away from them, and from nothing else under .flaky (whose
// baseline.json a project commits).
const BackupDir = ".flaky/backups"

// BackupPath is the first backup of the pom at path in the project at root
// (see BackupDir; both absolute, links resolved); later ones get .1, .2,
// ... appended. A pom outside root (a link out of the project) has its
// backup under BackupDir/elsewhere at its whole path.
func BackupPath(root, path string) string {
	dir := filepath.Join(root, filepath.FromSlash(BackupDir))
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.Join(dir, "elsewhere", path)
	}
	return filepath.Join(dir, rel)
}

// resolved is dir absolute, with its links resolved (as openPom's paths).
func resolved(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", dir, err)
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return "", fmt.Errorf("resolve %s: %w", dir, err)
	}
	return abs, nil
}

// ignoreBackups makes sure the backup folder of the project at root exists
// with its .gitignore; a .gitignore there already is left as it is.
func ignoreBackups(root string) error {
	dir := filepath.Join(root, filepath.FromSlash(BackupDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("back up the poms: %w", err)
	}
	ignore := filepath.Join(dir, ".gitignore")
	if _, err := os.Lstat(ignore); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := safewrite.Atomic(ignore, []byte("# flaky's backups of the poms it changed (flaky init); not for git\n*\n"), 0o644); err != nil {
		return fmt.Errorf("back up the poms: %w", err)
	}
	return nil
}

// pomStyle is how a file is laid out: its line ending and indentation unit.
type pomStyle struct {
	eol  string
	unit string
}

// detectStyle finds the file's line ending (that of its first line) and
// indentation unit (what a child element's line adds to its parent's),
// defaulting to "\n" and two spaces.
func detectStyle(content []byte, root *xmlNode) pomStyle {
	s := pomStyle{eol: "\n", unit: "  "}
	if i := bytes.IndexAny(content, "\r\n"); i >= 0 && content[i] == '\r' {
		s.eol = "\r"
		if i+1 < len(content) && content[i+1] == '\n' {
			s.eol = "\r\n"
		}
	}
	if u := indentUnit(content, root); u != "" {
		s.unit = u
	}
	return s
}

// indentUnit returns the indentation a child line adds to its parent's line,
// looking at the root's children first, then breadth first; "" if unknown.
func indentUnit(content []byte, root *xmlNode) string {
	queue := []*xmlNode{root}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		parent, ok := lineIndent(content, n.start)
		for _, c := range n.children {
			if ci, cok := lineIndent(content, c.start); ok && cok && len(ci) > len(parent) && ci[:len(parent)] == parent {
				return ci[len(parent):]
			}
		}
		queue = append(queue, n.children...)
	}
	return ""
}

// lineIndent returns the spaces and tabs before offset off on its line, and
// whether only those precede it there.
func lineIndent(content []byte, off int) (string, bool) {
	i := off
	for i > 0 && (content[i-1] == ' ' || content[i-1] == '\t') {
		i--
	}
	if i > 0 && content[i-1] != '\n' && content[i-1] != '\r' {
		return "", false
	}
	return string(content[i:off]), true
}

// childIndent is the indentation of n's children: that of its first child
// that starts a line, else n's own plus one unit.
func childIndent(content []byte, n *xmlNode, style pomStyle) string {
	for _, c := range n.children {
		if ci, ok := lineIndent(content, c.start); ok {
			return ci
		}
	}
	own, _ := lineIndent(content, n.start)
	return own + style.unit
}

// elementIndent is the indentation of element n: its line's if it starts
// one, else what its parent's children get.
func elementIndent(content []byte, parent, n *xmlNode, style pomStyle) string {
	if ci, ok := lineIndent(content, n.start); ok {
		return ci
	}
	return childIndent(content, parent, style)
}

// appendPoint is where content appended to element n goes: right after the
// last non-whitespace byte before n's end tag.
func appendPoint(content []byte, n *xmlNode) int {
	i := n.innerEnd
	for i > n.innerStart && isXMLSpace(content[i-1]) {
		i--
	}
	return i
}

// cutStart is where removing element n begins: at the last line break of
// the whitespace before it (so its line goes with it), else at the start of
// that whitespace.
func cutStart(content []byte, n *xmlNode) int {
	i := n.start
	for i > 0 && isXMLSpace(content[i-1]) {
		i--
	}
	ws := content[i:n.start]
	if j := bytes.LastIndexAny(ws, "\r\n"); j >= 0 {
		if ws[j] == '\n' && j > 0 && ws[j-1] == '\r' {
			j--
		}
		return i + j
	}
	return i
}

func isXMLSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\r' || b == '\n'
}

// splice returns content with content[from:to] replaced by insert.
func splice(content []byte, from, to int, insert []byte) []byte {
	out := make([]byte, 0, len(content)-(to-from)+len(insert))
	out = append(out, content[:from]...)
	out = append(out, insert...)
	return append(out, content[to:]...)
}

// eolAt returns the line ending of the line break nearest before off (else
// after it), or fallback when content has none.
func eolAt(content []byte, off int, fallback string) string {
	i := bytes.LastIndexAny(content[:off], "\r\n")
	if i < 0 {
		if j := bytes.IndexAny(content[off:], "\r\n"); j >= 0 {
			i = off + j
		}
	}
	switch {
	case i < 0:
		return fallback
	case content[i] == '\n' && i > 0 && content[i-1] == '\r', content[i] == '\r' && i+1 < len(content) && content[i+1] == '\n':
		return "\r\n"
	case content[i] == '\r':
		return "\r"
	}
	return "\n"
}

// writePom replaces the file at path, in the project at root, by content:
// it first saves old in a new backup file (BackupPath, else with .1, .2,
// ... appended: a backup is never overwritten), then writes content to a
// temporary file in the same directory and renames it over path, keeping
// the file's permissions. A read-only pom is refused unless force. It
// returns the backup.
func writePom(root, path string, old, content []byte, force bool) (string, error) {
	fi, err := writable(path, force)
	if err != nil {
		return "", err
	}
	name := BackupPath(root, path)
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return "", fmt.Errorf("back up %s: %w", path, err)
	}
	backup, err := safewrite.Backup(name, old, fi.Mode().Perm()|0o200)
	if err != nil {
		return "", fmt.Errorf("back up %s: %w", path, err)
	}
	if err := safewrite.Atomic(path, content, fi.Mode().Perm()); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return backup, nil
}

// writable stats the pom at path and refuses it when it is read-only,
// unless force.
func writable(path string, force bool) (os.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	if fi.Mode().Perm()&0o200 == 0 && !force {
		return nil, fmt.Errorf("%s is read-only (mode %04o); flaky leaves it alone: make it writable, or pass --force", path, fi.Mode().Perm())
	}
	return fi, nil
}

// pomEdit is new content for the pom at path, which holds old.
type pomEdit struct {
	path         string
	old, content []byte
}

// writePoms writes each edit of the project at root with writePom once
// every pom has been found writable (see writable), so a refusal changes
// none; the backups go under root's BackupDir, which git ignores. It
// returns the backups of the poms written, by pom path, also on an error.
func writePoms(root string, edits []pomEdit, force bool) (map[string]string, error) {
	for _, e := range edits {
		if _, err := writable(e.path, force); err != nil {
			return nil, err
		}
	}
	if len(edits) == 0 {
		return nil, nil
	}
	root, err := resolved(root)
	if err != nil {
		return nil, err
	}
	if err := ignoreBackups(root); err != nil {
		return nil, err
	}
	backups := map[string]string{}
	for _, e := range edits {
		backup, err := writePom(root, e.path, e.old, e.content, force)
		if err != nil {
			return backups, err
		}
		backups[e.path] = backup
	}
	return backups, nil
}
