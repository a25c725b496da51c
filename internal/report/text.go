package report

import "strings"

// FirstLine is the first line of a message (all of it when it has one).
func FirstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// Headline is the first line of a message with surrounding space trimmed,
// at most max bytes of it ("..." marks a cut), for places that quote a
// failure in one line of bounded length (annotations, SARIF results).
func Headline(s string, max int) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	line = strings.TrimRight(line, "\r")
	if len(line) > max {
		line = strings.ToValidUTF8(line[:max], "") + "..."
	}
	return line
}
