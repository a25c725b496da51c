package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kballard/go-shellquote"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/defaultorder"
	"github.com/flakyhq/flaky/internal/maven/mvn"
)

// moduleFlag is the --module flag of the commands that work on one module.
var moduleFlag = &cli.StringFlag{Name: "module", Value: ".", Usage: "Maven module directory (the one with the pom.xml)"}

// testTimeoutFlag is a command's --test-timeout, with the default every
// command shares (launcher.DefaultTestTimeout); usage says what a cut test
// does, "(0: off)" follows.
func testTimeoutFlag(usage string) *cli.DurationFlag {
	return &cli.DurationFlag{Name: "test-timeout", Value: launcher.DefaultTestTimeout, Usage: usage + " (0: off)"}
}

// mavenProfileFlag and mavenPropertyFlag are -P and -D, accepted before the
// command (global) and after it by the commands that work on one module.
func mavenProfileFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "maven-profile", Aliases: []string{"P"}, Usage: "Maven profile(s) to activate in every Maven call and in the Surefire configuration flaky reads, e.g. -P modern-jvm (repeatable, or comma-separated)"}
}

func mavenPropertyFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "maven-property", Aliases: []string{"D"}, Usage: "Maven user property key=value for every Maven call and the poms flaky reads (repeatable)"}
}

// globalOptions are the app's global flags and writers, which every
// command's options carry.
type globalOptions struct {
	Java       string   // --java; "" means $JAVA_HOME/bin/java, else java on PATH
	Mvn        string   // --mvn, optionally with -P and -D arguments
	Profiles   []string // -P, before and after the command
	Properties []string // -D, before and after the command
	Workers    int      // --workers
	WorkersSet bool     // whether --workers was given
	Quiet      bool     // --quiet
	Debug      bool     // --debug
	Stdout     io.Writer
	Stderr     io.Writer
}

// globalsOf reads the global flags (and -P, -D given after the command).
func globalsOf(c *cli.Context) globalOptions {
	g := globalOptions{
		Java: c.String("java"), Mvn: c.String("mvn"), Workers: c.Int("workers"), WorkersSet: c.IsSet("workers"),
		Quiet: c.Bool("quiet"), Debug: c.Bool("debug"), Stdout: c.App.Writer, Stderr: c.App.ErrWriter,
	}
	// Each context answers with its own flags, or its parent's: gather all,
	// the global ones first (a property given twice: the later wins).
	lineage := c.Lineage()
	for i := len(lineage) - 1; i >= 0; i-- {
		for _, p := range lineage[i].StringSlice("maven-profile") {
			if !slices.Contains(g.Profiles, p) {
				g.Profiles = append(g.Profiles, p)
			}
		}
		g.Properties = append(g.Properties, lineage[i].StringSlice("maven-property")...)
	}
	return g
}

// java is the java executable: --java, else $JAVA_HOME/bin/java, else java.
func (g globalOptions) java() string {
	if g.Java != "" {
		return g.Java
	}
	if home := os.Getenv("JAVA_HOME"); home != "" {
		return filepath.Join(home, "bin", "java")
	}
	return "java"
}

// debugLog is where debug notes go: stderr with --debug, else nowhere.
func (g globalOptions) debugLog() io.Writer {
	if g.Debug {
		return g.Stderr
	}
	return io.Discard
}

