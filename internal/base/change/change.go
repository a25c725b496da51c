// Package change says what a change touches: the files changed in the git
// repository of a module since the merge base of HEAD and a base ref (plus
// the uncommitted and untracked files), sorted into the module's test
// classes, production classes, resources, build files and the rest.
package change

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/kballard/go-shellquote"
)

// DefaultTestRoots are the module's test source roots when the caller names none.
var DefaultTestRoots = []string{"src/test/java"}

// Change is what changed in a module since a base.
type Change struct {
	Ref  string // the base as given
	Base string // the merge base of HEAD and Ref
	Head string // HEAD's commit
	// Top is the repository's root; Module the module's directory
	// relative to it, slash-separated ("" for the root itself).
	Top, Module string
	// Files are the changed paths, relative to the repository's root, sorted.
	Files []string
	// TestClasses are the binary names of the module's changed (added,
	// modified or deleted) test classes: the top-level class of each .java
	// file under a test root.
	TestClasses []string
	// Classes are the binary names of the changed production classes: the
	// top-level class of each .java file under a src/main/java of the
	// repository (the module's or another's).
	Classes []string
	// Resources are the module's changed resources and its other files
	// that are neither code nor documentation: they may change any test.
	Resources []string
	// Build are the changed build files of the module and its parents
	// (pom.xml): they may change every test.
	Build []string
	// Other are the files that change no test: documentation, CI
	// configuration, other modules' tests and files.
	Other []string
	// Members say, per changed test or production class (by the name in
	// TestClasses or Classes), what changed inside it; the caller fills
	// them from the sources (DiffMembers). A class without an entry
	// changed as a whole.
	Members map[string]*Members

	// paths are the files of the classes in TestClasses and Classes.
	paths map[string]string
}

// Everything reports whether the change may affect every test of the
// module: a build file or a resource changed.
func (c *Change) Everything() bool { return len(c.Build) > 0 || len(c.Resources) > 0 }

// Inert reports whether the change affects no test: only documentation
// and other files outside the module's code changed.
func (c *Change) Inert() bool {
	return len(c.TestClasses) == 0 && len(c.Classes) == 0 && !c.Everything()
}

// Seed returns the seed a change's analysis of the module derives from
// HEAD's commit: the same commit gets the same orders, hence the same
// verdict.
func (c *Change) Seed() int64 {
	h := fnv.New64a()
	h.Write([]byte(c.Head + "\x00" + c.Module))
	return int64(h.Sum64() &^ (1 << 63))
}

// Options tune Since.
type Options struct {
	// TestRoots are the module's test source roots relative to its
	// directory; nil means DefaultTestRoots.
	TestRoots []string
}

// Since returns what changed in the module at dir since the merge base of
// HEAD and ref, up to the working tree: the commits since the base, the
// staged and unstaged changes and the untracked files git does not ignore.
// A rename counts as a deletion and an addition.
func Since(dir, ref string, opts Options) (*Change, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("change: %w", err)
	}
	top, err := git(abs, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("change: %s is not in a git repository: %w", dir, err)
	}
	head, err := git(abs, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return nil, fmt.Errorf("change: the repository has no commit yet: %w", err)
	}
	if _, err := git(abs, "rev-parse", "--verify", "--quiet", ref+"^{commit}"); err != nil {
		return nil, fmt.Errorf("change: the base %q is not a commit of this repository%s", ref, fetchHint(abs, ref))
	}
	base, err := git(abs, "merge-base", "HEAD", ref)
	if err != nil {
		return nil, fmt.Errorf("change: HEAD and %q have no merge base%s", ref, fetchHint(abs, ref))
	}
	diff, err := git(top, "diff", "--name-only", "--no-renames", "-z", base, "--")
	if err != nil {
		return nil, fmt.Errorf("change: the files changed since %s: %w", base, err)
	}
	untracked, err := git(top, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return nil, fmt.Errorf("change: the untracked files: %w", err)
	}
	files := slices.Concat(split0(diff), split0(untracked))
	slices.Sort(files)
	files = slices.Compact(files)
	module, err := relModule(top, abs)
	if err != nil {
		return nil, err
	}
	roots := opts.TestRoots
	if roots == nil {
		roots = DefaultTestRoots
	}
	c := &Change{Ref: ref, Base: base, Head: head, Top: top, Module: module, Files: files}
	for _, f := range files {
		c.add(f, module, roots)
	}
	for _, s := range []*[]string{&c.TestClasses, &c.Classes} {
		slices.Sort(*s)
		*s = slices.Compact(*s)
	}
	return c, nil
}

// fetchHint says how to get the base's history into a clone that lacks it.
func fetchHint(dir, ref string) string {
	if shallow, _ := git(dir, "rev-parse", "--is-shallow-repository"); shallow == "true" {
		return ": this clone is shallow; fetch the history (git fetch --unshallow, or fetch-depth: 0 in actions/checkout, GIT_DEPTH: 0 on GitLab)"
	}
	return fmt.Sprintf(": fetch it first (git fetch origin %s)", QuoteRef(strings.TrimPrefix(ref, "origin/")))
}

