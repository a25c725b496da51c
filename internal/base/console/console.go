// Package console makes text from tests safe to print on a terminal: control
// characters (NUL, ESC and the rest of C0 and C1, DEL, bidirectional
// overrides) and invalid UTF-8 are written as visible \uXXXX / \xNN escapes.
package console

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// Escape returns s with every character that could control a terminal
// escaped; newlines and tabs stay. Inside a JSON string the escapes decode
// back to the original characters.
func Escape(s string) string {
	var b strings.Builder
	escapeTo(&b, s)
	return b.String()
}

func escapeTo(b *strings.Builder, s string) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(b, `\x%02x`, s[i])
		case unsafe(r):
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
}

// unsafe reports a character that a terminal may act on.
func unsafe(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidirectional embeddings, overrides, isolates
		return true
	}
	return false
}

// Writer escapes what it writes to an underlying writer. A UTF-8 sequence
// split across writes is kept until it is complete.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	pending []byte
}

// NewWriter returns a Writer that writes escaped text to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w}
}

// Write implements io.Writer; it reports len(p) when the escaped text was written.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	data := append(w.pending, p...)
	w.pending = nil
	// Keep an incomplete trailing sequence for the next write.
	for k := 1; k <= utf8.UTFMax-1 && k <= len(data); k++ {
		if utf8.RuneStart(data[len(data)-k]) {
			if !utf8.FullRune(data[len(data)-k:]) {
				w.pending = append([]byte(nil), data[len(data)-k:]...)
				data = data[:len(data)-k]
			}
			break
		}
	}
	var b strings.Builder
	escapeTo(&b, string(data))
	if _, err := io.WriteString(w.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap returns the writer a Writer escapes for, else w itself: for output
// that is not from tests, such as Maven's own, which may color a terminal.
func Unwrap(w io.Writer) io.Writer {
	if cw, ok := w.(*Writer); ok {
		return cw.w
	}
	return w
}
