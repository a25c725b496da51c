package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/base/buildinfo"
	"github.com/flakyhq/flaky/internal/maven/mvn"
)

func initCommand() *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "add the flaky Maven profile to a project's poms (mvn -Pflaky verify then runs flaky)",
		ArgsUsage: "[DIR]",
		Description: "Adds the flaky profile to the poms the modules of the project in DIR (default: the current directory) inherit it from\n" +
			"(usually just DIR/pom.xml) and changes nothing else in them; a profile written by another flaky version is updated.\n" +
			"Each pom's previous content is kept in a new backup under DIR/" + mvn.BackupDir + ", at the pom's path (pom.xml, then pom.xml.1, ...; never\n" +
			"overwritten), a folder git ignores (its .gitignore says *); init names each backup.\n" +
			"The profile runs flaky's Maven plugin (dev.flaky:flaky-maven-plugin), which init installs into the local repository\n" +
			"with the Surefire provider and agent, as install-artifacts does.\n" +
			"A flaky profile flaky did not write, and read-only poms, are refused unless --force.\n" +
			"Exit status: 0 done (or, with --check, the profile is current), 1 with --check: absent or stale, 2 error.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "check", Usage: "only check that the profile is present and what this flaky writes"},
			&cli.BoolFlag{Name: "remove", Usage: "take the flaky profile out of the poms again"},
			&cli.BoolFlag{Name: "force", Usage: "replace or remove a flaky profile that flaky did not write, and write a read-only pom"},
			&cli.StringFlag{Name: "junit-platform-version", Usage: "JUnit Platform version of the launcher the profile adds, when the poms on disk do not tell (e.g. 1.14.4 for Jupiter 5.14.4)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usageError("init takes at most one directory, got %q", c.Args().Slice())
			}
			o := initOptions{
				globalOptions:        globalsOf(c),
				Dir:                  ".",
				Check:                c.Bool("check"),
				Remove:               c.Bool("remove"),
				Force:                c.Bool("force"),
				JUnitPlatformVersion: c.String("junit-platform-version"),
			}
			if c.NArg() == 1 {
				o.Dir = c.Args().First()
			}
			return runInit(o)
		},
	}
}

// initOptions are init's flags and directory.
type initOptions struct {
	globalOptions
	Dir                  string // the project's directory
	Check                bool
	Remove               bool
	Force                bool
	JUnitPlatformVersion string
}

// runInit adds, checks or removes the flaky profile of the project in o.Dir.
func runInit(o initOptions) error {
	if o.Check && o.Remove {
		return usageError("--check and --remove exclude each other")
	}
	dir := o.Dir
	out := o.Stdout
	if o.Remove {
		removed, err := mvn.RemoveProfile(dir, o.Force)
		if err != nil {
			return err
		}
		for _, r := range removed {
			fmt.Fprintf(out, "removed the flaky profile from %s (previous version: %s)\n", r.Pom, r.Backup)
		}
		if len(removed) == 0 {
			fmt.Fprintf(out, "no pom of the project in %s has a flaky profile; nothing to remove\n", dir)
			return nil
		}
		backupsNote(out, dir)
		return nil
	}
	opts := mvn.ProfileOptions{Version: buildinfo.MavenVersion(), JUnitPlatformVersion: o.JUnitPlatformVersion, Force: o.Force}
	if o.Check {
		state, err := mvn.CheckProfile(dir, opts)
		if err != nil {
			return profileError(err)
		}
		var problems []string
		for _, check := range state.Poms {
			switch check.Status {
			case mvn.ProfileCurrent:
				fmt.Fprintf(out, "the flaky profile in %s is present and current\n", check.Pom)
			case mvn.ProfileStale:
				problems = append(problems, fmt.Sprintf("the flaky profile in %s is present but stale (%s; flaky %s writes a different one)",
					check.Pom, writtenBy(check), opts.Version))
			default:
				problems = append(problems, fmt.Sprintf("%s has no flaky profile%s", check.Pom, reaches(check)))
			}
		}
		if len(problems) > 0 {
			return &exitStatus{code: 1, msg: strings.Join(problems, "\n") + "\nrun flaky init to add or update it"}
		}
		return nil
	}
	opts.Log = o.Stderr
	state, err := mvn.InitProfile(dir, opts)
	if err != nil {
		return profileError(err)
	}
	for _, check := range state.Poms {
		if check.Note != "" {
			fmt.Fprintf(out, "%s: %s\n", check.Pom, check.Note)
		}
		switch check.Status {
		case mvn.ProfileCurrent:
			fmt.Fprintf(out, "the flaky profile in %s is up to date\n", check.Pom)
		case mvn.ProfileStale:
			fmt.Fprintf(out, "updated the flaky profile in %s (%s; previous version: %s)\n", check.Pom, writtenBy(check), check.Backup)
		default:
			fmt.Fprintf(out, "added the flaky profile to %s%s (previous version: %s)\n", check.Pom, reaches(check), check.Backup)
		}
	}
	// Maven resolves the profile's plugin before any step of the build runs:
	// it must be in the local repository (or a repository the build names).
	if err := installArtifacts(installArtifactsOptions{globalOptions: o.globalOptions}); err != nil {
		return fmt.Errorf("install the flaky Maven plugin: %w", err)
	}
	if state.Status() != mvn.ProfileCurrent {
		backupsNote(out, dir)
		fmt.Fprintln(out, "run mvn -Pflaky verify")
	}
	return nil
}

// backupsNote says where init keeps the poms' previous versions.
func backupsNote(out io.Writer, dir string) {
	fmt.Fprintf(out, "the previous versions are in %s, which git ignores\n", filepath.Join(dir, filepath.FromSlash(mvn.BackupDir)))
}

// reaches names the modules a pom's profile reaches when it is not only
// the pom's own module.
func reaches(check mvn.ProfileCheck) string {
	if len(check.Modules) == 0 {
		return ""
	}
	own := string(filepath.Separator) + filepath.Join(check.Modules[0], "pom.xml")
	if len(check.Modules) == 1 && (check.Modules[0] == "." || strings.HasSuffix(check.Pom, own)) {
		return ""
	}
	return " (for modules " + strings.Join(check.Modules, ", ") + ")"
}

// writtenBy describes who wrote the profile found.
func writtenBy(check mvn.ProfileCheck) string {
	if check.WrittenBy == "" {
		return "it names no flaky.version"
	}
	return "written by flaky " + check.WrittenBy
}

// profileError adds the flag to use when the JUnit Platform version is unknown.
func profileError(err error) error {
	if errors.Is(err, mvn.ErrPlatformVersionUnknown) {
		return usageError("%v: pass --junit-platform-version (e.g. 1.14.4 for JUnit Jupiter 5.14.4, 6.0.1 for JUnit 6.0.1)", err)
	}
	return err
}
