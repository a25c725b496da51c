package mvn

import (
	"path/filepath"

	"github.com/vifraa/gopom"
)

// SourceRoots returns a module's test and main source directories: the first
// <testSourceDirectory> and <sourceDirectory> of its pom chain, else Maven's
// defaults src/test/java and src/main/java, as absolute paths.
func SourceRoots(moduleDir string) (test, main string, err error) {
	dir, err := filepath.Abs(moduleDir)
	if err != nil {
		return "", "", err
	}
	chain, err := loadPomChain(dir, func(string, ...any) {})
	if err != nil {
		return "", "", err
	}
	in := newInterpolator(properties(chain))
	buildDirs(chain, in)
	setting := func(get func(*gopom.Build) *string, def string) string {
		v := def
		for _, p := range chain {
			if b := p.project.Build; b != nil && str(get(b)) != "" {
				v = str(get(b))
				break
			}
		}
		v = in.expand(v)
		if !filepath.IsAbs(v) {
			v = filepath.Join(dir, v)
		}
		return filepath.Clean(v)
	}
	test = setting(func(b *gopom.Build) *string { return b.TestSourceDirectory }, "src/test/java")
	main = setting(func(b *gopom.Build) *string { return b.SourceDirectory }, "src/main/java")
	return test, main, nil
}
