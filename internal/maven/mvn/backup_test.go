package mvn

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// git runs git in dir and returns its output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// The backups of the poms init and remove change go under .flaky/backups,
// which git ignores: `git add -A` picks up the poms and the baseline, never
// a backup.
func TestBackupsIgnoredByGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := writeTree(t, map[string]string{
		"pom.xml":      testPom("", "root", "pom", "  <modules><module>core</module></modules>\n"),
		"core/pom.xml": testPom("org.example:root:1.0", "core", "jar", ""),
	})
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "project")
	opts := ProfileOptions{LocalRepo: noRepo, Version: testVersion}
	state, err := InitProfile(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(state.Poms) != 1 || state.Poms[0].Backup != filepath.Join(dir, ".flaky", "backups", "pom.xml") {
		t.Fatalf("InitProfile = %+v, want the root pom backed up in .flaky/backups", state)
	}
	if _, err := RemoveProfile(dir, false); err != nil {
		t.Fatal(err)
	}
	if _, err := InitProfile(dir, opts); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"pom.xml", "pom.xml.1", "pom.xml.2"} {
		if _, err := os.Stat(filepath.Join(dir, ".flaky", "backups", b)); err != nil {
			t.Errorf("backup %s: %v", b, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".flaky", "baseline.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := git(t, dir, "status", "--porcelain", "--untracked-files=all"), " M pom.xml\n?? .flaky/baseline.json\n"; got != want {
		t.Errorf("git status after init:\n%s\nwant\n%s", got, want)
	}
	// A .gitignore of the user's own there is left alone.
	own := "# mine\n*\n!keep\n"
	ignore := filepath.Join(dir, ".flaky", "backups", ".gitignore")
	if err := os.WriteFile(ignore, []byte(own), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := RemoveProfile(dir, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(ignore); string(got) != own {
		t.Errorf("the user's .gitignore became %q", got)
	}
}
