package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Change is one difference inside a root: the path from the root to the
// differing node (".events[3]", "['BTC']", "" for the root itself) and
// short renderings of the two values.
type Change struct {
	Path string
	A, B string
}

// absentText renders a value that does not exist on one side.
const absentText = "<absent>"

// maxRender bounds a short rendering.
const maxRender = 120

// Diff compares two values of one root and returns where they differ, at
// most max changes (the first in path order), and whether there were more;
// nothing for equal trees.
func Diff(a, b Root, max int) ([]Change, bool) {
	if a.Initial || b.Initial {
		return []Change{{A: renderRoot(a), B: renderRoot(b)}}, false
	}
	av, bv := decode(a.Tree), decode(b.Tree)
	if equal(av, bv) {
		return nil, false
	}
	var out []Change
	walkDiff("", av, bv, &out)
	if len(out) == 0 {
		// Trees that differ only in what renderings leave out (field order, key forms).
		out = append(out, Change{A: render(av), B: render(bv)})
	}
	if len(out) > max {
		return out[:max], true
	}
	return out, false
}

func renderRoot(r Root) string {
	if r.Initial {
		return "<as at JVM start>"
	}
	return Render(r.Tree)
}

func decode(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return string(raw)
	}
	return v
}

// walkDiff appends the differences between a and b under path.
func walkDiff(path string, a, b any, out *[]Change) {
	if equal(a, b) {
		return
	}
	ao, aok := a.(map[string]any)
	bo, bok := b.(map[string]any)
	if !aok || !bok || ao["@class"] != bo["@class"] || ao["@class"] == nil || leafNode(ao) || leafNode(bo) {
		*out = append(*out, Change{Path: path, A: render(a), B: render(b)})
		return
	}
	switch {
	case ao["@entries"] != nil && bo["@entries"] != nil:
		diffEntries(path, ao["@entries"], bo["@entries"], out)
	case ao["@items"] != nil && bo["@items"] != nil:
		ai, _ := ao["@items"].([]any)
		bi, _ := bo["@items"].([]any)
		if len(ai) != len(bi) && !ordered(ao) {
			*out = append(*out, Change{Path: path, A: render(a), B: render(b)})
			return
		}
		for i := 0; i < max(len(ai), len(bi)); i++ {
			p := fmt.Sprintf("%s[%d]", path, i)
			switch {
			case i >= len(ai):
				*out = append(*out, Change{Path: p, A: absentText, B: render(bi[i])})
			case i >= len(bi):
				*out = append(*out, Change{Path: p, A: render(ai[i]), B: absentText})
			default:
				walkDiff(p, ai[i], bi[i], out)
			}
		}
	default:
		for _, k := range fieldNames(ao, bo) {
			av, ain := ao[k]
			bv, bin := bo[k]
			// The agent's frames leave out null fields.
			if !ain {
				av = nil
			}
			if !bin {
				bv = nil
			}
			walkDiff(path+"."+k, av, bv, out)
		}
	}
}

// leafNode reports whether an object node is compared whole: a value type
// ({"@class","@value"}) or a collection cut to its size.
func leafNode(o map[string]any) bool {
	return o["@value"] != nil || o["@size"] != nil
}

// ordered reports whether a collection node keeps its elements' order
// (lists, arrays), as opposed to a set sorted canonically.
func ordered(o map[string]any) bool {
	c, _ := o["@class"].(string)
	return strings.HasPrefix(c, "[") || strings.Contains(c, "List") || strings.Contains(c, "Queue") || strings.Contains(c, "Deque") || strings.Contains(c, "Vector")
}

