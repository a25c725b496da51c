package mvn

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fakeMaven is a shell script standing in for mvn: it records its arguments
// (and its MAVEN_OPTS, in the log's .opts file), writes $FAKE_CP as the
// build-classpath output, creates the jar that dependency:copy would copy,
// and fails when $FAKE_MVN_FAIL is set.
const fakeMaven = `#!/bin/sh
echo "$*" >> "$FAKE_MVN_LOG"
echo "$MAVEN_OPTS" >> "$FAKE_MVN_LOG.opts"
if [ -n "$FAKE_MVN_FAIL" ]; then
  i=0; while [ $i -lt 60 ]; do echo "[INFO] noise $i"; i=$((i+1)); done
  echo "[ERROR] COMPILATION ERROR: Foo.java cannot find symbol"
  exit 1
fi
for a in "$@"; do
  case "$a" in
    -Dmdep.outputFile=*) printf '%s' "$FAKE_CP" > "${a#-Dmdep.outputFile=}" ;;
    -Dartifact=*) artifact="${a#-Dartifact=}" ;;
    -DoutputDirectory=*) out="${a#-DoutputDirectory=}" ;;
  esac
done
if [ -n "$out" ]; then
  v="${artifact##*:}"
  touch "$out/junit-platform-launcher-$v.jar"
fi
`

