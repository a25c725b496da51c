package repair

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/fix/editor"

	"github.com/otiai10/copy"

	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// Module is the module a repair works on, as mvn.Prepare found it.
type Module struct {
	Dir            string   // the module directory
	ClassesDir     string   // target/classes
	TestClassesDir string   // target/test-classes
	Classpath      []string // test classes, classes, dependencies
	JVMArgs        []string
	SysProps       map[string]string
	Java           string // java executable
	Includes       []string
	Excludes       []string
	// Order puts the sandbox's tests in the module's default order (the
	// order Surefire runs, defaultorder.Of on the module itself: the
	// sandbox's directory order may differ); nil keeps the listing's order.
	Order func([]launcher.TestInfo) ([]launcher.TestInfo, error)
}

// Sandbox is a copy of the module in a work directory where candidate
// patches are applied, compiled incrementally with javac and run through the
// launcher. The module itself is never written.
type Sandbox struct {
	mod       Module
	Dir       string // the copy of the module directory
	env       launcher.Env
	l         *launcher.Launcher
	javac     string
	ed        *editor.Editor // compiles in its warm JVM when set
	release   int
	originals map[string][]byte // rel path -> the module's content, for files patched so far
	applied   map[string][]byte // rel path -> content now in the sandbox, for patched files
	dirty     map[string][]byte // sources written whose compilation failed
}

// CompileError is a candidate patch that does not compile.
type CompileError struct {
	Output string // javac's error lines, trimmed
}

func (e *CompileError) Error() string { return "does not compile:\n" + e.Output }

// NewSandbox copies the module into a new directory under workDir (its
// sources and build output; not target/flaky, not version control) and
// starts a launcher on the copy. With confine, the launcher's JVMs run
// confined (launcher.Confinement): no network, and writes only in the copy
// and their temporary directories, not in its class directories.
func NewSandbox(mod Module, workDir string, jars agent.Jars, opts launcher.Options, confine bool) (*Sandbox, error) {
	if err := os.MkdirAll(workDir, 0o755); err != nil {
		return nil, fmt.Errorf("create repair work dir: %w", err)
	}
	dir, err := os.MkdirTemp(workDir, "sandbox-")
	if err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	skip := map[string]bool{filepath.Join(mod.Dir, ".git"): true, flakydir.OfModule(mod.Dir).Path(): true}
	if abs, err := filepath.Abs(workDir); err == nil {
		skip[abs] = true
	}
	err = copy.Copy(mod.Dir, dir, copy.Options{
		Skip: func(_ os.FileInfo, src, _ string) (bool, error) { return skip[src], nil },
		// A link to a file becomes a copy of the file, so that a patch
		// written in the sandbox never reaches the link's target; other
		// links stay links, and nothing is written through them (see
		// checkNoLink).
		OnSymlink: func(src string) copy.SymlinkAction {
			if fi, err := os.Stat(src); err == nil && fi.Mode().IsRegular() {
				return copy.Deep
			}
			return copy.Shallow
		},
	})
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("copy the module into the sandbox: %w", err)
	}
	for _, out := range []string{mod.ClassesDir, mod.TestClassesDir} {
		if err := checkOutputDir(mod.Dir, dir, out); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("repair sandbox: %w", err)
		}
	}
	s := &Sandbox{mod: mod, Dir: dir, originals: map[string][]byte{}, applied: map[string][]byte{}}
	s.env = launcher.FastStart(launcher.Env{
		Java:      mod.Java,
		Classpath: s.mapPaths(mod.Classpath),
		JVMArgs:   mod.JVMArgs,
		SysProps:  s.mapProps(mod.SysProps),
		Dir:       dir,
	})
	s.javac = javacFor(mod.Java)
	s.release = classRelease(mod.TestClassesDir)
	if confine {
		opts.Confine = &launcher.Confinement{Writable: []string{dir}}
		if home, err := os.UserHomeDir(); err == nil {
			opts.Confine.Hidden = launcher.Secrets(home)
		}
		for _, d := range []string{mod.ClassesDir, mod.TestClassesDir} {
			if fi, err := os.Stat(s.mapPath(d)); err == nil && fi.IsDir() {
				opts.Confine.ReadOnly = append(opts.Confine.ReadOnly, s.mapPath(d))
			}
		}
	}
	if s.l, err = launcher.New(s.env, jars, opts); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// Close stops the launcher and removes the sandbox.
