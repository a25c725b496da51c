package launcher

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/flakyhq/flaky/internal/base/saferead"
	"github.com/flakyhq/flaky/internal/base/safewrite"
	"github.com/flakyhq/flaky/internal/engine/agent"
)

// Class-data sharing (CDS): the JVM maps the classes it needs from an
// archive instead of loading, parsing and verifying them again in every
// JVM. The launcher keeps one archive per module class path and JDK in its
// cache directory (Options.CDSDir). The archive holds the JDK's classes and
// the classes of the module's jars that a real run of the module loaded
// (recorded with -XX:DumpLoadedClassList by the launcher's first run of
// tests that perturbs nothing, see records, and taken once that run's first
// test has ended, see snapshot), dumped with -Xshare:dump from that list: no
// test code runs while the archive is made, and the JVM checks at every
// start that the archive matches its jars, so archived classes are the same
// bytes the jars hold.
//
// The JVM archives no classes from a class path directory and refuses an
// archive whose class path has a non-empty directory (JDK 17: in its used
// part), but takes one whose class path the JVM's begins with. So the
// archive is dumped with the module's jars alone, and with CDS the launcher
// puts the module's jars (and the runner's and, when no file of the
// directories is in it, the agent's) before its directories
// (target/test-classes, target/classes). It does that only when
// it changes no lookup: no file in a directory has the name of an entry in a
// jar, and no jar names more jars in its manifest's Class-Path. Otherwise,
// and on JDKs before 11, there is no archive and the class path keeps its
// order.

// CDSCache returns the class-data sharing cache directory for
// Options.CDSDir: "cds" in flaky's cache directory, or "" (no sharing) when
// FLAKY_CDS is "off" or there is no cache directory.
func CDSCache() string {
	if os.Getenv("FLAKY_CDS") == "off" {
		return ""
	}
	dir, err := agent.CacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "cds")
}

// cdsMinJava is the oldest Java whose JVM archives application classes
// (JVM.appCDS).
const cdsMinJava = 11

// cdsTimeout bounds the dump and the check of an archive.
const cdsTimeout = 2 * time.Minute

// cdsState is where a launcher's archive is.
type cdsState int

const (
	cdsRecord    cdsState = iota // the next run records the classes it loads
	cdsRecording                 // a run is recording them
	cdsDumping                   // the archive is being dumped from the recorded list
	cdsReady                     // the archive is in use
	cdsOff                       // no archive (the JDK could not make or use one)
)

// cds manages one launcher's class-data sharing archive.
type cds struct {
	java     string
	quiet    []string // the options that keep the JVM from logging about the archive
	archive  string   // the archive's path in the cache
	classes  []string // the module's directories' classes, as a class list names them (a/b/C)
	cp       string   // the class path, jars first
	jarsCP   string   // its jars: the class path the archive is dumped with
	dumpArgs []string // the module's JVM options that shape an archive
	tmp      string   // the launcher's temporary directory

	mu    sync.Mutex
	state cdsState
	done  chan struct{} // closed when a dump started by this launcher ended
}

// cdsClasspath returns classpath with its jars (regular files) first and its
// directories after them, each in their order, and the directories' class
// names, when that order resolves every class and resource as the given one
// does; ok is false when it would not. The jar optional (the agent's, which
// -javaagent puts after everything) joins the jars, last, unless a file of
// a directory is also in it (a META-INF/LICENSE, say) or it cannot be read:
// ordered then leaves it out.
func cdsClasspath(classpath []string, optional string) (ordered []string, njars int, classes []string, ok bool) {
	var jars, dirs []string
	jarEntries := map[string]bool{}
	optionalEntries := map[string]bool{}
	if names, err := jarNames(optional); err == nil {
		for _, n := range names {
			optionalEntries[n] = true
		}
	} else {
		optional = ""
	}
	for _, e := range classpath {
		fi, err := os.Stat(e)
		switch {
		case err != nil || fi.IsDir():
			dirs = append(dirs, e)
			continue
		case !fi.Mode().IsRegular():
			return nil, 0, nil, false
		}
		jars = append(jars, e)
		names, err := jarNames(e)
		if err != nil {
			return nil, 0, nil, false
		}
		for _, n := range names {
			jarEntries[n] = true
		}
	}
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(path string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if de.IsDir() {
				return nil
			}
			rel, err := filepath.Rel(d, path)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			if jarEntries[rel] {
				return fmt.Errorf("%s is also in a jar", rel)
			}
			if optionalEntries[rel] {
				optional = ""
			}
			if c, ok := strings.CutSuffix(rel, ".class"); ok {
				classes = append(classes, c)
			}
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			return nil, 0, nil, false
		}
	}
	if optional != "" {
		jars = append(jars, optional)
	}
	return append(jars, dirs...), len(jars), classes, true
}

