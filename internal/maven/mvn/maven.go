package mvn

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// mavenTailLines is how much of Maven's output a failure quotes.
const mavenTailLines = 40

// maven runs Maven goals in a module directory.
type maven struct {
	cmd string // executable
	dir string // where Maven runs: the module, or the root of its reactor
	// project selects the module in a reactor (-pl MODULE -am); empty when
	// Maven runs in the module itself.
	project []string
	// extra are the command's profiles and properties (MavenArgs.Args).
	extra []string
	log   func(string, ...any)
}

// FindMaven picks the Maven command: explicit, else a Maven wrapper in the
// module directory or an ancestor that is part of the same build (has a
// pom.xml), else mvn on PATH.
func FindMaven(explicit, moduleDir string) string {
	if explicit != "" {
		return explicit
	}
	for dir := moduleDir; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "pom.xml")); err != nil {
			break
		}
		w := filepath.Join(dir, "mvnw")
		if fi, err := os.Stat(w); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return w
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	return "mvn"
}

// quickStart is the Maven JVM option for a run that only resolves
// artifacts: such a short run takes about a third less time with the client
// compiler alone (1.4 s down to 0.95 s for build-classpath on a small
// module), while a compile, which runs javac in Maven's JVM for as long as
// the sources take, needs the optimising compiler. The user's MAVEN_OPTS
// come after it and so can override it.
const quickStart = "-XX:TieredStopAtLevel=1"

// run executes Maven in batch and quiet mode, without colours, with args;
// a failure carries the tail of Maven's output.
func (m *maven) run(ctx context.Context, args ...string) error {
	return m.exec(ctx, false, args)
}

// resolve is run for goals that only resolve artifacts (no compile): Maven's
// JVM starts with quickStart.
func (m *maven) resolve(ctx context.Context, args ...string) error {
	return m.exec(ctx, true, args)
}

func (m *maven) exec(ctx context.Context, quick bool, args []string) error {
	args = append(append(append([]string{"-B", "-q", "-Dstyle.color=never"}, m.extra...), m.project...), args...)
	m.log("running %s %s", m.cmd, strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, m.cmd, args...)
	cmd.Dir = m.dir
	if quick {
		cmd.Env = append(os.Environ(), "MAVEN_OPTS="+strings.TrimSpace(quickStart+" "+os.Getenv("MAVEN_OPTS")))
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		tail := strings.TrimRight(out.String(), "\n")
		if lines := strings.Split(tail, "\n"); len(lines) > mavenTailLines {
			tail = strings.Join(lines[len(lines)-mavenTailLines:], "\n")
		}
		if tail == "" {
			tail = "(no output)"
		}
		return fmt.Errorf("%s %s failed in %s: %w\n%s", m.cmd, strings.Join(args, " "), m.dir, err, tail)
	}
	return nil
}