// QuoteRef is ref as messages and hints show it: quoted for a POSIX shell
// where it needs quoting (a hint's command stays one command, whatever the
// ref holds), and Go-quoted when it holds a control character, so that a
// newline in it cannot start a line of its own (on GitHub Actions, a
// line of the log that starts with :: is a workflow command).
func QuoteRef(ref string) string {
	if strings.IndexFunc(ref, unicode.IsControl) >= 0 {
		return strconv.Quote(ref)
	}
	return shellquote.Join(ref)
}

// relModule returns the module's directory relative to the repository's
// root, slash-separated ("" for the root itself).
func relModule(top, dir string) (string, error) {
	t, err := filepath.EvalSymlinks(top)
	if err != nil {
		return "", fmt.Errorf("change: %w", err)
	}
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("change: %w", err)
	}
	rel, err := filepath.Rel(t, d)
	if err != nil {
		return "", fmt.Errorf("change: %w", err)
	}
	if rel == "." {
		return "", nil
	}
	return filepath.ToSlash(rel), nil
}

// add sorts one changed file (relative to the repository's root) into c.
func (c *Change) add(file, module string, testRoots []string) {
	inModule := module == "" || strings.HasPrefix(file, module+"/")
	rel := file
	if module != "" {
		rel = strings.TrimPrefix(file, module+"/")
	}
	switch {
	case path.Base(file) == "pom.xml" && (path.Dir(file) == "." || strings.HasPrefix(module+"/", path.Dir(file)+"/")):
		c.Build = append(c.Build, file)
	case documentation(file):
		c.Other = append(c.Other, file)
	case inModule && testClass(rel, testRoots) != "":
		c.TestClasses = append(c.TestClasses, testClass(rel, testRoots))
		c.path(testClass(rel, testRoots), file)
	case productionClass(file) != "":
		c.Classes = append(c.Classes, productionClass(file))
		c.path(productionClass(file), file)
	case inModule:
		c.Resources = append(c.Resources, file)
	default:
		c.Other = append(c.Other, file)
	}
}

// path records the file of a class.
func (c *Change) path(class, file string) {
	if c.paths == nil {
		c.paths = map[string]string{}
	}
	c.paths[class] = file
}

// testClass returns the binary name of the top-level class a .java file
// under one of the test roots declares; "" for any other file.
func testClass(rel string, roots []string) string {
	for _, r := range roots {
		r = strings.Trim(filepath.ToSlash(r), "/") + "/"
		if name, ok := strings.CutPrefix(rel, r); ok {
			return javaClass(name)
		}
	}
	return ""
}

// productionClass returns the binary name of the top-level class a .java
// file under any src/main/java declares; "" for any other file.
func productionClass(file string) string {
	const root = "src/main/java/"
	if name, ok := strings.CutPrefix(file, root); ok {
		return javaClass(name)
	}
	if _, name, ok := strings.Cut(file, "/"+root); ok {
		return javaClass(name)
	}
	return ""
}

// javaClass turns a source path relative to its root (com/x/Foo.java)
// into a class name (com.x.Foo); "" for a file that is not Java source
// (package-info.java and module-info.java declare no class).
func javaClass(name string) string {
	base, ok := strings.CutSuffix(name, ".java")
	if !ok || strings.HasSuffix(base, "-info") {
		return ""
	}
	return strings.ReplaceAll(base, "/", ".")
}

// documentation reports whether a file is documentation or CI
// configuration that no test reads.
func documentation(file string) bool {
	base := strings.ToLower(path.Base(file))
	switch strings.ToLower(path.Ext(file)) {
	case ".md", ".adoc", ".rst", ".markdown":
		return true
	}
	for _, p := range []string{"readme", "license", "licence", "changelog", "notice", "contributing", "authors", "copying"} {
		if strings.HasPrefix(base, p) {
			return true
		}
	}
	for _, dir := range []string{".github/", ".gitlab/", "docs/", "doc/", ".circleci/"} {
		if strings.HasPrefix(file, dir) {
			return true
		}
	}
	switch base {
	case ".gitignore", ".gitattributes", ".editorconfig", ".gitlab-ci.yml", ".travis.yml", "jenkinsfile", "codeowners":
		return true
	}
	return false
}

// CIBase returns the base a CI names for the pull or merge request being
// built ("" when it names none): GitHub Actions' GITHUB_BASE_REF (a branch,
// as origin/<branch>) or GitLab's CI_MERGE_REQUEST_DIFF_BASE_SHA.
func CIBase(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if b := getenv("GITHUB_BASE_REF"); b != "" {
		return "origin/" + b
	}
	return getenv("CI_MERGE_REQUEST_DIFF_BASE_SHA")
}

// git runs git in dir and returns its output without the trailing newline.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if msg := strings.TrimSpace(errb.String()); msg != "" && errors.As(err, &ee) {
			return "", fmt.Errorf("git %s: %s", args[0], msg)
		}
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return strings.TrimSuffix(out.String(), "\n"), nil
}

// split0 splits NUL-separated output.
func split0(s string) []string {
	var out []string
	for _, f := range strings.Split(s, "\x00") {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}
