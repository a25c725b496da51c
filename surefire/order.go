package surefire

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteOrderFile stores an order as an order file the flaky provider and
// `flaky run-order` read (one test id per line), named by its content hash
// in dir, and returns its path. Writing the same order twice yields the
// same file.
func WriteOrderFile(dir string, order []string) (string, error) {
	content := strings.Join(order, "\n") + "\n"
	sum := sha256.Sum256([]byte(content))
	path := filepath.Join(dir, "order-"+hex.EncodeToString(sum[:6])+".txt")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("writing order file: %w", err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		return "", fmt.Errorf("writing order file: %w", err)
	}
	return path, nil
}