// fakeJars creates empty jars of these names in a new directory standing
// in for the local repository and returns their paths.
func fakeJars(t *testing.T, names ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

type fakeMvn struct {
	path, log string
}

func newFakeMvn(t *testing.T, classpath string) *fakeMvn {
	t.Helper()
	dir := t.TempDir()
	f := &fakeMvn{path: filepath.Join(dir, "mvn"), log: filepath.Join(dir, "calls.log")}
	if err := os.WriteFile(f.path, []byte(fakeMaven), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_MVN_LOG", f.log)
	t.Setenv("FAKE_CP", classpath)
	t.Setenv("FAKE_MVN_FAIL", "")
	return f
}

// calls returns and forgets the recorded invocations.
func (f *fakeMvn) calls(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(f.log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(f.log)
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

const simplePom = `<project><modelVersion>4.0.0</modelVersion>
  <groupId>g</groupId><artifactId>a</artifactId><version>1</version></project>`

// TestPrepareInReactor prepares a module that depends on a sibling: Maven
// runs in the reactor root on the module and what it depends on, and
// compiles again when the sibling's sources change.
func TestPrepareInReactor(t *testing.T) {
	root := t.TempDir()
	module := func(name, deps string) string {
		return "<project><modelVersion>4.0.0</modelVersion><parent><groupId>g</groupId><artifactId>root</artifactId><version>1</version></parent>" +
			"<artifactId>" + name + "</artifactId>" + deps + "</project>"
	}
	writeFiles(t, root, map[string]string{
		"pom.xml": "<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>root</artifactId><version>1</version>" +
			"<packaging>pom</packaging><modules><module>core</module><module>apps/service</module></modules></project>",
		"core/pom.xml":                               module("core", ""),
		"core/src/main/java/p/Core.java":             "class Core {}",
		"core/target/classes/p/Core.class":           "",
		"apps/service/pom.xml":                       module("service", "<dependencies><dependency><groupId>g</groupId><artifactId>core</artifactId><version>1</version></dependency></dependencies>"),
		"apps/service/src/test/java/p/ATest.java":    "class ATest {}",
		"apps/service/target/test-classes/p/A.class": "",
	})
	service := filepath.Join(root, "apps", "service")
	coreClasses := filepath.Join(root, "core", "target", "classes")
	built := time.Now().Add(time.Second) // the sibling was compiled after its last edit
	if err := os.Chtimes(filepath.Join(coreClasses, "p", "Core.class"), built, built); err != nil {
		t.Fatal(err)
	}
	junit := fakeJars(t, "junit-4.13.2.jar")[0]
	fake := newFakeMvn(t, coreClasses+":"+junit)
	prepare := func() *TestSetup {
		t.Helper()
		s, err := Prepare(context.Background(), service, PrepareOptions{Mvn: fake.path})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	setup := prepare()
	if setup.ReactorRoot != root {
		t.Errorf("reactor root %s, want %s", setup.ReactorRoot, root)
	}
	calls := fake.calls(t)
	if len(calls) != 1 || !strings.HasPrefix(calls[0], "-B -q -Dstyle.color=never -pl apps/service -am test-compile dependency:build-classpath ") {
		t.Fatalf("Maven ran %q, want test-compile and build-classpath of -pl apps/service -am", calls)
	}
	if got := setup.Classpath[2:]; !reflect.DeepEqual(got, []string{coreClasses, junit}) {
		t.Errorf("classpath %q", got)
	}
	prepare()
	if calls := fake.calls(t); calls != nil {
		t.Errorf("nothing changed, yet Maven ran %q", calls)
	}
	later := built.Add(2 * time.Second)
	if err := os.Chtimes(filepath.Join(root, "core/src/main/java/p/Core.java"), later, later); err != nil {
		t.Fatal(err)
	}
	prepare()
	if calls := fake.calls(t); len(calls) != 1 || calls[0] != "-B -q -Dstyle.color=never -pl apps/service -am test-compile" {
		t.Errorf("after a change in the sibling Maven ran %q, want test-compile of -pl apps/service -am", calls)
	}
}

func TestPrepareCompilesAndCaches(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"pom.xml":                    simplePom,
		"src/test/java/p/ATest.java": "class ATest {}",
	})
	jars := fakeJars(t, "junit-4.13.2.jar", "hamcrest-core-1.3.jar")
	fake := newFakeMvn(t, jars[0]+":"+jars[1])
	ctx := context.Background()
	prepare := func() *TestSetup {
		t.Helper()
		var log strings.Builder
		s, err := Prepare(ctx, dir, PrepareOptions{Mvn: fake.path, Log: &log})
		if err != nil {
			t.Fatalf("Prepare: %v\n%s", err, log.String())
		}
		return s
	}

	setup := prepare()
	want := &TestSetup{
		ModuleDir:      dir,
		ReactorRoot:    dir,
		TestClassesDir: filepath.Join(dir, "target/test-classes"),
		ClassesDir:     filepath.Join(dir, "target/classes"),
		Classpath: []string{
			filepath.Join(dir, "target/test-classes"), filepath.Join(dir, "target/classes"),
			jars[0], jars[1],
		},
		SysProps: map[string]string{"basedir": dir},
		RunOrder: "filesystem",
	}
	// The class path is kept in the module's cache alone (no shared cache).
	want.ClasspathFiles, _ = filepath.Glob(filepath.Join(dir, "target/flaky/cache/classpath-*.txt"))
	if !reflect.DeepEqual(setup, want) {
		t.Errorf("setup = %+v\nwant %+v", setup, want)
	}
	calls := fake.calls(t)
	if len(calls) != 1 || !strings.HasPrefix(calls[0], "-B -q -Dstyle.color=never test-compile dependency:build-classpath -Dmdep.outputFile=") ||
		!strings.HasSuffix(calls[0], " -Dmdep.includeScope=test") {
		t.Fatalf("first Prepare ran %q, want one test-compile + build-classpath", calls)
	}

	// Nothing changed: no Maven at all.
	prepare()
	if calls := fake.calls(t); calls != nil {
		t.Errorf("second Prepare ran Maven: %q", calls)
	}

	// A newer test source: compile only.
	later := time.Now().Add(2 * time.Second)
	src := filepath.Join(dir, "src/test/java/p/ATest.java")
	if err := os.Chtimes(src, later, later); err != nil {
		t.Fatal(err)
	}
	prepare()
	if calls := fake.calls(t); len(calls) != 1 || calls[0] != "-B -q -Dstyle.color=never test-compile" {
		t.Errorf("after a source change Maven ran %q, want test-compile only", calls)
	}

	// Changed pom: resolve again (and compile, the pom being newer).
	writeFiles(t, dir, map[string]string{"pom.xml": strings.Replace(simplePom, "<version>1</version>", "<version>2</version>", 1)})
	later = later.Add(2 * time.Second)
	os.Chtimes(filepath.Join(dir, "pom.xml"), later, later)
	t.Setenv("FAKE_CP", jars[0])
	setup = prepare()
	if calls := fake.calls(t); len(calls) != 1 || !strings.Contains(calls[0], "test-compile dependency:build-classpath") {
		t.Errorf("after a pom change Maven ran %q", calls)
	}
	if got := setup.Classpath[2:]; !reflect.DeepEqual(got, []string{jars[0]}) {
		t.Errorf("classpath after pom change = %q", got)
	}
	if cached, _ := filepath.Glob(filepath.Join(dir, "target/flaky/cache/classpath-*.txt")); len(cached) != 1 {
		t.Errorf("cached classpaths after a pom change: %q, want only the current one", cached)
	}
}

func TestPrepareExistingTestClassesSkipCompile(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"pom.xml":                    simplePom,
		"src/test/java/p/ATest.java": "class ATest {}",
	})
	later := time.Now().Add(2 * time.Second)
	writeFiles(t, dir, map[string]string{"target/test-classes/p/ATest.class": "x"})
	os.Chtimes(filepath.Join(dir, "target/test-classes/p/ATest.class"), later, later)
	fake := newFakeMvn(t, fakeJars(t, "junit-4.13.2.jar")[0])
	if _, err := Prepare(context.Background(), dir, PrepareOptions{Mvn: fake.path}); err != nil {
		t.Fatal(err)
	}
	if calls := fake.calls(t); len(calls) != 1 || strings.Contains(calls[0], "test-compile") {
		t.Errorf("Maven ran %q, want build-classpath only", calls)
	}
}

// TestMavenQuickStart checks Maven's JVM options: a run that only resolves
// the class path starts with the client compiler alone, before the user's
// MAVEN_OPTS; a run that compiles keeps the user's options as they are.
func TestMavenQuickStart(t *testing.T) {
	for _, tc := range []struct {
		name     string
		compiled bool
		userOpts string
		want     string
	}{
		{"resolve only", true, "", quickStart},
		{"resolve only, user options after", true, "-Xmx2g", quickStart + " -Xmx2g"},
		{"compile", false, "-Xmx2g", "-Xmx2g"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"pom.xml": simplePom, "src/test/java/p/ATest.java": "class ATest {}"})
			if tc.compiled {
				later := time.Now().Add(2 * time.Second)
				writeFiles(t, dir, map[string]string{"target/test-classes/p/ATest.class": "x"})
				os.Chtimes(filepath.Join(dir, "target/test-classes/p/ATest.class"), later, later)
			}
			fake := newFakeMvn(t, fakeJars(t, "junit-4.13.2.jar")[0])
			t.Setenv("MAVEN_OPTS", tc.userOpts)
			if _, err := Prepare(context.Background(), dir, PrepareOptions{Mvn: fake.path}); err != nil {
				t.Fatal(err)
			}
			opts, err := os.ReadFile(fake.log + ".opts")
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(string(opts)); got != tc.want {
				t.Errorf("MAVEN_OPTS %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPrepareMavenFailure(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pom.xml": simplePom})
	fake := newFakeMvn(t, "")
	t.Setenv("FAKE_MVN_FAIL", "1")
	_, err := Prepare(context.Background(), dir, PrepareOptions{Mvn: fake.path})
	if err == nil {
		t.Fatal("Prepare succeeded although Maven failed")
	}
	for _, want := range []string{"failed in " + dir, "exit status 1", "COMPILATION ERROR: Foo.java", "noise 59"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "noise 0\n") {
		t.Errorf("error quotes all of Maven's output, want the tail:\n%v", err)
	}
}

func TestPrepareNoPom(t *testing.T) {
	_, err := Prepare(context.Background(), t.TempDir(), PrepareOptions{Mvn: "/nonexistent/mvn"})
	if err == nil || !strings.Contains(err.Error(), "no pom.xml in") {
		t.Errorf("err = %v", err)
	}
}

func TestWithPlatformLauncher(t *testing.T) {
	repo := t.TempDir()
	engine := func(v string) string {
		return filepath.Join(repo, "org/junit/platform/junit-platform-engine", v, "junit-platform-engine-"+v+".jar")
	}
	launcherIn := func(v string) string {
		return filepath.Join(repo, "org/junit/platform/junit-platform-launcher", v, "junit-platform-launcher-"+v+".jar")
	}
	writeFiles(t, repo, map[string]string{
		"org/junit/platform/junit-platform-launcher/1.14.4/junit-platform-launcher-1.14.4.jar": "jar",
	})
	tests := []struct {
		name      string
		deps      []string
		wantAdded string // "" for unchanged; "cache" for the fetched jar
		wantMaven bool
	}{
		{name: "no platform", deps: []string{"/m2/junit-4.13.2.jar"}},
		{name: "launcher present", deps: []string{engine("6.1.3"), "/m2/junit-platform-launcher-6.1.3.jar"}},
		{name: "launcher in the local repository", deps: []string{"/m2/opentest4j-1.3.0.jar", engine("1.14.4")}, wantAdded: launcherIn("1.14.4")},
		{name: "launcher fetched", deps: []string{engine("6.1.3")}, wantAdded: "cache", wantMaven: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeMvn(t, "")
			cache := filepath.Join(t.TempDir(), "cache")
			m := &maven{cmd: fake.path, dir: t.TempDir(), log: func(string, ...any) {}}
			got, err := withPlatformLauncher(context.Background(), m, tt.deps, cache)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.deps
			switch tt.wantAdded {
			case "":
			case "cache":
				want = append(append([]string(nil), tt.deps...), filepath.Join(cache, "junit-platform-launcher-6.1.3.jar"))
			default:
				want = append(append([]string(nil), tt.deps...), tt.wantAdded)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("classpath = %q, want %q", got, want)
			}
			calls := fake.calls(t)
			if tt.wantMaven != (len(calls) == 1) {
				t.Errorf("Maven calls %q (want a call: %v)", calls, tt.wantMaven)
			}
			if tt.wantMaven && !strings.Contains(calls[0], "dependency:copy -Dartifact=org.junit.platform:junit-platform-launcher:6.1.3 -DoutputDirectory="+cache) {
				t.Errorf("Maven call %q", calls[0])
			}
			if tt.wantMaven {
				// Fetched once: the second time it comes from the cache.
				if _, err := withPlatformLauncher(context.Background(), m, tt.deps, cache); err != nil {
					t.Fatal(err)
				}
				if calls := fake.calls(t); calls != nil {
					t.Errorf("second call ran Maven again: %q", calls)
				}
			}
		})
	}
}

