package repair

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/flakyhq/flaky/internal/fix/editor"
)

// reflectionHint ends the reason of a finding whose polluted static field
// only reflection restores, when --allow-reflection is off.
const reflectionHint = "restorable only through reflection: pass --allow-reflection"

// reflectiveRestore restores a static field through java.lang.reflect, for
// a field no reset-method restores: its own value when the passing value is
// null, a primitive, a string, a boxed value or an enum constant, or the
// emptying of its collection or map. why says when there is none: a value
// that cannot be written as Java, state inside the field's object, or a
// final field whose value would have to be replaced (Field.set refuses
// static final fields on every JDK since 12, and on 8 without hacks).
func reflectiveRestore(s State, class, field string, fi *editor.FieldInfo) (restore, string) {
	name := "static field " + s.Root
	if fi == nil {
		return restore{}, name + ": its declaration was not found"
	}
	v := field + "Field"
	head := []string{
		fmt.Sprintf("java.lang.reflect.Field %s = Class.forName(%s).getDeclaredField(%s);", v, javaString(class), javaString(field)),
		v + ".setAccessible(true);",
	}
	passing := strings.TrimSpace(s.Passing)
	var last string
	switch entry, ok := mapEntry(s, fi.Type); {
	case ok:
		last = fmt.Sprintf("((java.util.Map<Object, Object>) %s.get(null)).%s;", v, entry)
	case s.Path == "" && (passing == "[]" || passing == "{}"), strings.HasPrefix(s.Path, "[") && passing == "<absent>":
		iface := collectionInterface(fi.Type)
		if iface == "" {
			return restore{}, fmt.Sprintf("%s: of type %s, which is neither a Map nor a Collection to empty", name, fi.Type)
		}
		last = fmt.Sprintf("((%s) %s.get(null)).clear();", iface, v)
	case s.Path != "":
		return restore{}, fmt.Sprintf("%s: its state differs inside its object (%s), which no reflective restore of the field reaches", name, s.Path)
	case fi.Final:
		return restore{}, fmt.Sprintf("%s: final, so not even reflection can set it back to %s", name, passing)
	default:
		val, ok := javaValue(fi.Type, passing, v)
		if !ok {
			return restore{}, fmt.Sprintf("%s: its passing value %s of type %s cannot be written in Java", name, passing, fi.Type)
		}
		last = fmt.Sprintf("%s.set(null, %s);", v, val)
	}
	return restore{code: editor.Code{Statements: append(head, last), Throws: true}, what: name + " (through reflection)"}, ""
}

// assignment restores a static field visible from the class the restore
// goes into (vis, see visible) by plain Java: the entry of its map that
// differs put back (or removed), its collection or map emptied, or, when it
// is not final, its passing value assigned (null, a primitive, a string or
// a boxed value); ref names the field from that class.
func assignment(s State, ref string, fi *editor.FieldInfo, vis bool) (restore, bool) {
	if fi == nil || !vis {
		return restore{}, false
	}
	passing := strings.TrimSpace(s.Passing)
	var stmt string
	switch entry, ok := mapEntry(s, fi.Type); {
	case ok:
		stmt = ref + "." + entry + ";"
	case s.Path == "" && (passing == "[]" || passing == "{}"), strings.HasPrefix(s.Path, "[") && passing == "<absent>":
		if collectionInterface(fi.Type) == "" {
			return restore{}, false
		}
		stmt = ref + ".clear();"
	case s.Path != "" || fi.Final:
		return restore{}, false
	default:
		v, ok := javaValue(fi.Type, passing, "")
		if !ok || strings.HasPrefix(v, "Enum.valueOf") {
			return restore{}, false
		}
		stmt = ref + " = " + v + ";"
	}
	return restore{code: editor.Code{Statements: []string{stmt}}, what: "static field " + s.Root}, true
}

