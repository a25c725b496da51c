package launcher

import (
	"archive/zip"
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// maxInlineClasspath is the longest classpath passed directly with -cp.
const maxInlineClasspath = 8192

// classpathArgs returns the JVM arguments that set classpath, writing an
// @argfile (when the JVM reads them: Java 9 and later) or a manifest-only
// jar (Java 8) into dir when the classpath is too long for the command line.
func classpathArgs(classpath []string, jvm JVM, dir string) ([]string, error) {
	joined := strings.Join(classpath, string(os.PathListSeparator))
	if len(joined) <= maxInlineClasspath {
		return []string{"-cp", joined}, nil
	}
	if jvm.argFiles() {
		path := filepath.Join(dir, "classpath.args")
		content := "-cp " + argfileQuote(joined) + "\n"
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return nil, fmt.Errorf("write classpath argfile: %w", err)
		}
		return []string{"@" + path}, nil
	}
	path := filepath.Join(dir, "classpath.jar")
	if err := writeManifestJar(path, classpath); err != nil {
		return nil, err
	}
	return []string{"-cp", path}, nil
}

// argfileQuote quotes s as one argument of a java @argfile: inside double
// quotes the launcher reads backslash escapes, and a raw line break would end
// the argument.
func argfileQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`)
	return `"` + r.Replace(s) + `"`
}

// writeManifestJar writes a jar whose manifest Class-Path lists classpath.
func writeManifestJar(path string, classpath []string) error {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("META-INF/MANIFEST.MF")
	if err == nil {
		_, err = w.Write([]byte(manifest(classpath)))
	}
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = os.WriteFile(path, buf.Bytes(), 0o644)
	}
	if err != nil {
		return fmt.Errorf("write classpath jar: %w", err)
	}
	return nil
}

// manifest returns a manifest whose Class-Path holds file URLs of the
// entries (directories end with a slash), wrapped at 72 bytes per line.
func manifest(classpath []string) string {
	urls := make([]string, len(classpath))
	for i, entry := range classpath {
		abs, err := filepath.Abs(entry)
		if err != nil {
			abs = entry
		}
		p := filepath.ToSlash(abs)
		if fi, err := os.Stat(abs); err == nil && fi.IsDir() && !strings.HasSuffix(p, "/") {
			p += "/"
		}
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		urls[i] = (&url.URL{Scheme: "file", Path: p}).String()
	}
	return "Manifest-Version: 1.0\r\n" +
		wrapManifestLine("Class-Path: "+strings.Join(urls, " ")) +
		"Created-By: flaky\r\n\r\n"
}

// wrapManifestLine splits a header into 72-byte lines; continuation lines
// start with a space.
func wrapManifestLine(line string) string {
	const width = 72
	var b strings.Builder
	for first := true; ; first = false {
		n := width
		if !first {
			b.WriteByte(' ')
			n = width - 1
		}
		if len(line) <= n {
			b.WriteString(line)
			b.WriteString("\r\n")
			return b.String()
		}
		b.WriteString(line[:n])
		b.WriteString("\r\n")
		line = line[n:]
	}
}