func TestFindMaven(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string
		wrappers []string // paths made executable
		module   string
		explicit string
		want     string // relative to the root, or a bare command
	}{
		{name: "plain mvn", files: map[string]string{"pom.xml": ""}, want: "mvn"},
		{name: "explicit", files: map[string]string{"pom.xml": ""}, explicit: "/opt/mvn/bin/mvn", want: "/opt/mvn/bin/mvn"},
		{name: "wrapper in module", files: map[string]string{"pom.xml": "", "mvnw": ""}, wrappers: []string{"mvnw"}, want: "mvnw"},
		{name: "wrapper of the reactor", files: map[string]string{"pom.xml": "", "mvnw": "", "core/pom.xml": ""}, wrappers: []string{"mvnw"}, module: "core", want: "mvnw"},
		{name: "wrapper not executable", files: map[string]string{"pom.xml": "", "mvnw": ""}, want: "mvn"},
		{name: "wrapper outside the build", files: map[string]string{"mvnw": "", "mod/pom.xml": ""}, wrappers: []string{"mvnw"}, module: "mod", want: "mvn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, tt.files)
			for _, w := range tt.wrappers {
				os.Chmod(filepath.Join(root, w), 0o755)
			}
			got := FindMaven(tt.explicit, filepath.Join(root, tt.module))
			want := tt.want
			if strings.Contains(want, "mvnw") {
				want = filepath.Join(root, want)
			}
			if got != want {
				t.Errorf("FindMaven = %q, want %q", got, want)
			}
		})
	}
}

