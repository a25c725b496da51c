package surefire

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestReadOrder(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    []string
		wantErr string
	}{
		{name: "plain", content: "a.B#c\na.B#d\n", want: []string{"a.B#c", "a.B#d"}},
		{name: "comments, blanks, spaces, CRLF", content: "# header\n\n  a.B#c  \r\n#a.B#x\na.B#d", want: []string{"a.B#c", "a.B#d"}},
		{name: "nested, parameterized, unicode", content: "a.Outer$Inner#m\na.B#m[1]\nä.Ü_1#größe[0: x y]\n", want: []string{"a.Outer$Inner#m", "a.B#m[1]", "ä.Ü_1#größe[0: x y]"}},
		{name: "empty", content: "# nothing\n\n", wantErr: "names no tests"},
		{name: "invalid UTF-8", content: "a.B#c\na.B#\xff\xfe\n", wantErr: "line 2: not valid UTF-8"},
		{name: "invalid UTF-8 in a comment", content: "# \xff\na.B#c\n", wantErr: "line 1: not valid UTF-8"},
		{name: "NUL", content: "a.B#c\x00d\n", wantErr: "line 1: test id \"a.B#c\\x00d\" contains a control character"},
		{name: "no method", content: "a.B\n", wantErr: "want pkg.Class#method"},
		{name: "bad class", content: "a..B#c\n", wantErr: "is not a Java class name"},
		{name: "class with a space", content: "a B#c\n", wantErr: "is not a Java class name"},
		{name: "millions of lines", content: strings.Repeat("a.B#c\n", 3_000_000), wantErr: "more than 500000 lines"},
		{name: "as many lines as allowed", content: strings.Repeat("a.B#c\n", MaxOrderLines), want: slices.Repeat([]string{"a.B#c"}, MaxOrderLines)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "order.txt")
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := ReadOrderFile(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ReadOrderFile = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// FuzzReadOrder checks that whatever ReadOrder accepts is a list of clean
// test ids that survives writing and reading again unchanged.
func FuzzReadOrder(f *testing.F) {
	for _, seed := range []string{
		"a.B#c\na.B#d\n", "# c\n\n a.B#c \r\n", "a.Outer$Inner#m[1]\n", "a.B#\xff\n", "a.B#c\x00\n", "a..B#c", "#", "",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		order, err := ReadOrder(strings.NewReader(string(data)), "fuzz")
		if err != nil {
			return
		}
		if len(order) == 0 {
			t.Fatal("accepted an order without tests")
		}
		for _, id := range order {
			if !utf8.ValidString(id) || strings.ContainsAny(id, "\n\r\x00") || !strings.Contains(id, "#") || strings.TrimSpace(id) != id {
				t.Fatalf("accepted test id %q", id)
			}
		}
		again, err := ReadOrder(strings.NewReader(strings.Join(order, "\n")+"\n"), "again")
		if err != nil || !reflect.DeepEqual(again, order) {
			t.Fatalf("round trip: %q, %v; want %q", again, err, order)
		}
	})
}