// jarClassPathHeader matches a manifest's Class-Path header.
var jarClassPathHeader = regexp.MustCompile(`(?im)^Class-Path:`)

// jarNames returns the names of the files in a jar; a jar whose manifest
// names more jars (Class-Path) is an error, as their entries would count too.
func jarNames(path string) ([]string, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		names = append(names, f.Name)
		if strings.EqualFold(f.Name, "META-INF/MANIFEST.MF") {
			rc, err := f.Open()
			if err != nil {
				return nil, err
			}
			data, err := io.ReadAll(io.LimitReader(rc, 1<<20))
			rc.Close()
			if err != nil {
				return nil, err
			}
			if jarClassPathHeader.Match(data) {
				return nil, fmt.Errorf("%s: its manifest has a Class-Path", path)
			}
		}
	}
	return names, nil
}

// cdsDumpArgs returns the JVM options of args that an archive must be made
// with to be usable (heap, GC and other -XX options); ok is false when args
// already choose their own sharing.
func cdsDumpArgs(args []string) (out []string, ok bool) {
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "-Xshare") || strings.Contains(a, "SharedArchiveFile") || strings.Contains(a, "ArchiveClassesAtExit") ||
			strings.Contains(a, "SharedClassListFile") || strings.Contains(a, "AOTCache") || strings.Contains(a, "AOTMode"):
			return nil, false
		case strings.HasPrefix(a, "-XX:"), strings.HasPrefix(a, "-Xmx"), strings.HasPrefix(a, "-Xms"):
			out = append(out, a)
		}
	}
	return out, true
}

// newCDS prepares class-data sharing for a launcher: the class path in the
// order to use (jars first, the agent's jar among them when it may be, see
// cdsClasspath) and the archive's state. It returns nil and the class path
// unchanged when the module or the JDK cannot share classes.
func newCDS(ctx context.Context, dir, java string, jvm JVM, classpath []string, agentJar string, jvmArgs []string, tmp string) (*cds, []string) {
	if dir == "" || !jvm.appCDS() {
		return nil, classpath
	}
	dumpArgs, ok := cdsDumpArgs(jvmArgs)
	if !ok {
		return nil, classpath
	}
	ordered, jars, classes, ok := cdsClasspath(classpath, agentJar)
	if !ok || jars == 0 {
		return nil, classpath
	}
	key, err := cdsKey(java, ordered[:jars], dumpArgs)
	if err != nil {
		return nil, classpath
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, classpath
	}
	c := &cds{
		java: java, quiet: jvm.cdsQuiet(), archive: filepath.Join(dir, key+".jsa"), classes: classes,
		cp: strings.Join(ordered, string(os.PathListSeparator)), jarsCP: strings.Join(ordered[:jars], string(os.PathListSeparator)),
		dumpArgs: dumpArgs, tmp: tmp,
	}
	if c.valid(ctx) {
		c.state = cdsReady
	} else {
		c.remove()
	}
	return c, ordered
}

