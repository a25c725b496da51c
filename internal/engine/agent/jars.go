// Package agent embeds the Java runner and agent jars (and the Surefire
// provider and Maven plugin that install-artifacts writes), extracts them to a
// cache directory, and implements the driver side of the agent wire protocol
// (framing, messages and a loopback Server); see PROTOCOL.md.
package agent

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/flakyhq/flaky/internal/base/safewrite"
)

//go:embed jars/flaky-agent.jar jars/flaky-runner.jar jars/flaky-surefire-provider.jar jars/flaky-maven-plugin.jar
var jarFS embed.FS

const (
	agentJar    = "flaky-agent.jar"
	runnerJar   = "flaky-runner.jar"
	providerJar = "flaky-surefire-provider.jar"
	pluginJar   = "flaky-maven-plugin.jar"
)

// Jars holds the paths of the extracted jars.
type Jars struct {
	Agent    string // the -javaagent jar
	Runner   string // the jar with dev.flaky.runner.Main
	Provider string // the Surefire provider jar
}

// JarContents holds the embedded jars themselves.
type JarContents struct {
	Agent    []byte
	Runner   []byte
	Provider []byte
	// Plugin is dev.flaky:flaky-maven-plugin as built, its descriptor
	// naming the Java build's version (see mvn.PluginJar).
	Plugin []byte
}

// Contents returns the embedded jars.
func Contents() (JarContents, error) {
	var c JarContents
	for _, j := range []struct {
		name string
		dst  *[]byte
	}{{agentJar, &c.Agent}, {runnerJar, &c.Runner}, {providerJar, &c.Provider}, {pluginJar, &c.Plugin}} {
		data, err := jarFS.ReadFile("jars/" + j.name)
		if err != nil {
			return JarContents{}, fmt.Errorf("read embedded %s: %w", j.name, err)
		}
		*j.dst = data
	}
	return c, nil
}

var extracted struct {
	once sync.Once
	jars Jars
	err  error
}

// Extract writes the embedded jars to a cache directory named after their
// contents ($FLAKY_CACHE_DIR, else the user cache dir's "flaky", then
// jars-<hash>) unless they are already there, and returns their paths.
// Concurrent callers, including other processes, are safe: each file is
// written to a temporary name and renamed into place.
func Extract() (Jars, error) {
	extracted.once.Do(func() {
		extracted.jars, extracted.err = extract()
	})
	return extracted.jars, extracted.err
}

func extract() (Jars, error) {
	c, err := Contents()
	if err != nil {
		return Jars{}, err
	}
	base, err := cacheBase()
	if err != nil {
		return Jars{}, err
	}
	dir := filepath.Join(base, "jars-"+contentKey(c.Agent, c.Runner, c.Provider))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Jars{}, fmt.Errorf("create jar cache dir: %w", err)
	}
	jars := Jars{
		Agent:    filepath.Join(dir, agentJar),
		Runner:   filepath.Join(dir, runnerJar),
		Provider: filepath.Join(dir, providerJar),
	}
	for path, data := range map[string][]byte{jars.Agent: c.Agent, jars.Runner: c.Runner, jars.Provider: c.Provider} {
		if err := writeOnce(path, data); err != nil {
			return Jars{}, err
		}
	}
	return jars, nil
}

// CacheDir is flaky's cache directory: $FLAKY_CACHE_DIR, else the user
// cache dir's "flaky".
func CacheDir() (string, error) {
	return cacheBase()
}

func cacheBase() (string, error) {
	if dir := os.Getenv("FLAKY_CACHE_DIR"); dir != "" {
		return dir, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find cache dir (set FLAKY_CACHE_DIR): %w", err)
	}
	return filepath.Join(dir, "flaky"), nil
}

// contentKey names a version of the jars by a hash of their contents.
func contentKey(contents ...[]byte) string {
	h := sha256.New()
	for _, c := range contents {
		sum := sha256.Sum256(c)
		h.Write(sum[:])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// writeOnce atomically creates path with data unless a regular file with
// exactly that content exists; a file that differs (replaced, truncated,
// corrupted) is written again.
func writeOnce(path string, data []byte) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(data)) {
		if have, err := os.ReadFile(path); err == nil && sha256.Sum256(have) == sha256.Sum256(data) {
			return nil
		}
	}
	if err := safewrite.Atomic(path, data, 0o644); err != nil {
		return fmt.Errorf("extract %s: %w", filepath.Base(path), err)
	}
	return nil
}