// Profiles and properties given to Prepare reach every Maven call and the
// Surefire configuration it reads: a profile named by -P, one a -D property
// activates, and the pom's active-by-default one only when no other is.
func TestPrepareWithProfiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"pom.xml": `<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>a</artifactId><version>1</version>
  <properties><opens>--add-opens=java.base/java.io=ALL-UNNAMED</opens></properties>
  <profiles>
    <profile><id>legacy-jvm</id><activation><activeByDefault>true</activeByDefault></activation>
      <build><plugins><plugin><artifactId>maven-surefire-plugin</artifactId><configuration><argLine>-Xmx64m</argLine></configuration></plugin></plugins></build>
    </profile>
    <profile><id>modern-jvm</id>
      <build><plugins><plugin><artifactId>maven-surefire-plugin</artifactId><configuration><argLine>${opens} -Dfrom=${from}</argLine></configuration></plugin></plugins></build>
    </profile>
    <profile><id>ci</id><activation><property><name>ci</name></property></activation>
      <properties><from>ci-profile</from></properties>
    </profile>
  </profiles>
</project>`,
		"src/test/java/p/ATest.java": "class ATest {}",
	})
	fake := newFakeMvn(t, fakeJars(t, "junit-4.13.2.jar")[0])
	for _, tt := range []struct {
		profiles, props []string
		wantArgLine     []string
		wantArgs        string
	}{
		{nil, nil, []string{"-Xmx64m"}, "-B -q -Dstyle.color=never test-compile"},
		{[]string{"modern-jvm"}, []string{"ci"}, []string{"--add-opens=java.base/java.io=ALL-UNNAMED", "-Dfrom=ci-profile"}, "-B -q -Dstyle.color=never -Pmodern-jvm -Dci=true "},
		{[]string{"modern-jvm"}, []string{"from=cli"}, []string{"--add-opens=java.base/java.io=ALL-UNNAMED", "-Dfrom=cli"}, "-B -q -Dstyle.color=never -Pmodern-jvm -Dfrom=cli "},
	} {
		args, err := ParseMavenArgs(tt.profiles, tt.props)
		if err != nil {
			t.Fatal(err)
		}
		os.RemoveAll(filepath.Join(dir, "target"))
		setup, err := Prepare(context.Background(), dir, PrepareOptions{Mvn: fake.path, Maven: args})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(setup.ArgLine, tt.wantArgLine) {
			t.Errorf("-P %q -D %q: argLine = %q, want %q", tt.profiles, tt.props, setup.ArgLine, tt.wantArgLine)
		}
		if !reflect.DeepEqual(setup.Maven, args) {
			t.Errorf("-P %q -D %q: setup.Maven = %+v, want %+v (the reproduce commands' arguments)", tt.profiles, tt.props, setup.Maven, args)
		}
		if calls := fake.calls(t); len(calls) != 1 || !strings.HasPrefix(calls[0], tt.wantArgs) {
			t.Errorf("-P %q -D %q: Maven ran %q, want it to start with %q", tt.profiles, tt.props, calls, tt.wantArgs)
		}
	}
}