// cdsKey names an archive by the JDK (its executable and its module image),
// the jars of the class path (each by its path and content: the directories
// after them are not part of the archive) and the options that shape it.
func cdsKey(java string, classpath, dumpArgs []string) (string, error) {
	exe, err := exec.LookPath(java)
	if err != nil {
		return "", err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "flaky-cds-2\x00%s\x00", exe)
	if fi, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(exe)), "lib", "modules")); err == nil {
		fmt.Fprintf(h, "%d %d\x00", fi.Size(), fi.ModTime().UnixNano())
	}
	for _, a := range dumpArgs {
		fmt.Fprintf(h, "%s\x00", a)
	}
	for _, e := range classpath {
		sum, err := fileHash(e)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%s\x00", e, sum)
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

// maxCDSFile bounds a file hashed for class-data sharing (a jar of the
// class path, an archive): far above the tens of MiB an archive of the
// JDK's and a module's classes takes.
const maxCDSFile = 1 << 30

// maxSumFile bounds an archive's hash file: one hex SHA-256 and a newline.
const maxSumFile = 1 << 10

// fileHash is the hex SHA-256 of a file's content: a regular file of at
// most maxCDSFile bytes.
func fileHash(path string) (string, error) {
	h := sha256.New()
	if err := saferead.Copy(h, path, maxCDSFile, "a file hashed for class-data sharing"); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// sumFile is where an archive's hash is kept.
func (c *cds) sumFile() string { return c.archive + ".sha256" }

// valid reports whether the cached archive is intact (its hash) and the JVM
// takes it for this class path (-Xshare:on fails on an archive that is
// corrupt, from another JDK, or made with jars that changed since).
func (c *cds) valid(ctx context.Context) bool {
	want, err := saferead.ReadFile(c.sumFile(), maxSumFile, "an archive's hash")
	if err != nil {
		return false
	}
	if have, err := fileHash(c.archive); err != nil || have != strings.TrimSpace(string(want)) {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, cdsTimeout)
	defer cancel()
	args := append(slices.Clone(c.dumpArgs), "-Xshare:on", "-XX:SharedArchiveFile="+c.archive, "-cp", c.cp, "-version")
	return exec.CommandContext(ctx, c.java, args...).Run() == nil
}

// remove deletes the archive and its hash.
func (c *cds) remove() {
	os.Remove(c.archive)
	os.Remove(c.sumFile())
}

// records reports whether a JVM with the runner's arguments mainArgs and
// agent options opts may record the classes it loads for the archive: a
// run of tests that perturbs no API. A listing loads too few classes. A
// perturbed run loads what an unperturbed one does, the agent's own
// classes aside (a chaos JVM took about as much CPU time with either
// archive), but it may end far later: `flaky chaos` starts its combined
// run (11 s on the chaos fixture) beside the unperturbed run of the suite
// (3 s), and when the first recorded, the archive came after most of the
// analysis' JVMs, each of which started without it, and the process waited
// for the dump before it exited.
func records(mainArgs []string, opts agent.Options) bool {
	return len(mainArgs) > 0 && mainArgs[0] == "run" && !opts.Chaos.Perturbs()
}

// args returns the JVM options for the next JVM and, when that JVM is to
// record the classes it loads (record, see records), the file it records
// them in.
func (c *cds) args(record bool) (args []string, list string) {
	if c == nil {
		return nil, ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.state == cdsReady:
		// Xshare:auto: a JVM that cannot map the archive runs without it;
		// the logs off keep that quiet.
		return append([]string{"-XX:SharedArchiveFile=" + c.archive}, c.quiet...), ""
	case c.state == cdsRecord && record:
		c.state = cdsRecording
		list = filepath.Join(c.tmp, "cds-classes.lst")
		return []string{"-XX:DumpLoadedClassList=" + list}, list
	}
	return nil, ""
}

// recorded takes the class list of the recording run: a list is dumped into
// the archive in the background; without one the next run records again.
// Once a list is taken (see snapshot), later calls do nothing.
func (c *cds) recorded(list string) {
	fi, err := os.Stat(list)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state != cdsRecording {
		return
	}
	if err != nil || fi.Size() == 0 {
		c.state = cdsRecord
		return
	}
	c.state = cdsDumping
	c.done = make(chan struct{})
	go func() {
		defer close(c.done)
		err := c.dump(list)
		c.mu.Lock()
		defer c.mu.Unlock()
		if err != nil {
			c.state = cdsOff
			return
		}
		c.state = cdsReady
	}()
}

// snapshot takes the class list of the recording run as it stands once the
// run's first test has ended (recorded), so that the archive is dumped while
// the run goes on rather than after it: by then the JVM has loaded what
// every test needs (the JDK's, the engines' and the runner's classes), which
// is what the archive saves most on; a library only a later test loads is
// then not archived and loads from its jar, as without an archive. The JVM
// writes the list as it loads classes: the snapshot ends at its last whole
// line.
func (c *cds) snapshot(list string) {
	data, err := os.ReadFile(list)
	if err != nil {
		return
	}
	data = data[:bytes.LastIndexByte(data, '\n')+1]
	early := list + ".early"
	if err := os.WriteFile(early, data, 0o644); err != nil {
		return
	}
	c.recorded(early)
}

// wait waits for a dump this launcher started.
func (c *cds) wait() {
	if c == nil {
		return
	}
	c.mu.Lock()
	done := c.done
	c.mu.Unlock()
	if done != nil {
		<-done
	}
}

// dump makes the archive from a class list without the module's own
// classes (the JVM cannot archive classes from directories), checks it and
// moves it into the cache with its hash. The archive holds the list's
// lambda classes too (see filterClassList): a JUnit 5 JVM spins several
// hundred at its start, and archived ones cut a one-test JVM's CPU time by
// about a fifth. A JVM that cannot dump them gets an archive without them.
func (c *cds) dump(list string) error {
	tmp, err := c.tempArchive()
	if err != nil {
		return err
	}
	defer safewrite.Forget(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), cdsTimeout)
	defer cancel()
	err = c.dumpTo(ctx, list, tmp, true)
	if err != nil {
		err = c.dumpTo(ctx, list, tmp, false)
	}
	if err != nil {
		return err
	}
	sum, err := fileHash(tmp)
	if err != nil {
		return err
	}
	// Another flaky process may dump the same archive at the same time: each
	// writes its own temporary files, and whichever pair lands last is checked.
	if err := os.Rename(tmp, c.archive); err != nil {
		return err
	}
	if err := safewrite.Atomic(c.sumFile(), []byte(sum+"\n"), 0o644); err != nil {
		return err
	}
	if !c.valid(ctx) {
		c.remove()
		return fmt.Errorf("the JVM does not take the archive it dumped")
	}
	return nil
}

// tempArchive names a fresh temporary file beside the archive for the JVM
// to dump into, removed on every exit path (safewrite.Forget, or a signal's
// safewrite.RemoveTemps) unless it was moved into place.
func (c *cds) tempArchive() (string, error) {
	f, err := safewrite.CreateTemp(filepath.Dir(c.archive), "."+filepath.Base(c.archive)+".tmp*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	if err := f.Close(); err != nil {
		safewrite.Forget(name)
		return "", err
	}
	return name, nil
}

// dumpTo dumps the archive file to from the class list list (see
// filterClassList for lambdas).
func (c *cds) dumpTo(ctx context.Context, list, to string, lambdas bool) error {
	filtered := list + ".jars"
	if err := filterClassList(list, filtered, c.classes, lambdas); err != nil {
		return err
	}
	args := append(slices.Clone(c.dumpArgs), "-Xshare:dump", "-XX:SharedClassListFile="+filtered, "-XX:SharedArchiveFile="+to, "-cp", c.jarsCP)
	if out, err := exec.CommandContext(ctx, c.java, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("dump the class-data sharing archive: %w: %s", err, tailLines(string(out), 5))
	}
	return nil
}

// descriptorClass matches a class named in a method descriptor (La/b/C;).
var descriptorClass = regexp.MustCompile(`L([^;()]+);`)

// namesAny reports whether a class list line names a class of classes, as a
// word of its own or in a descriptor.
func namesAny(line string, classes map[string]bool) bool {
	for _, w := range strings.Fields(line) {
		if classes[w] {
			return true
		}
	}
	for _, m := range descriptorClass.FindAllStringSubmatch(line, -1) {
		if classes[m[1]] {
			return true
		}
	}
	return false
}

// filterClassList copies a class list without the classes in skip (and
// their nested classes' lines, which name them the same way). With
// lambdas it keeps the list's @lambda-proxy and @lambda-form-invoker lines
// (JDK 16 and later record them) that name no class of skip, in a word or
// a descriptor: the lambdas of the archived classes; without, it drops
// every @ line.
func filterClassList(from, to string, skip []string, lambdas bool) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	drop := map[string]bool{}
	for _, c := range skip {
		drop[c] = true
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		name, _, _ := strings.Cut(line, " ")
		if drop[name] || strings.HasPrefix(line, "@") && (!lambdas || namesAny(line, drop)) {
			continue
		}
		out.WriteString(line)
		out.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return os.WriteFile(to, out.Bytes(), 0o644)
}