func (s *Sandbox) Close() error {
	err := s.l.Close()
	if rmErr := os.RemoveAll(s.Dir); err == nil {
		err = rmErr
	}
	return err
}

// checkOutputDir checks that javac's output directory out, a directory of
// the module at modDir, is inside the module and that its copy in the
// sandbox at dir holds no symbolic link: javac writes there.
func checkOutputDir(modDir, dir, out string) error {
	rel, ok := relInside(modDir, out)
	if !ok {
		return fmt.Errorf("class directory %s is outside the module %s: it cannot be copied into the sandbox", out, modDir)
	}
	return checkNoLinkTree(dir, rel)
}

// mapPath maps a path inside the module to its copy in the sandbox.
func (s *Sandbox) mapPath(p string) string {
	rel, ok := relInside(s.mod.Dir, p)
	if !ok {
		return p
	}
	return filepath.Join(s.Dir, rel)
}

// relInside returns p relative to dir, and whether p is inside dir.
func relInside(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

func (s *Sandbox) mapPaths(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = s.mapPath(p)
	}
	return out
}

func (s *Sandbox) mapProps(props map[string]string) map[string]string {
	out := maps.Clone(props)
	for k, v := range out {
		if filepath.IsAbs(v) {
			out[k] = s.mapPath(v)
		}
	}
	return out
}

// Run runs an order in one fresh JVM in the sandbox with agentOptions.
func (s *Sandbox) Run(ctx context.Context, order []string, agentOptions agent.Options) (*launcher.Result, error) {
	return s.l.RunWith(ctx, order, launcher.RunOptions{AgentOptions: agentOptions})
}

// List lists the sandbox's tests in the module's default order.
func (s *Sandbox) List(ctx context.Context) ([]launcher.TestInfo, error) {
	return s.l.List(ctx, launcher.Selection{TestClassesDir: s.mapPath(s.mod.TestClassesDir), Includes: s.mod.Includes, Excludes: s.mod.Excludes})
}

// Apply makes the sandbox hold the module patched with files (module-relative
// path to new content) and nothing else: files patched before and not now are
// restored. The changed sources are compiled with javac; a CompileError says
// the patch does not compile (the sandbox then holds it uncompiled, and the
// next Apply compiles those sources again).
func (s *Sandbox) Apply(ctx context.Context, files map[string][]byte) error {
	changed := map[string][]byte{}
	for rel := range s.applied {
		if _, ok := files[rel]; !ok {
			changed[rel] = s.originals[rel]
		}
	}
	for rel, data := range files {
		if cur, ok := s.applied[rel]; ok && bytes.Equal(cur, data) {
			continue
		}
		if _, ok := s.originals[rel]; !ok {
			orig, err := os.ReadFile(filepath.Join(s.mod.Dir, rel))
			if err != nil {
				return fmt.Errorf("read %s: %w", rel, err)
			}
			s.originals[rel] = orig
		}
		changed[rel] = data
	}
	for rel := range s.dirty {
		if _, ok := changed[rel]; !ok {
			if data, ok := files[rel]; ok {
				changed[rel] = data
			} else {
				changed[rel] = s.originals[rel]
			}
		}
	}
	if len(changed) == 0 {
		return nil
	}
	for rel := range changed {
		if err := checkNoLink(s.Dir, rel); err != nil {
			return fmt.Errorf("write %s into the sandbox: %w", rel, err)
		}
	}
	for rel, data := range changed {
		if err := os.WriteFile(filepath.Join(s.Dir, rel), data, 0o644); err != nil {
			return fmt.Errorf("write %s into the sandbox: %w", rel, err)
		}
		if bytes.Equal(data, s.originals[rel]) {
			delete(s.applied, rel)
		} else {
			s.applied[rel] = data
		}
	}
	err := s.compile(ctx, slices.Sorted(maps.Keys(changed)))
	s.dirty = nil
	if err != nil {
		// Their sources are written but their classes are not: the next
		// Apply compiles them again.
		s.dirty = changed
	}
	return err
}

// compile compiles the module-relative sources: main sources into the
// classes directory, test sources into the test classes directory.
func (s *Sandbox) compile(ctx context.Context, rels []string) error {
	var main, test []string
	for _, rel := range rels {
		if isTestSource(rel) {
			test = append(test, filepath.Join(s.Dir, rel))
		} else {
			main = append(main, filepath.Join(s.Dir, rel))
		}
	}
	if len(main) > 0 {
		if err := s.javacRun(ctx, s.mapPath(s.mod.ClassesDir), main); err != nil {
			return err
		}
	}
	if len(test) > 0 {
		return s.javacRun(ctx, s.mapPath(s.mod.TestClassesDir), test)
	}
	return nil
}

