package launcher

import (
	"archive/zip"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/testkit/hostile"
)

// writeJar writes a jar with the given entries (name -> content).
func writeJar(t *testing.T, path string, entries map[string]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, content := range entries {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(content))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func writeFile(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCDSClasspath(t *testing.T) {
	dir := t.TempDir()
	tests, classes := filepath.Join(dir, "test-classes"), filepath.Join(dir, "classes")
	writeFile(t, filepath.Join(tests, "p", "ATest.class"))
	writeFile(t, filepath.Join(classes, "p", "A.class"))
	writeFile(t, filepath.Join(classes, "app.properties"))
	lib := filepath.Join(dir, "lib.jar")
	writeJar(t, lib, map[string]string{"META-INF/MANIFEST.MF": "Manifest-Version: 1.0\n", "org/lib/L.class": "", "org/lib/": ""})
	shadow := filepath.Join(dir, "shadow.jar")
	writeJar(t, shadow, map[string]string{"app.properties": "x"})
	withClassPath := filepath.Join(dir, "cp.jar")
	writeJar(t, withClassPath, map[string]string{"META-INF/MANIFEST.MF": "Manifest-Version: 1.0\nClass-Path: other.jar\n"})
	missing := filepath.Join(dir, "gone")

	got, jars, names, ok := cdsClasspath([]string{tests, classes, lib, missing}, "")
	if want := []string{lib, tests, classes, missing}; !ok || jars != 1 || !slices.Equal(got, want) {
		t.Errorf("jars first: %v (%d jars, ok %v), want %v", got, jars, ok, want)
	}
	// The agent's jar joins the jars, unless a directory has a file of it.
	agent := filepath.Join(dir, "agent.jar")
	writeJar(t, agent, map[string]string{"META-INF/LICENSE": "", "dev/flaky/agent/Agent.class": ""})
	got, jars, _, ok = cdsClasspath([]string{tests, classes, lib}, agent)
	if want := []string{lib, agent, tests, classes}; !ok || jars != 2 || !slices.Equal(got, want) {
		t.Errorf("with the agent's jar: %v (%d jars, ok %v), want %v", got, jars, ok, want)
	}
	writeFile(t, filepath.Join(classes, "META-INF", "LICENSE"))
	got, jars, _, ok = cdsClasspath([]string{tests, classes, lib}, agent)
	if want := []string{lib, tests, classes}; !ok || jars != 1 || !slices.Equal(got, want) {
		t.Errorf("with a directory file in the agent's jar: %v (%d jars, ok %v), want %v", got, jars, ok, want)
	}
	slices.Sort(names)
	if want := []string{"p/A", "p/ATest"}; !slices.Equal(names, want) {
		t.Errorf("directory classes %v, want %v", names, want)
	}
	for name, cp := range map[string][]string{
		"a jar holds a file of a directory": {tests, classes, lib, shadow},
		"a jar names more jars":             {tests, lib, withClassPath},
		"not a jar":                         {tests, filepath.Join(classes, "app.properties")},
	} {
		if _, _, _, ok := cdsClasspath(cp, ""); ok {
			t.Errorf("%s: reordered", name)
		}
	}
}

func TestCDSDumpArgs(t *testing.T) {
	got, ok := cdsDumpArgs([]string{"-Xmx512m", "-Dx=y", "-XX:+UseSerialGC", "-javaagent:/j.jar", "--add-opens=a/b=c", "-XX:TieredStopAtLevel=1"})
	if want := []string{"-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"}; !ok || !slices.Equal(got, want) {
		t.Errorf("cdsDumpArgs = %v, %v; want %v", got, ok, want)
	}
	for _, own := range []string{"-Xshare:off", "-XX:SharedArchiveFile=/a.jsa", "-XX:AOTCache=/a.aot"} {
		if _, ok := cdsDumpArgs([]string{own}); ok {
			t.Errorf("%s: sharing not left to the module", own)
		}
	}
}

func TestFilterClassList(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "in.lst"), filepath.Join(dir, "out.lst")
	in := "# comment\njava/lang/Object id: 0\np/ATest id: 7\norg/lib/L\n" +
		"@lambda-proxy p/ATest run ()Ljava/lang/Runnable; ()V REF_invokeStatic p/ATest lambda$0 ()V ()V\n" +
		"@lambda-proxy org/lib/L apply (Lp/ATest;)Ljava/util/function/Function; (Ljava/lang/Object;)Ljava/lang/Object; REF_invokeStatic org/lib/L f (Ljava/lang/Object;)Ljava/lang/Object; (Ljava/lang/Object;)Ljava/lang/Object;\n" +
		"@lambda-proxy org/lib/L run ()Ljava/lang/Runnable; ()V REF_invokeStatic org/lib/L lambda$1 ()V ()V\n" +
		"@lambda-form-invoker [LF_RESOLVE] java.lang.invoke.DirectMethodHandle$Holder invokeStatic L_L\n"
	if err := os.WriteFile(from, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		lambdas bool
		want    string
	}{
		{false, "# comment\njava/lang/Object id: 0\norg/lib/L\n"},
		// The lambdas of the module's class, or whose types name it, stay out.
		{true, "# comment\njava/lang/Object id: 0\norg/lib/L\n" +
			"@lambda-proxy org/lib/L run ()Ljava/lang/Runnable; ()V REF_invokeStatic org/lib/L lambda$1 ()V ()V\n" +
			"@lambda-form-invoker [LF_RESOLVE] java.lang.invoke.DirectMethodHandle$Holder invokeStatic L_L\n"},
	}
	for _, tt := range tests {
		if err := filterClassList(from, to, []string{"p/ATest"}, tt.lambdas); err != nil {
			t.Fatal(err)
		}
		out, _ := os.ReadFile(to)
		if string(out) != tt.want {
			t.Errorf("lambdas %v, filtered:\n%s\nwant:\n%s", tt.lambdas, out, tt.want)
		}
	}
}

func TestCDSOffWithoutDirOrOnOldJava(t *testing.T) {
	cp := []string{"/a", "/b.jar"}
	for _, tt := range []struct {
		dir string
		jvm JVM
	}{{"", JVM{Major: 17}}, {t.TempDir(), JVM{Major: 8}}, {t.TempDir(), JVM{Major: 10}}, {t.TempDir(), JVM{Major: 17, VMName: "Eclipse OpenJ9 VM"}}} {
		c, got := newCDS(t.Context(), tt.dir, "java", tt.jvm, cp, "", nil, t.TempDir())
		if c != nil || !slices.Equal(got, cp) {
			t.Errorf("dir %q, %+v: sharing %v, class path %v", tt.dir, tt.jvm, c, got)
		}
	}
	if args, list := (*cds)(nil).args(true); args != nil || list != "" {
		t.Errorf("no sharing: args %v, list %q", args, list)
	}
}

// Only runs of tests that perturb no API record the classes for the archive.
func TestRecords(t *testing.T) {
	chaos := agent.Options{Port: 1, Chaos: agent.ChaosOptions{Strategies: []string{"RANDOM_MAX"}}}
	for _, tt := range []struct {
		name     string
		mainArgs []string
		opts     agent.Options
		want     bool
	}{
		{"plain run", []string{"run", "--order", "o.txt"}, agent.Options{Port: 1}, true},
		{"standby run", standbyArgs, agent.Options{Port: 1}, true},
		{"state capture", []string{"run", "--order", "o.txt"}, agent.Options{Port: 1, State: agent.StateOptions{All: true}}, true},
		{"perturbed run", []string{"run", "--order", "o.txt"}, chaos, false},
		{"chaos roots, no strategy", []string{"run"}, agent.Options{Chaos: agent.ChaosOptions{Roots: []string{"target/classes"}}}, true},
		{"listing", []string{"list", "--test-classes", "t"}, agent.Options{Port: 1}, false},
		{"nothing", nil, agent.Options{}, false},
	} {
		if got := records(tt.mainArgs, tt.opts); got != tt.want {
			t.Errorf("%s: records %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestSnapshot checks that the recording run's class list is taken as it
// stands, whole lines only, when its first test has ended, and that the
// list at the run's end is then not taken again.
func TestSnapshot(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "cds-classes.lst")
	if err := os.WriteFile(list, []byte("java/lang/Object id: 0\norg/lib/L id: 1\norg/lib/Hal"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A JDK that cannot dump: the dump fails at once, and the archive is off.
	c := &cds{java: filepath.Join(dir, "no-java"), archive: filepath.Join(dir, "a.jsa"), tmp: dir, state: cdsRecording}
	c.snapshot(list)
	c.wait()
	if got, _ := os.ReadFile(list + ".early"); string(got) != "java/lang/Object id: 0\norg/lib/L id: 1\n" {
		t.Errorf("snapshot %q, want the whole lines", got)
	}
	if c.state != cdsOff {
		t.Fatalf("state %v after the snapshot's dump failed, want off", c.state)
	}
	c.recorded(list)
	if c.state != cdsOff {
		t.Errorf("the run's end took its list again: state %v", c.state)
	}
}

// TestCDSRefusesHostileCache checks an archive in the cache, or its hash
// file, that is a FIFO, a device, a directory or over its cap (item 5 of
// #53: a .jsa linked to /dev/zero was hashed for ever, a FIFO blocked, a
// .jsa.sha256 linked to /dev/zero read 3 GB): the archive is not taken, at
// once, and hashing such a file fails with an error that says what it is.
func TestCDSRefusesHostileCache(t *testing.T) {
	check := func(t *testing.T, c *cds, hostilePath string) {
		t.Helper()
		ok := true
		if !hostile.Returns(hostilePath, func() { ok = c.valid(context.Background()) }) {
			t.Fatalf("valid still reading after %v", hostile.ReadBound)
		}
		if ok {
			t.Errorf("valid took the archive")
		}
	}
	for _, f := range hostile.Files(maxCDSFile) {
		t.Run("archive "+f.Name, func(t *testing.T) {
			dir := t.TempDir()
			c := &cds{java: filepath.Join(dir, "no-java"), archive: filepath.Join(dir, "a.jsa"), tmp: dir}
			if err := f.Make(c.archive); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(c.sumFile(), []byte(strings.Repeat("0", 64)+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			check(t, c, c.archive)
			var err error
			if !hostile.Returns(c.archive, func() { _, err = fileHash(c.archive) }) {
				t.Fatalf("fileHash still reading after %v", hostile.ReadBound)
			}
			if err == nil || !strings.Contains(err.Error(), f.Want) {
				t.Errorf("fileHash: %v, want an error saying %q", err, f.Want)
			}
		})
	}
	for _, f := range hostile.Files(maxSumFile) {
		t.Run("hash file "+f.Name, func(t *testing.T) {
			dir := t.TempDir()
			c := &cds{java: filepath.Join(dir, "no-java"), archive: filepath.Join(dir, "a.jsa"), tmp: dir}
			if err := os.WriteFile(c.archive, []byte("archive"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := f.Make(c.sumFile()); err != nil {
				t.Fatal(err)
			}
			check(t, c, c.sumFile())
		})
	}
}
