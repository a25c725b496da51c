package agent

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// editorJar is the Java source editor of flaky repair (java/flaky-editor):
// JavaParser behind a JSON-lines protocol on stdin and stdout.
//
//go:embed jars/flaky-editor.jar
var editorJar []byte

var editorExtracted struct {
	once sync.Once
	path string
	err  error
}

// ExtractEditor writes the embedded source editor jar to the cache directory
// (as Extract does for the other jars) unless it is already there, and
// returns its path.
func ExtractEditor() (string, error) {
	editorExtracted.once.Do(func() {
		base, err := cacheBase()
		if err != nil {
			editorExtracted.err = err
			return
		}
		dir := filepath.Join(base, "editor-"+contentKey(editorJar))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			editorExtracted.err = fmt.Errorf("create editor cache dir: %w", err)
			return
		}
		path := filepath.Join(dir, "flaky-editor.jar")
		editorExtracted.path, editorExtracted.err = path, writeOnce(path, editorJar)
	})
	return editorExtracted.path, editorExtracted.err
}
