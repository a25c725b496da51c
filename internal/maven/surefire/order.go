package surefire

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/flakyhq/flaky/internal/base/testid"
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

// MaxOrderLines bounds an order file: ten times the tests of the largest
// suites, so that a runaway or hostile file fails at once instead of
// filling memory.
const MaxOrderLines = 500_000

// ReadOrder reads an order file: one test id per line (pkg.Class#method,
// pkg.Outer$Inner#method, pkg.Class#method[i]); blank lines and lines
// starting with # are ignored, a trailing \r is dropped. Every line must be
// valid UTF-8 without control characters, and every id a class name, '#'
// and a method; the error names the first bad line. A file of more than
// MaxOrderLines lines is refused.
func ReadOrder(r io.Reader, name string) ([]string, error) {
	var order []string
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		if line > MaxOrderLines {
			return nil, fmt.Errorf("order file %s has more than %d lines; flaky runs at most that many tests in one order", name, MaxOrderLines)
		}
		text := strings.TrimSuffix(sc.Text(), "\r")
		if !utf8.ValidString(text) {
			return nil, fmt.Errorf("order file %s, line %d: not valid UTF-8", name, line)
		}
		id := strings.TrimSpace(text)
		if id == "" || strings.HasPrefix(id, "#") {
			continue
		}
		if err := checkTestID(id); err != nil {
			return nil, fmt.Errorf("order file %s, line %d: %w", name, line, err)
		}
		order = append(order, id)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read order file %s: %w", name, err)
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("order file %s names no tests", name)
	}
	return order, nil
}

// ReadOrderFile is ReadOrder on the file at path.
func ReadOrderFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read order file: %w", err)
	}
	defer f.Close()
	return ReadOrder(f, path)
}

// checkTestID checks the shape of one test id: a Java binary class name,
// '#', and a method name with an optional invocation suffix.
func checkTestID(id string) error {
	for _, r := range id {
		if unicode.IsControl(r) {
			return fmt.Errorf("test id %q contains a control character", id)
		}
	}
	class, member := testid.Split(id)
	if member == "" {
		return fmt.Errorf("test id %q: want pkg.Class#method", id)
	}
	for _, seg := range strings.Split(class, ".") {
		first, _ := utf8.DecodeRuneInString(seg)
		if seg == "" || unicode.IsDigit(first) || strings.IndexFunc(seg, notJavaNameChar) >= 0 {
			return fmt.Errorf("test id %q: %q is not a Java class name", id, class)
		}
	}
	return nil
}

// notJavaNameChar reports a character that cannot be part of a Java binary
// class name segment (letters, digits, '_' and '$' can).
func notJavaNameChar(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '$'
}
