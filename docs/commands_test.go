package docs

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kballard/go-shellquote"
	"github.com/yuin/goldmark/ast"
)

// notCommands are code spans that start like a flaky command but are what
// flaky prints.
var notCommands = map[string]string{
	"flaky dev": "the version of a binary without build information",
}

// valueFlags are flaky's global flags that take a value as the next word.
var valueFlags = map[string]bool{
	"--java": true, "--mvn": true, "--workers": true,
	"--maven-profile": true, "-P": true, "--maven-property": true, "-D": true,
}

// commandWord is what a command's name looks like; other words after
// "flaky" (a version, a placeholder such as COMMAND) are not commands.
var commandWord = regexp.MustCompile(`^[a-z][a-z-]*$`)

// blockInvocation finds a flaky invocation in a line of a code block: at the
// line's start (after a YAML list's "- " or "run:"), or after a shell's
// "&&", ";", "|" or "$(".
var blockInvocation = regexp.MustCompile(`(?:^\s*(?:-\s+)?(?:run:\s*)?|&&\s*|;\s*|\|\s*|\$\(\s*)(?:bin/)?flaky\s+(.*)`)

// invocation is a flaky command a page shows: the command and, for one with
// subcommands, the word after it.
type invocation struct {
	text, command, sub string
}

// parseInvocation reads the command of the words after "flaky", skipping
// global flags; ok is false when no word names a command.
func parseInvocation(rest string) (inv invocation, ok bool) {
	words, err := shellquote.Split(rest)
	if err != nil {
		words = strings.Fields(rest)
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if strings.HasPrefix(w, "-") {
			if valueFlags[w] {
				i++
			}
			continue
		}
		if !commandWord.MatchString(w) {
			return inv, false
		}
		inv.command = w
		if i+1 < len(words) && commandWord.MatchString(words[i+1]) {
			inv.sub = words[i+1]
		}
		return inv, true
	}
	return inv, false
}

// invocations are the flaky commands of a page's code blocks and code spans.
func (p *page) invocations() []invocation {
	var out []invocation
	add := func(text, rest string) {
		if inv, ok := parseInvocation(rest); ok {
			inv.text = text
			out = append(out, inv)
		}
	}
	_ = ast.Walk(p.doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.CodeBlock, *ast.FencedCodeBlock:
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				line := strings.TrimRight(string(seg.Value(p.src)), "\n")
				for _, m := range blockInvocation.FindAllStringSubmatch(line, -1) {
					add(line, m[1])
				}
			}
		case *ast.CodeSpan:
			span := plainText(n, p.src)
			if _, skip := notCommands[span]; skip {
				return ast.WalkSkipChildren, nil
			}
			for _, prefix := range []string{"flaky ", "bin/flaky "} {
				if rest, ok := strings.CutPrefix(span, prefix); ok {
					add(span, rest)
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

// helpCommands are the commands (and aliases) a --help page lists under
// COMMANDS.
func helpCommands(t *testing.T, bin string, args ...string) map[string]bool {
	t.Helper()
	out, err := exec.Command(bin, append(args, "--help")...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s --help: %v\n%s", bin, strings.Join(args, " "), err, out)
	}
	cmds := map[string]bool{}
	in := false
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "COMMANDS:":
			in = true
		case in && strings.TrimSpace(line) == "":
			in = false
		case in:
			names, _, _ := strings.Cut(strings.TrimSpace(line), "  ")
			for _, name := range strings.Split(names, ",") {
				cmds[strings.TrimSpace(name)] = true
			}
		}
	}
	if len(cmds) == 0 {
		t.Fatalf("%s %s --help lists no commands:\n%s", bin, strings.Join(args, " "), out)
	}
	return cmds
}

// TestCommandsExist checks that every flaky command the pages show (in code
// blocks and code spans) is one `flaky --help` lists, and every baseline
// subcommand one `flaky baseline --help` lists.
func TestCommandsExist(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "flaky")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/flakyhq/flaky/cmd/flaky").CombinedOutput(); err != nil {
		t.Fatalf("building flaky: %v\n%s", err, out)
	}
	commands := helpCommands(t, bin)
	subcommands := map[string]map[string]bool{"baseline": helpCommands(t, bin, "baseline")}
	seen := 0
	for _, f := range pages(t, repoRoot) {
		p, err := parse(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, inv := range p.invocations() {
			seen++
			if !commands[inv.command] {
				t.Errorf("%s: %q: flaky has no command %q", f, inv.text, inv.command)
				continue
			}
			if subs, ok := subcommands[inv.command]; ok && inv.sub != "" && !subs[inv.sub] {
				t.Errorf("%s: %q: flaky %s has no command %q", f, inv.text, inv.command, inv.sub)
			}
		}
	}
	if seen == 0 {
		t.Error("the pages show no flaky command at all: the search is broken")
	}
}

// TestInvocations checks which words of a code block or span count as a flaky
// command.
func TestInvocations(t *testing.T) {
	tests := []struct {
		name, page string
		want       []string // command/sub of each invocation
	}{
		{"block line", "    flaky init    # comment\n", []string{"init/"}},
		{"after &&", "    make build && bin/flaky list-tests --module m\n", []string{"list-tests/"}},
		{"yaml", "```yaml\n- run: flaky detect --seed 1\n- flaky merge --module core parts/*\n```\n", []string{"detect/", "merge/"}},
		{"global flags", "    flaky --java /j/java -P a,b --mvn \"mvn -Px\" -q chaos --module c\n", []string{"chaos/"}},
		{"subcommand", "`flaky baseline remove --root D T`", []string{"baseline/remove"}},
		{"version output", "    flaky v0.3.0-2-gabcdef1 (commit abcdef123456)\n", nil},
		{"prose in a block", "    [ERROR] flaky: the flaky gate failed in module core\n", nil},
		{"placeholder", "`flaky COMMAND --help`", nil},
		{"property", "`flaky.order=FILE`", nil},
		{"flags only", "`flaky --version`", nil},
		{"printed, not a command", "`flaky dev`", nil},
		{"typo", "    flaky detekt --module m\n", []string{"detekt/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.md")
			writeFile(t, path, tt.page)
			p, err := parse(path)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, inv := range p.invocations() {
				got = append(got, inv.command+"/"+inv.sub)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("invocations %q, want %q", got, tt.want)
			}
		})
	}
}
