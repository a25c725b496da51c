package docs

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// repoRoot is the repository's root, seen from this package's folder.
const repoRoot = ".."

// pages are the Markdown files whose links are checked, relative to the
// repository's root.
func pages(t *testing.T, root string) []string {
	t.Helper()
	found, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{filepath.Join(root, "README.md"), filepath.Join(root, "SECURITY.md")}
	return append(files, found...)
}

// page is one parsed Markdown file.
type page struct {
	path string
	src  []byte
	doc  ast.Node
}

// parse reads and parses a Markdown file as GitHub does (tables included).
func parse(path string) (*page, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	return &page{path: path, src: src, doc: md.Parser().Parse(text.NewReader(src))}, nil
}

// plainText is the text of an inline tree: its text and code spans, without
// the Markdown around them.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// slug is GitHub's anchor for a heading's text: lower case, letters, digits,
// '-' and '_' kept, spaces made '-', everything else dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), unicode.IsMark(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// anchors are the heading anchors of a page, GitHub's way: a repeated slug
// gets -1, -2, ...
func (p *page) anchors() map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	_ = ast.Walk(p.doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		s := slug(plainText(h, p.src))
		if k := seen[s]; k > 0 {
			out[fmt.Sprintf("%s-%d", s, k)] = true
		} else {
			out[s] = true
		}
		seen[s]++
		return ast.WalkSkipChildren, nil
	})
	return out
}

// link is a link or image destination of a page.
type link struct {
	dest string
	line int
}

// lineOf is the line of the block that holds n, from 1 (0 when unknown).
func lineOf(n ast.Node, src []byte) int {
	for ; n != nil; n = n.Parent() {
		if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
			return bytes.Count(src[:n.Lines().At(0).Start], []byte("\n")) + 1
		}
	}
	return 0
}

// links are the destinations of a page's links and images.
func (p *page) links() []link {
	var out []link
	_ = ast.Walk(p.doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			out = append(out, link{string(n.Destination), lineOf(n, p.src)})
		case *ast.Image:
			out = append(out, link{string(n.Destination), lineOf(n, p.src)})
		}
		return ast.WalkContinue, nil
	})
	return out
}

// checkLinks returns a problem for each relative link of the files that names
// a file that does not exist, or an anchor that is no heading of its page.
func checkLinks(files []string) ([]string, error) {
	parsed := map[string]*page{}
	load := func(path string) (*page, error) {
		if p, ok := parsed[path]; ok {
			return p, nil
		}
		p, err := parse(path)
		if err == nil {
			parsed[path] = p
		}
		return p, err
	}
	var problems []string
	for _, f := range files {
		p, err := load(f)
		if err != nil {
			return nil, err
		}
		for _, l := range p.links() {
			u, err := url.Parse(l.dest)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s:%d: %q: %v", f, l.line, l.dest, err))
				continue
			}
			if u.Scheme != "" || u.Host != "" {
				continue // not a relative link
			}
			target := f
			if u.Path != "" {
				target = filepath.Join(filepath.Dir(f), filepath.FromSlash(u.Path))
			}
			if _, err := os.Stat(target); err != nil {
				problems = append(problems, fmt.Sprintf("%s:%d: %q: no such file %s", f, l.line, l.dest, target))
				continue
			}
			if u.Fragment == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			tp, err := load(target)
			if err != nil {
				return nil, err
			}
			if !tp.anchors()[u.Fragment] {
				problems = append(problems, fmt.Sprintf("%s:%d: %q: %s has no heading #%s", f, l.line, l.dest, target, u.Fragment))
			}
		}
	}
	return problems, nil
}

// TestLinksResolve checks every relative link and anchor of the README, the
// security page and the docs pages.
func TestLinksResolve(t *testing.T) {
	problems, err := checkLinks(pages(t, repoRoot))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestCheckLinksFindsBrokenOnes checks the checker on pages with known good
// and broken links.
func TestCheckLinksFindsBrokenOnes(t *testing.T) {
	tests := []struct {
		name, page string
		broken     bool
	}{
		{"file and anchor", "[a](b.md#pull-requests-change-mode)", false},
		{"own anchor", "# Top\n\n[a](#top)", false},
		{"repeated heading", "[a](b.md#same-1)", false},
		{"in a table", "| x |\n|---|\n| [a](b.md#nope) |", true},
		{"missing file", "[a](c.md)", true},
		{"missing anchor", "[a](b.md#pull-requests)", true},
		{"missing own anchor", "# Top\n\n[a](#bottom)", true},
		{"image", "![a](img.png)", true},
		{"inside code is no link", "`[a](n)` and\n\n    [b](m)\n", false},
		{"absolute URL", "[a](https://example.org/x.md#y)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			b := "# Pull requests: change mode\n\n## Same\n\n## Same\n"
			writeFile(t, filepath.Join(dir, "b.md"), b)
			a := filepath.Join(dir, "a.md")
			writeFile(t, a, tt.page+"\n")
			problems, err := checkLinks([]string{a})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(problems) > 0; got != tt.broken {
				t.Errorf("broken = %v, want %v (%q)", got, tt.broken, problems)
			}
		})
	}
}

func TestSlug(t *testing.T) {
	tests := []struct{ heading, want string }{
		{"Pull requests: change mode", "pull-requests-change-mode"},
		{"init's backups", "inits-backups"},
		{"Reproduce commands in summary.md", "reproduce-commands-in-summarymd"},
		{"Data dependencies (dataflow)", "data-dependencies-dataflow"},
		{"install-artifacts", "install-artifacts"},
	}
	for _, tt := range tests {
		if got := slug(tt.heading); got != tt.want {
			t.Errorf("slug(%q) = %q, want %q", tt.heading, got, tt.want)
		}
	}
}

// writeFile writes a test's file.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