// mapEntry is the call that puts back the one entry of a map-typed field
// that differs (path ['key'], a string key): put(key, passing value), or
// remove(key) when the passing map had no such key. ok is false for any
// other state, and for a passing value not writable as Java of the map's
// value type.
func mapEntry(s State, typ string) (call string, ok bool) {
	inner, ok := strings.CutPrefix(s.Path, "['")
	if !ok || !strings.HasPrefix(collectionInterface(typ), "java.util.Map") {
		return "", false
	}
	key, ok := strings.CutSuffix(inner, "']")
	if !ok || strings.Contains(key, "']") {
		return "", false
	}
	passing := strings.TrimSpace(s.Passing)
	if passing != "null" && absent(passing) {
		return "remove(" + javaString(key) + ")", true
	}
	v, ok := javaValue(strings.TrimPrefix(typeArgs(typ)[1], "java.lang."), passing, "")
	if !ok || strings.HasPrefix(v, "Enum.valueOf") {
		return "", false
	}
	return "put(" + javaString(key) + ", " + v + ")", true
}

// typeArgs are the two top-level type arguments of a declared generic type
// (Map<K, V>), "Object" for those it does not name.
func typeArgs(typ string) [2]string {
	out := [2]string{"Object", "Object"}
	_, args, ok := strings.Cut(typ, "<")
	if !ok {
		return out
	}
	args = strings.TrimSuffix(strings.TrimSpace(args), ">")
	depth, start, n := 0, 0, 0
	for i, c := range args + "," {
		switch {
		case c == '<':
			depth++
		case c == '>':
			depth--
		case c == ',' && depth == 0 && n < 2:
			out[n] = strings.TrimSpace(args[start:i])
			n, start = n+1, i+1
		}
	}
	return out
}

// collectionInterface is java.util.Map or java.util.Collection (with
// wildcards) for a declared type that names one, else "".
func collectionInterface(typ string) string {
	base, _, _ := strings.Cut(typ, "<")
	base = strings.TrimSpace(base[strings.LastIndexByte(base, '.')+1:])
	switch {
	case strings.HasSuffix(base, "[]"):
		return ""
	case strings.HasSuffix(base, "Map"):
		return "java.util.Map<?, ?>"
	}
	for _, s := range []string{"List", "Set", "Collection", "Queue", "Deque", "Vector", "Stack"} {
		if strings.HasSuffix(base, s) {
			return "java.util.Collection<?>"
		}
	}
	return ""
}

// javaValue is the Java expression for a rendered passing value that
// Field.set accepts for a field of type typ: boxed exactly as the field's
// type needs (Field.set widens primitives but never converts boxes); an
// enum constant is looked up by name on fieldVar's type.
func javaValue(typ, rendered, fieldVar string) (string, bool) {
	typ = strings.TrimSpace(typ)
	if rendered == "null" {
		return "null", !primitive(typ)
	}
	switch typ {
	case "boolean", "Boolean":
		if rendered == "true" || rendered == "false" {
			return rendered, true
		}
		return "", false
	case "int", "Integer", "long", "Long", "short", "Short", "byte", "Byte", "float", "Float", "double", "Double":
		if _, err := strconv.ParseFloat(rendered, 64); err != nil {
			return "", false
		}
		integral := !strings.ContainsAny(rendered, ".eE")
		switch typ {
		case "int", "Integer":
			return rendered, integral
		case "long", "Long":
			return rendered + "L", integral
		case "short", "Short":
			return "(short) " + rendered, integral
		case "byte", "Byte":
			return "(byte) " + rendered, integral
		case "float", "Float":
			return rendered + "f", true
		}
		return rendered + "d", true
	case "String", "CharSequence", "Object", "java.lang.String", "java.lang.Object":
		s, err := strconv.Unquote(rendered)
		if err != nil {
			return "", false
		}
		return javaString(s), true
	}
	// An enum constant, rendered as Type.NAME or NAME.
	simple, _, _ := strings.Cut(typ, "<")
	simple = simple[strings.LastIndexByte(simple, '.')+1:]
	constant := strings.TrimPrefix(rendered, simple+".")
	if primitive(typ) || !identifier(constant) {
		return "", false
	}
	return fmt.Sprintf("Enum.valueOf((Class) %s.getType(), %s)", fieldVar, javaString(constant)), true
}

// identifier reports whether s is a Java identifier (ASCII).
func identifier(s string) bool {
	for i, c := range s {
		if !(c == '_' || c == '$' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

func primitive(typ string) bool {
	switch typ {
	case "boolean", "int", "long", "short", "byte", "char", "float", "double":
		return true
	}
	return false
}
