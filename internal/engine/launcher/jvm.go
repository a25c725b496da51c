package launcher

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/flakyhq/flaky/internal/base/saferead"
	"github.com/flakyhq/flaky/internal/base/safewrite"
	"github.com/flakyhq/flaky/internal/engine/agent"
)

// JVM is what the launcher knows of a java executable, read once per
// executable and kept in flaky's cache directory: every JVM option the
// launcher adds is chosen from it (see its methods), so that a test JVM of
// any Java from 8 on starts.
type JVM struct {
	Major   int    `json:"major"`   // the Java feature version: 8, 11, 17, 25, ...
	Version string `json:"version"` // java.version, e.g. "11.0.13" or "1.8.0_392"
	VMName  string `json:"vmName"`  // java.vm.name, e.g. "OpenJDK 64-Bit Server VM"
}

// HotSpot reports whether the JVM is HotSpot (OpenJDK and its builds), whose
// -XX and -Xlog options and class-data sharing the launcher uses; other
// JVMs (OpenJ9) get none of them.
func (j JVM) HotSpot() bool {
	return !strings.Contains(j.VMName, "J9")
}

// argFiles reports whether the java launcher reads @argfiles (Java 9).
func (j JVM) argFiles() bool { return j.Major >= 9 }

// appCDS reports whether the JVM archives application classes from the
// class path with -XX:SharedClassListFile, -Xshare:dump and
// -XX:SharedArchiveFile, and records a class list with
// -XX:DumpLoadedClassList (HotSpot from Java 11; Java 10 needed
// -XX:+UseAppCDS, which 11 dropped).
func (j JVM) appCDS() bool { return j.HotSpot() && j.Major >= cdsMinJava }

// cdsQuiet returns the options that keep a JVM mapping an archive from
// logging about it: unified logging's tags as the JVM has them (cds and
// class+path since Java 9, cds+dynamic since Java 13, the release of dynamic
// archives). A JVM refuses to start on a tag it does not know.
func (j JVM) cdsQuiet() []string {
	if !j.HotSpot() || j.Major < 9 {
		return nil
	}
	args := []string{"-Xlog:cds=off"}
	if j.Major >= 13 {
		args = append(args, "-Xlog:cds+dynamic=off")
	}
	return append(args, "-Xlog:class+path=off")
}

// jvmProbeTimeout bounds the probe of a java executable.
const jvmProbeTimeout = 30 * time.Second

// jvmCacheVersion names the format of the probe cache's files.
const jvmCacheVersion = "flaky-jvm-1"

// jvmProbes memoises ProbeJVM in this process, by cache key.
var jvmProbes sync.Map // string -> JVM

// ProbeJVM returns what java is: read from flaky's cache directory when the
// executable (by its resolved path, size and modification time) was probed
// before, else by running `java -XshowSettings:properties -version` once
// and caching the answer. Without a cache directory it probes every time.
func ProbeJVM(ctx context.Context, java string) (JVM, error) {
	key, err := jvmKey(java)
	if err != nil {
		return JVM{}, err
	}
	if v, ok := jvmProbes.Load(key); ok {
		return v.(JVM), nil
	}
	var file string
	if dir, err := agent.CacheDir(); err == nil {
		file = filepath.Join(dir, "jvm", key+".json")
		if data, err := saferead.ReadFile(file, 64<<10, "a JVM probe"); err == nil {
			var j JVM
			if json.Unmarshal(data, &j) == nil && j.Major > 0 {
				jvmProbes.Store(key, j)
				return j, nil
			}
		}
	}
	j, err := probeJVM(ctx, java)
	if err != nil {
		return JVM{}, err
	}
	jvmProbes.Store(key, j)
	if file != "" {
		// A cache that cannot be written costs a probe next time, no more.
		_ = writeJVMCache(file, j)
	}
	return j, nil
}

// jvmKey names a java executable by its resolved path, size and
// modification time: a JDK installed anew at the same path is probed again.
func jvmKey(java string) (string, error) {
	exe, err := exec.LookPath(java)
	if err != nil {
		return "", fmt.Errorf("find java %q: %w", java, err)
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return "", err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", fmt.Errorf("resolve java %q: %w", java, err)
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return "", fmt.Errorf("java %q: %w", java, err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d", jvmCacheVersion, exe, fi.Size(), fi.ModTime().UnixNano())
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

// writeJVMCache writes a probe's answer atomically.
func writeJVMCache(file string, j JVM) error {
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return safewrite.Atomic(file, append(data, '\n'), 0o644)
}

// probeJVM runs java once to read its version and VM.
func probeJVM(ctx context.Context, java string) (JVM, error) {
	ctx, cancel := context.WithTimeout(ctx, jvmProbeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, java, "-XshowSettings:properties", "-version")
	// The module's options for its tests are not the probe's.
	cmd.Env = withoutJavaOptions(os.Environ())
	out, err := cmd.CombinedOutput()
	if err != nil {
		if tail := tailLines(string(out), 5); tail != "" {
			err = fmt.Errorf("%w: %s", err, tail)
		}
		return JVM{}, fmt.Errorf("run %s -version: %w", java, err)
	}
	return parseJVM(string(out))
}

// withoutJavaOptions drops the variables through which the java launcher
// takes extra options, which could fail or change the probe.
func withoutJavaOptions(env []string) []string {
	var out []string
	for _, e := range env {
		k, _, _ := strings.Cut(e, "=")
		if k != "JAVA_TOOL_OPTIONS" && k != "JDK_JAVA_OPTIONS" && k != "_JAVA_OPTIONS" {
			out = append(out, e)
		}
	}
	return out
}

// settingRE matches one property line of -XshowSettings:properties.
var settingRE = regexp.MustCompile(`(?m)^\s+([a-z.]+) = (.*?)\s*$`)

// javaVersionRE matches the version in `java -version`'s first line.
var javaVersionRE = regexp.MustCompile(`version "([0-9]+)(?:\.([0-9]+))?[^"]*"`)

// parseJVM reads a JVM from the output of `java -XshowSettings:properties
// -version`: its java.specification.version ("1.8" is 8, "11" is 11),
// java.version and java.vm.name, or, without the properties, the version
// line ("1.8.0_392" is 8, "17.0.15" is 17, "25" is 25).
func parseJVM(out string) (JVM, error) {
	props := map[string]string{}
	for _, m := range settingRE.FindAllStringSubmatch(out, -1) {
		if _, ok := props[m[1]]; !ok {
			props[m[1]] = m[2]
		}
	}
	j := JVM{Version: props["java.version"], VMName: props["java.vm.name"]}
	if spec := props["java.specification.version"]; spec != "" {
		j.Major = specMajor(spec)
	}
	if j.Major == 0 {
		m := javaVersionRE.FindStringSubmatch(out)
		if m == nil {
			return JVM{}, fmt.Errorf("no version in java -version output: %q", tailLines(out, 3))
		}
		j.Major, _ = strconv.Atoi(m[1])
		if j.Major == 1 && m[2] != "" {
			j.Major, _ = strconv.Atoi(m[2])
		}
	}
	if j.Major <= 0 {
		return JVM{}, fmt.Errorf("no version in java -version output: %q", tailLines(out, 3))
	}
	return j, nil
}

// specMajor is the feature version of a java.specification.version: "1.8"
// is 8, "11" is 11; 0 when it is neither.
func specMajor(spec string) int {
	a, b, _ := strings.Cut(spec, ".")
	n, err := strconv.Atoi(a)
	if err != nil {
		return 0
	}
	if n == 1 {
		n, _ = strconv.Atoi(b)
	}
	return n
}
