package agent

import (
	"archive/zip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// java8Major is the class file major version of Java 8: the shipped jars
// (built with --release 8) run in test JVMs, and the editor in a JVM, of
// Java 8 and later.
const java8Major = 52

// newerOnPurpose lists, as "jar!entry", the class files in the shipped jars
// that need a Java newer than 8 on purpose, each with the reason. A Java 8
// JVM must never load them. Besides these, a jar may hold module-info.class
// files (Java 8 never reads them) and classes under META-INF/versions/N/ of
// a multi-release jar, read only by Java N and later.
var newerOnPurpose = map[string]string{}

// versionedEntry matches a class of a multi-release jar for Java N.
var versionedEntry = regexp.MustCompile(`^META-INF/versions/([0-9]+)/`)

// TestJarsAreJava8Bytecode checks every class file in agent/jars/*.jar: at
// most Java 8's class file version, unless it is an exception above.
func TestJarsAreJava8Bytecode(t *testing.T) {
	jars, err := filepath.Glob("jars/*.jar")
	if err != nil {
		t.Fatal(err)
	}
	if len(jars) < 4 {
		t.Fatalf("want the four shipped jars in agent/jars, got %v", jars)
	}
	seen := map[string]bool{}
	for _, jar := range jars {
		bad, err := newerClasses(jar, newerOnPurpose, seen)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bad {
			t.Errorf("%s: build with --release 8, or list it in newerOnPurpose with the reason", b)
		}
	}
	for key := range newerOnPurpose {
		if !seen[key] {
			t.Errorf("newerOnPurpose lists %s, which no shipped jar holds", key)
		}
	}
}

// TestNewerClasses: the check finds a Java 11 class, and lets module-info,
// a multi-release jar's classes for their Java and listed exceptions be.
func TestNewerClasses(t *testing.T) {
	jar := filepath.Join(t.TempDir(), "x.jar")
	f, err := os.Create(jar)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, major := range map[string]int{
		"a/Old.class": 49, "a/Eight.class": 52, "a/Eleven.class": 55, "module-info.class": 55,
		"META-INF/versions/11/a/Eight.class": 55, "META-INF/versions/11/a/Seventeen.class": 61, "a/Listed.class": 61,
	} {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		head := []byte{0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 0}
		binary.BigEndian.PutUint16(head[6:], uint16(major))
		w.Write(head)
	}
	if err := errors.Join(zw.Close(), f.Close()); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	bad, err := newerClasses(jar, map[string]string{"x.jar!a/Listed.class": "test"}, seen)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"x.jar!META-INF/versions/11/a/Seventeen.class: class file version 61 (Java 17), want at most 55 (Java 11)",
		"x.jar!a/Eleven.class: class file version 55 (Java 11), want at most 52 (Java 8)",
	}
	slices.Sort(bad)
	if !slices.Equal(bad, want) || !seen["x.jar!a/Listed.class"] {
		t.Errorf("got %q (seen %v), want %q", bad, seen, want)
	}
}

// newerClasses returns the class files of a jar newer than the Java that
// may load them, as "jar!entry: why", marking the exceptions it met in seen.
func newerClasses(jar string, exceptions map[string]string, seen map[string]bool) ([]string, error) {
	zr, err := zip.OpenReader(jar)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	var bad []string
	classes := 0
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, ".class") {
			continue
		}
		classes++
		key := filepath.Base(jar) + "!" + f.Name
		if _, ok := exceptions[key]; ok {
			seen[key] = true
			continue
		}
		if path.Base(f.Name) == "module-info.class" {
			continue
		}
		major, err := classMajor(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		limit := java8Major
		if m := versionedEntry.FindStringSubmatch(f.Name); m != nil {
			n, _ := strconv.Atoi(m[1])
			limit = 44 + n
		}
		if major > limit {
			bad = append(bad, fmt.Sprintf("%s: class file version %d (Java %d), want at most %d (Java %d)", key, major, major-44, limit, limit-44))
		}
	}
	if classes == 0 {
		return nil, fmt.Errorf("%s holds no classes", jar)
	}
	return bad, nil
}

// classMajor reads a class file's major version.
func classMajor(f *zip.File) (int, error) {
	rc, err := f.Open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	var head [8]byte
	if _, err := io.ReadFull(rc, head[:]); err != nil {
		return 0, err
	}
	if binary.BigEndian.Uint32(head[:4]) != 0xCAFEBABE {
		return 0, errors.New("not a class file")
	}
	return int(binary.BigEndian.Uint16(head[6:])), nil
}
