package state

import "strings"

// SplitStaticField splits a static field's root name (pkg.Class.FIELD, or
// pkg.Class#FIELD) into its class and field; ok is false for a name with
// neither separator.
func SplitStaticField(root string) (class, field string, ok bool) {
	if class, field, ok = strings.Cut(root, "#"); ok {
		return class, field, true
	}
	i := strings.LastIndexByte(root, '.')
	if i < 0 {
		return "", "", false
	}
	return root[:i], root[i+1:], true
}
