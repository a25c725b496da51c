// Class names in generated code: plans write classes fully qualified, and
// the edit names them simply where the file the code goes into can.

package repair

import (
	"slices"
	"strings"
	"unicode"

	"github.com/flakyhq/flaky/internal/fix/editor"
)

// fileNames is what a source file can name simply: its package, its
// single-type imports, the packages it imports on demand, and whether a
// class of a simple name lives in its own package.
type fileNames struct {
	pkg      string
	single   []string // a.b.C
	onDemand []string // a.b
	// inPkg tells whether the file's package declares a class of a simple name.
	inPkg func(simple string) bool
}

// namesOf is what the file described by info can name simply.
func (r *run) namesOf(info *editor.ClassInfo) fileNames {
	n := fileNames{pkg: info.Package, inPkg: func(simple string) bool {
		dir := strings.ReplaceAll(info.Package, ".", "/")
		if dir != "" {
			dir += "/"
		}
		_, ok := r.src.byPkg[dir+simple+".java"]
		return ok
	}}
	for _, imp := range info.Imports {
		if strings.HasPrefix(imp, "static ") {
			continue
		}
		if pkg, ok := strings.CutSuffix(imp, ".*"); ok {
			n.onDemand = append(n.onDemand, pkg)
		} else {
			n.single = append(n.single, imp)
		}
	}
	return n
}

// simple is how the file names the class fq (pkg.Class or
// pkg.Outer.Inner, with nested names after dots): by its simple name when
// the file imports it by name; for a top-level class also when it is in
// java.lang or the file's package, or in a package the file imports on
// demand that its own package does not shadow; and never when another
// single-type import takes the simple name. ok is false when the file must
// name it fully.
func (n fileNames) simple(fq string, topLevel bool) (string, bool) {
	name := fq[strings.LastIndexByte(fq, '.')+1:]
	if slices.Contains(n.single, fq) {
		return name, true
	}
	if !topLevel || slices.ContainsFunc(n.single, func(imp string) bool { return strings.HasSuffix(imp, "."+name) }) {
		return "", false
	}
	pkg := pkgOf(fq)
	switch {
	case pkg == "java.lang", pkg == n.pkg:
		return name, true
	case slices.Contains(n.onDemand, pkg) && (n.inPkg == nil || !n.inPkg(name)):
		return name, true
	}
	return "", false
}

// simplify rewrites the fully qualified class names in Java code (outside
// string and character literals) to the names the file can use: a dotted
// chain a.b.C.rest whose first capitalised part is a class becomes C.rest,
// or Inner.rest for an imported nested class a.b.C.Inner.
func (n fileNames) simplify(code string) string {
	var b strings.Builder
	rs := []rune(code)
	for i := 0; i < len(rs); {
		c := rs[i]
		switch {
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(rs) && rs[j] != c {
				if rs[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(rs))
			b.WriteString(string(rs[i:j]))
			i = j
		case isIdentStart(c) && (i == 0 || !isIdentPart(rs[i-1]) && rs[i-1] != '.'):
			j := i
			var parts []string
			for {
				k := j
				for k < len(rs) && isIdentPart(rs[k]) {
					k++
				}
				parts = append(parts, string(rs[j:k]))
				j = k
				if j+1 < len(rs) && rs[j] == '.' && isIdentStart(rs[j+1]) {
					j++
					continue
				}
				break
			}
			b.WriteString(n.chain(parts))
			i = j
		default:
			b.WriteRune(c)
			i++
		}
	}
	return b.String()
}

// chain is a dotted chain of identifiers with its leading package named
// away where the file allows it.
func (n fileNames) chain(parts []string) string {
	k := slices.IndexFunc(parts, func(p string) bool { return unicode.IsUpper([]rune(p)[0]) })
	if k <= 0 || slices.ContainsFunc(parts[:k], func(p string) bool { return !unicode.IsLower([]rune(p)[0]) }) {
		return strings.Join(parts, ".")
	}
	for j := k; j < len(parts) && unicode.IsUpper([]rune(parts[j])[0]); j++ {
		if name, ok := n.simple(strings.Join(parts[:j+1], "."), j == k); ok {
			return strings.Join(append([]string{name}, parts[j+1:]...), ".")
		}
	}
	return strings.Join(parts, ".")
}

func isIdentStart(c rune) bool { return c == '_' || c == '$' || unicode.IsLetter(c) }

func isIdentPart(c rune) bool { return isIdentStart(c) || unicode.IsDigit(c) }
