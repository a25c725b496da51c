package mvn

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzInitProfile runs the pom editor on arbitrary poms: a pom it refuses
// stays byte for byte; one it edits parses, has the current profile, and gets
// its original bytes back when the profile is removed again.
func FuzzInitProfile(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "init", "*", "pom.xml"))
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(junit4Pom))
	// Each edit syncs its files: on tmpfs, when there is one, that costs nothing.
	base := ""
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		base = "/dev/shm"
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		dir, err := os.MkdirTemp(base, "flaky-fuzz-pom-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		pom := filepath.Join(dir, "pom.xml")
		if err := os.WriteFile(pom, content, 0o644); err != nil {
			t.Fatal(err)
		}
		opts := ProfileOptions{LocalRepo: noRepo, Version: testVersion, JUnitPlatformVersion: "1.12.2"}
		state, err := InitProfile(dir, opts)
		got, _ := os.ReadFile(pom)
		if err != nil {
			if !bytes.Equal(got, content) {
				t.Fatalf("refused (%v) but changed the pom", err)
			}
			return
		}
		if _, err := parseTree(got); err != nil {
			t.Fatalf("the edited pom does not parse: %v", err)
		}
		if again, err := CheckProfile(dir, opts); err != nil || again.Status() != ProfileCurrent {
			t.Fatalf("after init the profile is %+v (%v)", again, err)
		}
		if state.Status() != ProfileAbsent {
			return
		}
		if _, err := RemoveProfile(dir, false); err != nil {
			t.Fatalf("remove: %v", err)
		}
		if back, _ := os.ReadFile(pom); !bytes.Equal(back, content) {
			t.Fatalf("init then remove changed the pom:\n%q\nwant\n%q", back, content)
		}
	})
}