// isTestSource tells whether a module-relative source path is a test source.
func isTestSource(rel string) bool {
	return strings.HasPrefix(filepath.ToSlash(rel), "src/test/")
}

func (s *Sandbox) javacRun(ctx context.Context, out string, files []string) error {
	args := []string{"-d", out, "-encoding", "UTF-8", "-nowarn", "-g", "-implicit:none", "-Xmaxerrs", "20",
		"-cp", strings.Join(s.env.Classpath, string(os.PathListSeparator))}
	if s.release > 0 {
		args = append(args, "--release", strconv.Itoa(s.release))
	}
	args = append(args, files...)
	if s.ed != nil {
		exit, output, ok, err := s.ed.Compile(args)
		if err != nil {
			return err
		}
		if ok {
			if exit == 0 {
				return nil
			}
			return &CompileError{Output: conciseJavac(output, s.Dir)}
		}
	}
	cmd := exec.CommandContext(ctx, s.javac, args...)
	cmd.Dir = s.Dir
	output, err := cmd.CombinedOutput()
	if err == nil {
		return nil
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return fmt.Errorf("run javac: %w", err)
	}
	return &CompileError{Output: conciseJavac(string(output), s.Dir)}
}

// conciseJavac keeps javac's error lines and the source lines they show,
// with sandbox paths made module-relative.
func conciseJavac(out, dir string) string {
	out = strings.ReplaceAll(out, dir+string(filepath.Separator), "")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) > 30 {
		lines = append(lines[:30], "...")
	}
	return strings.Join(lines, "\n")
}

// javacFor returns the javac next to a java executable, else javac on PATH.
func javacFor(java string) string {
	if dir := filepath.Dir(java); dir != "." {
		if p := filepath.Join(dir, "javac"); fileExists(p) {
			return p
		}
	}
	if home := os.Getenv("JAVA_HOME"); home != "" {
		if p := filepath.Join(home, "bin", "javac"); fileExists(p) {
			return p
		}
	}
	return "javac"
}

// classRelease is the Java release the module's tests were compiled for,
// read from the first class file's major version (52 is Java 8); 0 when none.
func classRelease(dir string) int {
	release := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".class") {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		var head [8]byte
		if _, err := f.Read(head[:]); err == nil && binary.BigEndian.Uint32(head[:4]) == 0xCAFEBABE {
			release = int(binary.BigEndian.Uint16(head[6:8])) - 44
		}
		return fs.SkipAll
	})
	return release
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// llmSandbox decides how the sandbox's JVMs run when the LLM loop is on:
// confined where the machine can (available says why not), since a
// model's patch is code no one reviewed and its tests run; else
// unconfined only when cfg.LLM.Unconfined says so, and otherwise with the
// loop off. Without the loop they run as the module's tests always do. It
// returns cfg (its loop off, and why, when it must be), whether to confine,
// and what an LLM patch's evidence says about it, which it also logs.
func llmSandbox(cfg Config, available func() error) (Config, bool, string) {
	if cfg.LLM == nil {
		return cfg, false, ""
	}
	err := available()
	switch {
	case err == nil:
		line := "the model's code ran confined: no network, writes only in the sandbox's copy of the module (not its class directories) and the JVMs' temporary directories"
		cfg.Log.Logf("LLM loop on: every sandbox JVM of this repair runs confined (no network, writes only in the sandbox's copy)")
		return cfg, true, line
	case cfg.LLM.Unconfined:
		line := fmt.Sprintf("the model's code ran UNCONFINED, with the user's rights and network (--unconfined-llm-validation): %v", err)
		cfg.Log.Logf("warning: the model's patches run UNCONFINED, with your rights and network (--unconfined-llm-validation): %v", err)
		return cfg, false, line
	}
	cfg.NoLLMWhy = fmt.Sprintf("LLM loop off: a model's patch runs only in a sandbox, and this machine has none (%v); --unconfined-llm-validation (or %s=1) runs it unconfined", err, UnconfinedEnv)
	cfg.LLM = nil
	cfg.Log.Logf("%s", cfg.NoLLMWhy)
	return cfg, false, ""
}