// TestPrepareBrokenClasspath: a class path Maven left empty or truncated (a
// full disk) is an error and never cached, and a cached one that a failed
// write emptied is resolved again.
func TestPrepareBrokenClasspath(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"pom.xml":                    simplePom,
		"src/test/java/p/ATest.java": "class ATest {}",
	})
	later := time.Now().Add(2 * time.Second)
	writeFiles(t, dir, map[string]string{"target/test-classes/p/ATest.class": "x"})
	os.Chtimes(filepath.Join(dir, "target/test-classes/p/ATest.class"), later, later)
	jars := fakeJars(t, "junit-4.13.2.jar", "hamcrest-core-1.3.jar")
	fake := newFakeMvn(t, "")
	cached := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "target/flaky/cache/classpath-*.txt"))
		return m
	}
	for _, tt := range []struct{ name, cp, want string }{
		{"empty", "", "the test class path is empty"},
		{"truncated", jars[0] + ":" + jars[1][:len(jars[1])-9], "missing entries: " + jars[1][:len(jars[1])-9]},
	} {
		t.Setenv("FAKE_CP", tt.cp)
		_, err := Prepare(context.Background(), dir, PrepareOptions{Mvn: fake.path})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.want)
		}
		if c := cached(); c != nil {
			t.Errorf("%s: cached %q", tt.name, c)
		}
	}

	t.Setenv("FAKE_CP", jars[0])
	if _, err := Prepare(context.Background(), dir, PrepareOptions{Mvn: fake.path}); err != nil {
		t.Fatal(err)
	}
	fake.calls(t)
	c := cached()
	if len(c) != 1 {
		t.Fatalf("cached %q, want one class path", c)
	}
	// A write that failed on a full disk left the cached file empty.
	if err := os.WriteFile(c[0], nil, 0o644); err != nil {
		t.Fatal(err)
	}
	setup, err := Prepare(context.Background(), dir, PrepareOptions{Mvn: fake.path})
	if err != nil {
		t.Fatal(err)
	}
	if calls := fake.calls(t); len(calls) != 1 || !strings.Contains(calls[0], "dependency:build-classpath") {
		t.Errorf("Maven ran %q, want the class path resolved again", calls)
	}
	if got := setup.Classpath[2:]; !reflect.DeepEqual(got, []string{jars[0]}) {
		t.Errorf("class path %q", got)
	}
}
