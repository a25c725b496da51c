package mvn

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// A pom is parsed by encoding/xml on a "parse copy" of its bytes that has the
// same length, so the decoder's offsets are offsets into the file itself and
// edits can splice the original bytes. UTF-8 poms (with or without a byte
// order mark) are parsed as they are. Poms declaring an ASCII-compatible
// single-byte encoding such as ISO-8859-1 get their bytes >= 0x80 replaced
// by '?' in the copy: the markup is ASCII, so offsets and structure are
// unchanged and only non-ASCII text reads as '?'. UTF-16 and other
// encodings are refused.

// singleByteEncodings are the ASCII-compatible single-byte encodings a pom
// may declare (lower case).
var singleByteEncodings = map[string]bool{
	"us-ascii": true, "ascii": true,
	"iso-8859-1": true, "iso8859-1": true, "iso_8859-1": true, "latin1": true, "l1": true,
	"iso-8859-15": true, "iso8859-15": true, "latin9": true,
	"windows-1252": true, "cp1252": true,
}

// parseCopy returns the bytes encoding/xml should parse for content (see
// above), or an error naming an encoding flaky cannot edit.
func parseCopy(content []byte) ([]byte, error) {
	if len(content) >= 2 && (content[0] == 0xFE && content[1] == 0xFF || content[0] == 0xFF && content[1] == 0xFE ||
		content[0] == 0 && content[1] == '<' || content[0] == '<' && content[1] == 0) {
		return nil, errors.New("the file is UTF-16 encoded; flaky only edits UTF-8 and ISO-8859-1 poms (convert it to UTF-8)")
	}
	label := declaredEncoding(content)
	switch l := strings.ToLower(label); {
	case l == "" || l == "utf-8" || l == "utf8":
		return content, nil
	case singleByteEncodings[l]:
		parse := bytes.Clone(content)
		for i, b := range parse {
			if b >= 0x80 {
				parse[i] = '?'
			}
		}
		return parse, nil
	case strings.HasPrefix(l, "utf-16") || strings.HasPrefix(l, "utf-32") || strings.HasPrefix(l, "ucs"):
		return nil, fmt.Errorf("the file declares encoding %q; flaky only edits UTF-8 and ISO-8859-1 poms (convert it to UTF-8)", label)
	default:
		return nil, fmt.Errorf("the file declares encoding %q, which flaky cannot edit safely (supported: UTF-8, US-ASCII, ISO-8859-1/-15, windows-1252)", label)
	}
}

// declaredEncoding returns the encoding named by content's XML declaration
// unless it is UTF-8, as encoding/xml reports it to a CharsetReader.
func declaredEncoding(content []byte) string {
	var label string
	d := xml.NewDecoder(bytes.NewReader(content))
	d.CharsetReader = func(l string, r io.Reader) (io.Reader, error) {
		label = l
		return r, nil
	}
	// The declaration comes first, after at most a byte order mark.
	for range 2 {
		tok, err := d.RawToken()
		if err != nil {
			break
		}
		if _, ok := tok.(xml.ProcInst); ok {
			break
		}
	}
	return label
}

// newPomDecoder returns a decoder over a parse copy. The copy is ASCII where
// the declared encoding is not UTF-8, so the charset reader is the identity;
// HTML entities (&nbsp; ...) are accepted as Maven accepts them.
func newPomDecoder(parse []byte) *xml.Decoder {
	d := xml.NewDecoder(bytes.NewReader(parse))
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	d.Entity = xml.HTMLEntity
	return d
}

// decodePom unmarshals a pom's content into v (a gopom.Project or any
// encoding/xml target).
func decodePom(content []byte, v any) error {
	parse, err := parseCopy(content)
	if err != nil {
		return err
	}
	return newPomDecoder(parse).Decode(v)
}

// xmlNode is an element of a parsed file with its byte offsets in the file.
type xmlNode struct {
	name       string // local name
	start, end int    // from the '<' of the start tag to after the '>' of the end tag
	// innerStart and innerEnd delimit the content; equal to end for <a/>.
	innerStart, innerEnd int
	text                 string // the element's own character data, decoded
	textBuf              strings.Builder
	children             []*xmlNode
}

// parseTree parses content (a whole file) and returns its root element.
func parseTree(content []byte) (*xmlNode, error) {
	parse, err := parseCopy(content)
	if err != nil {
		return nil, err
	}
	d := newPomDecoder(parse)
	var (
		root  *xmlNode
		stack []*xmlNode
	)
	for {
		off := int(d.InputOffset())
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) == 0 && root != nil {
				return nil, fmt.Errorf("XML syntax error: a second root element <%s> after </%s>", t.Name.Local, root.name)
			}
			n := &xmlNode{name: t.Name.Local, start: off, innerStart: int(d.InputOffset())}
			if len(stack) > 0 {
				parent := stack[len(stack)-1]
				parent.children = append(parent.children, n)
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			n := stack[len(stack)-1]
			n.innerEnd, n.end = off, int(d.InputOffset())
			n.text = n.textBuf.String()
			n.textBuf.Reset()
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				// A builder: an element whose text is split by many comments must not cost quadratic time.
				stack[len(stack)-1].textBuf.Write(t)
			}
		}
	}
	if root == nil {
		return nil, errors.New("no root element")
	}
	return root, nil
}

// child returns n's first child element named name, or nil.
func (n *xmlNode) child(name string) *xmlNode {
	if n == nil {
		return nil
	}
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	return nil
}

// path follows child elements by name; nil when one is missing.
func (n *xmlNode) path(names ...string) *xmlNode {
	for _, name := range names {
		n = n.child(name)
	}
	return n
}

// all returns n's child elements named name.
func (n *xmlNode) all(name string) []*xmlNode {
	if n == nil {
		return nil
	}
	var out []*xmlNode
	for _, c := range n.children {
		if c.name == name {
			out = append(out, c)
		}
	}
	return out
}

// value returns the trimmed text of n's child element name ("" when absent).
func (n *xmlNode) value(name string) string {
	if c := n.child(name); c != nil {
		return strings.TrimSpace(c.text)
	}
	return ""
}

// selfClosing says whether n is written as <name/>.
func (n *xmlNode) selfClosing() bool {
	return n.innerStart == n.end
}
