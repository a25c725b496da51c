package console

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain\ttext\nline two", "plain\ttext\nline two"},
		{"nul\x00 esc\x1b[2J bell\a cr\r del\x7f", `nul\u0000 esc\u001b[2J bell\u0007 cr\u000d del\u007f`},
		{"c1 \u0085 \u009b31m", `c1 \u0085 \u009b31m`},
		{"bidi \u202eevil\u202c", `bidi \u202eevil\u202c`},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`},
		{"ünïcødé ✓", "ünïcødé ✓"},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Writes that split a UTF-8 sequence are escaped as one text.
func TestWriterSplitRune(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	s := []byte("a✓\x1b")
	for i := range s {
		if n, err := w.Write(s[i : i+1]); n != 1 || err != nil {
			t.Fatal(n, err)
		}
	}
	if got := out.String(); got != `a✓\u001b` {
		t.Errorf("got %q", got)
	}
}

// JSON written through the Writer still decodes to the original text.
func TestWriterKeepsJSON(t *testing.T) {
	msg := "nul\x00 esc\x1b c1\u0085 del\x7f bidi\u202e"
	var out bytes.Buffer
	if err := json.NewEncoder(NewWriter(&out)).Encode(map[string]string{"message": msg}); err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsAny(out.Bytes(), "\x00\x1b\x7f") || bytes.Contains(out.Bytes(), []byte("\u0085")) {
		t.Errorf("raw control characters in %q", out.String())
	}
	var back map[string]string
	if err := json.Unmarshal(out.Bytes(), &back); err != nil || back["message"] != msg {
		t.Errorf("decoded %q (%v), want %q", back["message"], err, msg)
	}
}

func TestUnwrap(t *testing.T) {
	var out bytes.Buffer
	if Unwrap(NewWriter(&out)) != &out || Unwrap(&out) != &out {
		t.Error("Unwrap did not return the underlying writer")
	}
}
