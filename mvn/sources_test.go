package mvn

import "testing"

func TestModulePath(t *testing.T) {
	for _, c := range []struct{ root, module, want string }{
		{"/p", "/p", "."}, {"/p", "/p/core", "core"}, {"/p", "/p/a/b", "a/b"}, {"/p", "/q/web", "web"},
	} {
		if got := ModulePath(c.root, c.module); got != c.want {
			t.Errorf("ModulePath(%q, %q) = %q, want %q", c.root, c.module, got, c.want)
		}
	}
}
