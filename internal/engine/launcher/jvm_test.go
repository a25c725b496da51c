package launcher

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// settings is what `java -XshowSettings:properties -version` prints, cut down.
func settings(spec, version, vm string) string {
	return "Property settings:\n" +
		"    file.separator = /\n" +
		"    java.specification.version = " + spec + "\n" +
		"    java.version = " + version + "\n" +
		"    java.vm.name = " + vm + "\n" +
		"    java.vm.specification.version = " + spec + "\n\n" +
		"openjdk version \"" + version + "\" 2021-10-19\n"
}

func TestParseJVM(t *testing.T) {
	tests := []struct {
		out     string
		want    JVM
		wantErr bool
	}{
		{out: settings("11", "11.0.13", "OpenJDK 64-Bit Server VM"), want: JVM{11, "11.0.13", "OpenJDK 64-Bit Server VM"}},
		{out: settings("1.8", "1.8.0_392", "OpenJDK 64-Bit Server VM"), want: JVM{8, "1.8.0_392", "OpenJDK 64-Bit Server VM"}},
		{out: settings("25", "25.0.3", "OpenJDK 64-Bit Server VM"), want: JVM{25, "25.0.3", "OpenJDK 64-Bit Server VM"}},
		{out: settings("17", "17.0.9", "Eclipse OpenJ9 VM"), want: JVM{17, "17.0.9", "Eclipse OpenJ9 VM"}},
		// Without the properties (a java that ignores -XshowSettings), the version line.
		{out: "openjdk version \"17.0.15\" 2025-04-15\nOpenJDK Runtime Environment", want: JVM{Major: 17}},
		{out: "java version \"1.8.0_392\"\nJava(TM) SE Runtime Environment", want: JVM{Major: 8}},
		{out: "openjdk version \"25\" 2025-09-16", want: JVM{Major: 25}},
		{out: "openjdk version \"21-ea\" 2023-09-19", want: JVM{Major: 21}},
		{out: "Picked up JAVA_TOOL_OPTIONS: -Dx=1\nopenjdk version \"21.0.1\"", want: JVM{Major: 21}},
		{out: "bash: java: command not found", wantErr: true},
	}
	for _, tt := range tests {
		got, err := parseJVM(tt.out)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("parseJVM(%q) = %+v, %v; want %+v (error %v)", tt.out, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestJVMOptionsByVersion: the options the launcher adds for each Java.
func TestJVMOptionsByVersion(t *testing.T) {
	tests := []struct {
		jvm      JVM
		argFiles bool
		appCDS   bool
		quiet    []string
	}{
		{JVM{Major: 8}, false, false, nil},
		{JVM{Major: 9}, true, false, []string{"-Xlog:cds=off", "-Xlog:class+path=off"}},
		{JVM{Major: 11}, true, true, []string{"-Xlog:cds=off", "-Xlog:class+path=off"}},
		{JVM{Major: 12}, true, true, []string{"-Xlog:cds=off", "-Xlog:class+path=off"}},
		{JVM{Major: 13}, true, true, []string{"-Xlog:cds=off", "-Xlog:cds+dynamic=off", "-Xlog:class+path=off"}},
		{JVM{Major: 17}, true, true, []string{"-Xlog:cds=off", "-Xlog:cds+dynamic=off", "-Xlog:class+path=off"}},
		{JVM{Major: 25}, true, true, []string{"-Xlog:cds=off", "-Xlog:cds+dynamic=off", "-Xlog:class+path=off"}},
		{JVM{Major: 17, VMName: "Eclipse OpenJ9 VM"}, true, false, nil},
	}
	for _, tt := range tests {
		if got := tt.jvm.argFiles(); got != tt.argFiles {
			t.Errorf("%+v: argFiles %v, want %v", tt.jvm, got, tt.argFiles)
		}
		if got := tt.jvm.appCDS(); got != tt.appCDS {
			t.Errorf("%+v: appCDS %v, want %v", tt.jvm, got, tt.appCDS)
		}
		if got := tt.jvm.cdsQuiet(); !slices.Equal(got, tt.quiet) {
			t.Errorf("%+v: cdsQuiet %q, want %q", tt.jvm, got, tt.quiet)
		}
	}
}

// TestProbeJVMCached: a java is run once; later probes read flaky's cache
// directory until the executable changes.
func TestProbeJVMCached(t *testing.T) {
	t.Setenv("FLAKY_CACHE_DIR", t.TempDir())
	dir := t.TempDir()
	count := filepath.Join(dir, "runs")
	java := filepath.Join(dir, "java")
	script := func(spec, version string) string {
		return "#!/bin/sh\necho run >>" + count + "\ncat >&2 <<'EOF'\n" + settings(spec, version, "OpenJDK 64-Bit Server VM") + "EOF\n"
	}
	if err := os.WriteFile(java, []byte(script("11", "11.0.13")), 0o755); err != nil {
		t.Fatal(err)
	}
	runs := func() int {
		data, _ := os.ReadFile(count)
		return strings.Count(string(data), "run")
	}
	for i := range 2 {
		jvmProbes.Clear() // a new flaky process
		j, err := ProbeJVM(t.Context(), java)
		if err != nil || j.Major != 11 || j.Version != "11.0.13" {
			t.Fatalf("probe %d: %+v, %v", i, j, err)
		}
	}
	if n := runs(); n != 1 {
		t.Errorf("java ran %d times for two probes, want once", n)
	}
	// The same path, another JDK: probed again.
	if err := os.WriteFile(java, []byte(script("21", "21.0.8")), 0o755); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(java, later, later); err != nil {
		t.Fatal(err)
	}
	jvmProbes.Clear()
	if j, err := ProbeJVM(t.Context(), java); err != nil || j.Major != 21 {
		t.Fatalf("after the change: %+v, %v", j, err)
	}
	if n := runs(); n != 2 {
		t.Errorf("java ran %d times, want twice", n)
	}
	if _, err := ProbeJVM(t.Context(), filepath.Join(dir, "missing")); err == nil {
		t.Error("probing a missing java: no error")
	}
}

// installedJDKs are the java executables of the JDKs on this machine: the
// system's and the test runtimes scripts/setup.sh installs.
func installedJDKs() []string {
	dirs := []string{"/usr/lib/jvm/*/bin/java"}
	if d := os.Getenv("FLAKY_TEST_JDKS"); d != "" {
		dirs = append(dirs, filepath.Join(d, "*", "bin", "java"))
	} else if d, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(d, ".cache", "flaky-e2e", "jdks", "*", "bin", "java"))
	}
	var out []string
	for _, d := range dirs {
		m, _ := filepath.Glob(d)
		out = append(out, m...)
	}
	return out
}

// TestJVMOptionsStart starts every JDK on this machine with every option
// the launcher would add for it (class-data sharing's and the fast start's).
func TestJVMOptionsStart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts JVMs")
	}
	t.Setenv("FLAKY_CACHE_DIR", t.TempDir())
	jdks := installedJDKs()
	if len(jdks) == 0 {
		t.Skip("no JDK under /usr/lib/jvm or in the test runtimes' directory")
	}
	for _, java := range jdks {
		j, err := ProbeJVM(t.Context(), java)
		if err != nil {
			t.Errorf("%s: %v", java, err)
			continue
		}
		args := append(slices.Clone(j.cdsQuiet()), fastStartArg, "-version")
		if j.appCDS() {
			args = append([]string{"-XX:DumpLoadedClassList=" + filepath.Join(t.TempDir(), "classes.lst")}, args...)
		}
		if out, err := exec.Command(java, args...).CombinedOutput(); err != nil {
			t.Errorf("Java %d (%s) %q: %v\n%s", j.Major, java, args, err, out)
		}
	}
}
