package sources

import (
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFinder(t *testing.T) {
	root := t.TempDir()
	mod := filepath.Join(root, "core")
	write(t, filepath.Join(mod, "pom.xml"), `<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>core</artifactId><version>1</version>
<build><testSourceDirectory>tests</testSourceDirectory></build></project>`)
	write(t, filepath.Join(mod, "tests", "com", "acme", "CartTest.java"), "class CartTest {}")
	write(t, filepath.Join(mod, "src", "main", "java", "com", "acme", "Cart.java"), "class Cart {}")
	write(t, filepath.Join(mod, "src", "main", "java", "com", "acme", "Helpers.java"), "class Helpers {} class Util {}")
	f := New(root, mod)
	tests := []struct {
		name, class, file, want string
	}{
		{"test id's class in the configured test directory", "com.acme.CartTest", "", "core/tests/com/acme/CartTest.java"},
		{"nested class maps to its top-level file", "com.acme.CartTest$Empty", "", "core/tests/com/acme/CartTest.java"},
		{"main sources", "com.acme.Cart", "", "core/src/main/java/com/acme/Cart.java"},
		{"debug file name wins", "com.acme.Util", "Helpers.java", "core/src/main/java/com/acme/Helpers.java"},
		{"unknown class", "com.acme.Missing", "", ""},
		{"file name cannot escape", "com.acme.Cart", "../Cart.java", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := f.Class(tt.class, tt.file); got != tt.want {
				t.Errorf("Class(%q, %q) = %q, want %q", tt.class, tt.file, got, tt.want)
			}
		})
	}
	if got := f.Test("com.acme.CartTest#addsItem"); got != "core/tests/com/acme/CartTest.java" {
		t.Errorf("Test = %q", got)
	}
}