func diffEntries(path string, a, b any, out *[]Change) {
	am, bm := entries(a), entries(b)
	keys := make([]string, 0, len(am)+len(bm))
	for k := range am {
		keys = append(keys, k)
	}
	for k := range bm {
		if _, ok := am[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		ae, ain := am[k]
		be, bin := bm[k]
		var key any
		if ain {
			key = ae[0]
		} else {
			key = be[0]
		}
		p := path + "[" + renderKey(key) + "]"
		switch {
		case !ain:
			*out = append(*out, Change{Path: p, A: absentText, B: render(be[1])})
		case !bin:
			*out = append(*out, Change{Path: p, A: render(ae[1]), B: absentText})
		default:
			walkDiff(p, ae[1], be[1], out)
		}
	}
}

// entries indexes a map node's [key, value] pairs by the key's canonical JSON.
func entries(v any) map[string][2]any {
	out := map[string][2]any{}
	list, _ := v.([]any)
	for _, e := range list {
		pair, ok := e.([]any)
		if !ok || len(pair) != 2 {
			continue
		}
		k, _ := json.Marshal(pair[0])
		out[string(k)] = [2]any{pair[0], pair[1]}
	}
	return out
}

// renderKey renders a map key in a path: 'BTC' for a string, else its short form.
func renderKey(k any) string {
	if s, ok := k.(string); ok {
		return "'" + s + "'"
	}
	return render(k)
}

func fieldNames(a, b map[string]any) []string {
	var names []string
	for k := range a {
		if !strings.HasPrefix(k, "@") {
			names = append(names, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok && !strings.HasPrefix(k, "@") {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names
}

func equal(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// Render returns a short rendering of a tree: 42, "text", Color.RED,
// [1, 2], {'BTC'=1}, Registry{count=3}, <cut: nodes>, ...
func Render(raw json.RawMessage) string {
	return render(decode(raw))
}

func render(v any) string {
	var b strings.Builder
	write(&b, v)
	s := b.String()
	if len(s) > maxRender {
		s = s[:maxRender-3] + "..."
	}
	return s
}

func write(b *strings.Builder, v any) {
	if b.Len() > maxRender {
		return
	}
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case string:
		b.WriteString(strconv.Quote(v))
	case json.Number:
		b.WriteString(v.String())
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case []any:
		writeList(b, "[", "]", v)
	case map[string]any:
		writeObject(b, v)
	default:
		fmt.Fprint(b, v)
	}
}

func writeList(b *strings.Builder, open, closing string, items []any) {
	b.WriteString(open)
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		write(b, it)
	}
	b.WriteString(closing)
}

func writeObject(b *strings.Builder, o map[string]any) {
	class, _ := o["@class"].(string)
	simple := class[strings.LastIndexByte(class, '.')+1:]
	switch {
	case o["@skip"] != nil:
		fmt.Fprintf(b, "<skipped: %v>", o["@skip"])
	case o["@opaque"] != nil:
		fmt.Fprintf(b, "<%v>", o["@opaque"])
	case o["@cut"] != nil:
		fmt.Fprintf(b, "<cut: %v>", o["@cut"])
	case o["@cycle"] != nil:
		b.WriteString("<cycle>")
	case class == "" && o["sha256"] != nil:
		sum, _ := o["sha256"].(string)
		fmt.Fprintf(b, "file of %v bytes, sha256 %s", o["size"], sum[:min(12, len(sum))])
	case o["@enum"] != nil:
		e, _ := o["@enum"].(string)
		fmt.Fprintf(b, "%s.%v", e[strings.LastIndexByte(e, '.')+1:], o["@value"])
	case o["@size"] != nil:
		fmt.Fprintf(b, "%s(%v elements, cut)", simple, o["@size"])
	case o["@value"] != nil && len(o) == 2 && (class == "java.lang.StringBuilder" || class == "java.lang.StringBuffer"):
		fmt.Fprint(b, strconv.Quote(fmt.Sprint(o["@value"])))
	case o["@value"] != nil && len(o) == 2:
		fmt.Fprint(b, o["@value"])
	case o["@entries"] != nil:
		b.WriteString("{")
		list, _ := o["@entries"].([]any)
		for i, e := range list {
			if i > 0 {
				b.WriteString(", ")
			}
			if pair, ok := e.([]any); ok && len(pair) == 2 {
				write(b, pair[0])
				b.WriteString("=")
				write(b, pair[1])
			}
		}
		b.WriteString("}")
	case o["@items"] != nil:
		items, _ := o["@items"].([]any)
		writeList(b, "[", "]", items)
	default:
		b.WriteString(simple)
		b.WriteString("{")
		for i, k := range fieldNames(o, nil) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k + "=")
			write(b, o[k])
		}
		b.WriteString("}")
	}
}
