package launcher

import (
	"archive/zip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestArgfileQuote(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`/a/b.jar:/c`, `"/a/b.jar:/c"`},
		{`/with space/x.jar`, `"/with space/x.jar"`},
		{`C:\lib\a.jar`, `"C:\\lib\\a.jar"`},
		{`say "hi"`, `"say \"hi\""`},
		{"line\nbreak\r", `"line\nbreak\r"`},
		{`#not a comment`, `"#not a comment"`},
		{`it's`, `"it's"`},
		{"", `""`},
	}
	for _, tt := range tests {
		if got := argfileQuote(tt.in); got != tt.want {
			t.Errorf("argfileQuote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestArgfileQuoteWithJava checks the quoting against a real java launcher when one is installed.
func TestArgfileQuoteWithJava(t *testing.T) {
	java, err := exec.LookPath("java")
	if err != nil || testing.Short() {
		t.Skip("no java on PATH")
	}
	dir := t.TempDir()
	values := []string{`/with space/a.jar:/b`, `back\slash`, `q"uote`, `#hash`, `it's`, "tab\there"}
	src := `public class Echo { public static void main(String[] a) {
		for (int i = 0; i < ` + string(rune('0'+len(values))) + `; i++) System.out.println("<" + System.getProperty("v" + i) + ">"); } }`
	if err := os.WriteFile(filepath.Join(dir, "Echo.java"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var args []string
	var want []string
	for i, v := range values {
		args = append(args, argfileQuote("-Dv"+string(rune('0'+i))+"="+v))
		want = append(want, "<"+v+">")
	}
	argfile := filepath.Join(dir, "args")
	if err := os.WriteFile(argfile, []byte(strings.Join(args, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(java, "@"+argfile, filepath.Join(dir, "Echo.java")).CombinedOutput()
	if err != nil {
		if jvm, _ := parseJVM(string(out)); jvm.Major != 0 && jvm.Major < 11 {
			t.Skip("java too old for source launch")
		}
		t.Fatalf("java: %v\n%s", err, out)
	}
	if got := strings.Split(strings.TrimSpace(string(out)), "\n"); !reflect.DeepEqual(got, want) {
		t.Errorf("java read %q, want %q", got, want)
	}
}

func TestClasspathArgs(t *testing.T) {
	dir := t.TempDir()
	short := []string{"/p/test-classes", "/p/classes", "/m2/junit.jar"}
	long := make([]string, 300)
	for i := range long {
		long[i] = "/home/user/.m2/repository/org/example/artifact/1.0/artifact-with-a-long-name-1.0.jar"
	}

	args, err := classpathArgs(short, JVM{Major: 17}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"-cp", "/p/test-classes:/p/classes:/m2/junit.jar"}; !reflect.DeepEqual(args, want) {
		t.Errorf("short classpath args = %q, want %q", args, want)
	}

	args, err = classpathArgs(long, JVM{Major: 11}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(args) != 1 || !strings.HasPrefix(args[0], "@") {
		t.Fatalf("long classpath on Java 11 args = %q, want one @argfile", args)
	}
	content, _ := os.ReadFile(args[0][1:])
	if want := "-cp " + argfileQuote(strings.Join(long, ":")) + "\n"; string(content) != want {
		t.Errorf("argfile content differs")
	}

	args, err = classpathArgs(long, JVM{Major: 8}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(args) != 2 || args[0] != "-cp" || !strings.HasSuffix(args[1], ".jar") {
		t.Fatalf("long classpath on Java 8 args = %q, want -cp <manifest jar>", args)
	}
	zr, err := zip.OpenReader(args[1])
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if len(zr.File) != 1 || zr.File[0].Name != "META-INF/MANIFEST.MF" {
		t.Fatalf("jar entries: %v", zr.File)
	}
	rc, _ := zr.File[0].Open()
	mf, _ := io.ReadAll(rc)
	rc.Close()
	if got := manifestClassPath(t, string(mf)); len(got) != len(long) || got[0] != "file://"+long[0] {
		t.Errorf("manifest Class-Path has %d entries, first %q", len(got), got[0])
	}
}

func TestManifest(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "test classes")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	mf := manifest([]string{sub, "/m2/a b/x.jar", "/m2/ü.jar"})
	for _, line := range strings.Split(mf, "\r\n") {
		if len(line) > 72 {
			t.Errorf("manifest line longer than 72 bytes: %q", line)
		}
	}
	if !strings.HasPrefix(mf, "Manifest-Version: 1.0\r\n") || !strings.HasSuffix(mf, "\r\n\r\n") {
		t.Errorf("manifest framing wrong:\n%s", mf)
	}
	want := []string{
		"file://" + strings.ReplaceAll(sub, " ", "%20") + "/",
		"file:///m2/a%20b/x.jar",
		"file:///m2/%C3%BC.jar",
	}
	if got := manifestClassPath(t, mf); !reflect.DeepEqual(got, want) {
		t.Errorf("Class-Path = %q, want %q", got, want)
	}
}

// manifestClassPath unwraps the manifest's Class-Path header.
func manifestClassPath(t *testing.T, mf string) []string {
	t.Helper()
	unwrapped := strings.ReplaceAll(mf, "\r\n ", "")
	for _, line := range strings.Split(unwrapped, "\r\n") {
		if v, ok := strings.CutPrefix(line, "Class-Path: "); ok {
			return strings.Fields(v)
		}
	}
	t.Fatal("no Class-Path header")
	return nil
}

func TestWrapManifestLine(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"short", "Class-Path: a.jar", []string{"Class-Path: a.jar"}},
		{"exactly 72", strings.Repeat("x", 72), []string{strings.Repeat("x", 72)}},
		{"73", strings.Repeat("x", 73), []string{strings.Repeat("x", 72), " x"}},
		{"three lines", strings.Repeat("y", 72+71+5), []string{strings.Repeat("y", 72), " " + strings.Repeat("y", 71), " yyyyy"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wrapManifestLine(tt.in)
			want := strings.Join(tt.want, "\r\n") + "\r\n"
			if got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

func TestHeadTail(t *testing.T) {
	tests := []struct {
		name   string
		limit  int
		writes []string
		want   string
	}{
		{"under limit", 10, []string{"abc", "de"}, "abcde"},
		{"exactly limit", 10, []string{"0123456789"}, "0123456789"},
		{"one big write", 10, []string{"0123456789ABCDEF"}, "01234\n[... 6 bytes of output omitted ...]\nBCDEF"},
		{"many small writes", 4, []string{"a", "b", "c", "d", "e", "f", "g"}, "ab\n[... 3 bytes of output omitted ...]\nfg"},
		{"huge write after small", 6, []string{"x", strings.Repeat("-", 100) + "END"}, "x--\n[... 98 bytes of output omitted ...]\nEND"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHeadTail(tt.limit)
			for _, w := range tt.writes {
				if n, err := h.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := h.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
