package mvn

import (
	"encoding/xml"
	"fmt"

	"github.com/flakyhq/flaky/internal/base/saferead"
)

// Bounds on a pom flaky reads, so that a hostile pom costs little memory
// and time. Real poms are far below them: the poms of local repositories
// are at most a few hundred KiB, some thousand elements and a dozen levels
// deep. Maven itself refuses deep nesting (XML parsers commonly stop at
// 1000 levels, as Woodstox does by default).
const (
	// maxPomSize is the largest pom flaky reads, in bytes.
	maxPomSize = 4 << 20
	// maxPomDepth is the deepest element nesting flaky accepts in a pom.
	maxPomDepth = 1000
	// maxPomNodes is the most elements and attributes flaky accepts in a pom.
	maxPomNodes = 100_000
)

// readPomBytes reads the pom at path: it must be a regular file (not a
// device, FIFO or directory, even through a symbolic link) of at most
// maxPomSize bytes whose elements nest at most maxPomDepth deep, with at
// most maxPomNodes elements and attributes.
func readPomBytes(path string) ([]byte, error) {
	content, err := saferead.ReadFile(path, maxPomSize, "a pom")
	if err != nil {
		return nil, err
	}
	if err := checkShape(content); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return content, nil
}

// checkShape returns an error (a saferead.ErrRefused) when content's elements nest deeper than
// maxPomDepth or its elements and attributes are more than maxPomNodes. It
// scans raw tokens, in constant memory; syntax errors are left to the
// parsers that come after.
func checkShape(content []byte) error {
	parse, err := parseCopy(content)
	if err != nil {
		return nil
	}
	d := newPomDecoder(parse)
	depth, nodes := 0, 0
	for {
		tok, err := d.RawToken()
		if err != nil {
			return nil
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth++; depth > maxPomDepth {
				return saferead.Refuse("elements nest more than %d deep (at byte %d)", maxPomDepth, d.InputOffset())
			}
			if nodes += 1 + len(t.Attr); nodes > maxPomNodes {
				return saferead.Refuse("more than %d elements and attributes (at byte %d)", maxPomNodes, d.InputOffset())
			}
		case xml.EndElement:
			depth--
		}
	}
}
