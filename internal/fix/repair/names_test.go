package repair

import "testing"

// TestSimplify names classes simply where the file can: imported by name
// (top-level or nested), java.lang, its own package, a package imported on
// demand its own package does not shadow; never inside literals or when
// another import takes the simple name.
func TestSimplify(t *testing.T) {
	n := fileNames{
		pkg:      "app.tests",
		single:   []string{"app.state.Plugins", "app.state.Outer.Inner", "other.Cache"},
		onDemand: []string{"java.util", "lib"},
		inPkg:    func(simple string) bool { return simple == "Helper" },
	}
	tests := []struct{ code, want string }{
		{"app.state.Plugins.reset();", "Plugins.reset();"},
		{"app.state.Other.reset();", "app.state.Other.reset();"},
		{"app.state.Outer.Inner.INSTANCE.clear();", "Inner.INSTANCE.clear();"},
		{"app.tests.Fixtures.clear();", "Fixtures.clear();"},
		{"java.lang.System.clearProperty(\"app.state.Plugins.x\");", "System.clearProperty(\"app.state.Plugins.x\");"},
		{"java.util.Locale.setDefault(java.util.Locale.Category.FORMAT, INITIAL);", "Locale.setDefault(Locale.Category.FORMAT, INITIAL);"},
		{"lib.Helper.reset(); lib.Tool.reset();", "lib.Helper.reset(); Tool.reset();"},
		{"app.state.Cache.clear();", "app.state.Cache.clear();"},
		{"new java.io.File(dir, 'a').delete();", "new java.io.File(dir, 'a').delete();"},
		{"themeField.set(null, Enum.valueOf((Class) themeField.getType(), \"LIGHT\"));", "themeField.set(null, Enum.valueOf((Class) themeField.getType(), \"LIGHT\"));"},
		{"app.state.Plugins.load(\"a\\\"app.state.Plugins\"); x.app.state.Plugins.y();", "Plugins.load(\"a\\\"app.state.Plugins\"); x.app.state.Plugins.y();"},
		{"private static final java.util.TimeZone TZ = java.util.TimeZone.getDefault();", "private static final TimeZone TZ = TimeZone.getDefault();"},
	}
	for _, tt := range tests {
		if got := n.simplify(tt.code); got != tt.want {
			t.Errorf("simplify(%s) = %s, want %s", tt.code, got, tt.want)
		}
	}
}