// openModule prepares the module in dir and starts a launcher for it; the
// caller closes the launcher.
func (g globalOptions) openModule(ctx context.Context, dir string, opts launcher.Options) (*mvn.TestSetup, *launcher.Launcher, error) {
	if g.Workers < 1 {
		return nil, nil, usageError("--workers must be at least 1, not %d", g.Workers)
	}
	opts.Workers = g.Workers
	setup, err := g.prepare(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	jars, err := agent.Extract()
	if err != nil {
		return nil, nil, err
	}
	l, err := launcher.New(g.env(setup), jars, opts)
	if err != nil {
		return nil, nil, err
	}
	return setup, l, nil
}

// env is the environment of the module's JVMs.
// listModule lists the module's selected tests with l in their default
// order (defaultorder.Of) and returns them with their ids and which order
// that is.
func listModule(ctx context.Context, setup *mvn.TestSetup, l *launcher.Launcher) ([]launcher.TestInfo, []string, string, error) {
	infos, err := l.List(ctx, launcher.Selection{TestClassesDir: setup.TestClassesDir, Includes: setup.Includes, Excludes: setup.Excludes})
	if err != nil {
		return nil, nil, "", fmt.Errorf("list tests: %w", err)
	}
	if len(infos) == 0 {
		if class := testLikeClass(setup.TestClassesDir); class != "" {
			return nil, nil, "", fmt.Errorf("list tests: no tests found, yet %s is compiled: the test class path may be broken (run mvn test-compile, or %s)", class, resolveAgain(setup))
		}
	}
	infos, how, err := defaultorder.Of(setup, infos, time.Now())
	if err != nil {
		return nil, nil, "", err
	}
	return infos, launcher.IDs(infos), how, nil
}

// resolveAgain says how to have Maven resolve the module's class path
// again: delete the files it is kept in, the shared one of other folders
// included.
func resolveAgain(setup *mvn.TestSetup) string {
	if len(setup.ClasspathFiles) == 0 {
		return "remove target/flaky/cache"
	}
	return "delete " + strings.Join(setup.ClasspathFiles, " and ") + " to have Maven resolve it again"
}

// testLikeClass returns the first top-level class under dir named as
// Surefire's default includes name tests (Test*, *Test, *Tests, *TestCase);
// "" when there is none.
func testLikeClass(dir string) string {
	found := ""
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		name, ok := strings.CutSuffix(d.Name(), ".class")
		if !ok || strings.Contains(name, "$") {
			return nil
		}
		if strings.HasPrefix(name, "Test") || strings.HasSuffix(name, "Test") || strings.HasSuffix(name, "Tests") || strings.HasSuffix(name, "TestCase") {
			found = p
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// projectRoot is the --root the user gave, made absolute, or else the
// root of the reactor on disk that builds the module.
func projectRoot(setup *mvn.TestSetup, root string) (string, error) {
	if root == "" {
		return setup.ReactorRoot, nil
	}
	return filepath.Abs(root)
}

func (g globalOptions) env(setup *mvn.TestSetup) launcher.Env {
	return setup.LaunchEnv(g.java())
}

// prepare compiles the module in dir when needed and resolves its test
// class path with the command's Maven options, keeping the class path in
// flaky's cache for the same build in another folder too.
func (g globalOptions) prepare(ctx context.Context, dir string) (*mvn.TestSetup, error) {
	mvnCmd, mavenArgs, err := g.mavenOptions()
	if err != nil {
		return nil, err
	}
	shared, _ := agent.CacheDir() // without one, the class path is kept in the module alone
	setup, err := mvn.Prepare(ctx, dir, mvn.PrepareOptions{Mvn: mvnCmd, Log: g.Stderr, Debug: g.debugLog(), Maven: mavenArgs, SharedCache: shared})
	if err != nil {
		return nil, fmt.Errorf("prepare module: %w", err)
	}
	return setup, nil
}

// mavenOptions returns the Maven command and the profiles and properties
// of -P and -D (before and after the command) and of the --mvn command's
// own -P and -D arguments.
func (g globalOptions) mavenOptions() (string, mvn.MavenArgs, error) {
	profiles, props := slices.Clone(g.Profiles), slices.Clone(g.Properties)
	cmd := g.Mvn
	if strings.ContainsAny(cmd, " \t") {
		words, err := shellquote.Split(cmd)
		if err != nil || len(words) == 0 {
			return "", mvn.MavenArgs{}, usageError("--mvn %q: %v", cmd, err)
		}
		cmd = words[0]
		for _, w := range words[1:] {
			switch {
			case strings.HasPrefix(w, "-P") && len(w) > 2:
				profiles = append(profiles, w[2:])
			case strings.HasPrefix(w, "-D") && len(w) > 2:
				props = append(props, w[2:])
			default:
				return "", mvn.MavenArgs{}, usageError("--mvn %q: only -PPROFILE and -DKEY=VALUE may follow the command, not %q", g.Mvn, w)
			}
		}
	}
	args, err := mvn.ParseMavenArgs(profiles, props)
	if err != nil {
		return "", mvn.MavenArgs{}, usageError("%v", err)
	}
	return cmd, args, nil
}

// noArgs rejects positional arguments.
func noArgs(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("%s takes no arguments, got %q", c.Command.Name, c.Args().Slice())
	}
	return nil
}
