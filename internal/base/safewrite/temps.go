package safewrite

import (
	"os"
	"sync"
)

// temps are the temporary files CreateTemp made that are still there: a
// write cut short by a signal leaves them, and RemoveTemps removes them.
var temps = struct {
	sync.Mutex
	names map[string]bool
}{names: map[string]bool{}}

// CreateTemp creates a temporary file as os.CreateTemp does and keeps its
// name until Forget, so that RemoveTemps can remove it on an exit path
// that skips deferred calls (flaky ending after a signal).
func CreateTemp(dir, pattern string) (*os.File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	temps.Lock()
	temps.names[f.Name()] = true
	temps.Unlock()
	return f, nil
}

// Forget removes the temporary file name, if it is still there (not
// renamed), and forgets it.
func Forget(name string) {
	os.Remove(name)
	temps.Lock()
	delete(temps.names, name)
	temps.Unlock()
}

// RemoveTemps removes every temporary file CreateTemp made that has not
// been forgotten yet.
func RemoveTemps() {
	temps.Lock()
	defer temps.Unlock()
	for name := range temps.names {
		os.Remove(name)
		delete(temps.names, name)
	}
}
