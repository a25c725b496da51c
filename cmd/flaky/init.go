package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/buildinfo"
	"github.com/flakyhq/flaky/mvn"
)

func initCommand() *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "add the flaky Maven profile to a project's root pom.xml (mvn -Pflaky verify then runs flaky)",
		ArgsUsage: "[DIR]",
		Description: "Adds the flaky profile to DIR/pom.xml (default: the current directory) and changes nothing else in the file;\n" +
			"a profile written by another flaky version is updated. The previous file is kept as pom.xml" + mvn.BackupSuffix + ".\n" +
			"Exit status: 0 done (or, with --check, the profile is current), 1 with --check: absent or stale, 2 error.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "check", Usage: "only check that the profile is present and what this flaky writes"},
			&cli.BoolFlag{Name: "remove", Usage: "take the flaky profile out of the pom again"},
			&cli.BoolFlag{Name: "force", Usage: "replace or remove a flaky profile that flaky did not write, and write a read-only pom"},
			&cli.StringFlag{Name: "junit-platform-version", Usage: "JUnit Platform version of the launcher the profile adds, when the poms on disk do not tell (e.g. 1.14.4 for Jupiter 5.14.4)"},
		},
		Action: runInit,
	}
}

func runInit(c *cli.Context) error {
	if c.NArg() > 1 {
		return usageError("init takes at most one directory, got %q", c.Args().Slice())
	}
	if c.Bool("check") && c.Bool("remove") {
		return usageError("--check and --remove exclude each other")
	}
	dir := "."
	if c.NArg() == 1 {
		dir = c.Args().First()
	}
	out := c.App.Writer
	if c.Bool("remove") {
		pom, backup, err := mvn.RemoveProfile(dir, c.Bool("force"))
		if err != nil {
			return err
		}
		if backup != "" {
			fmt.Fprintf(out, "removed the flaky profile from %s (previous version: %s)\n", pom, backup)
		} else {
			fmt.Fprintf(out, "%s has no flaky profile; nothing to remove\n", pom)
		}
		return nil
	}
	opts := mvn.ProfileOptions{Version: buildinfo.MavenVersion(), JUnitPlatformVersion: c.String("junit-platform-version"), Force: c.Bool("force")}
	if c.Bool("check") {
		check, err := mvn.CheckProfile(dir, opts)
		if err != nil {
			return profileError(err)
		}
		switch check.Status {
		case mvn.ProfileCurrent:
			fmt.Fprintf(out, "the flaky profile in %s is present and current\n", check.Pom)
			return nil
		case mvn.ProfileStale:
			return &exitStatus{code: 1, msg: fmt.Sprintf("the flaky profile in %s is present but stale (%s; flaky %s writes a different one): run flaky init to update it",
				check.Pom, writtenBy(check), opts.Version)}
		default:
			return &exitStatus{code: 1, msg: fmt.Sprintf("%s has no flaky profile: run flaky init to add it", check.Pom)}
		}
	}
	opts.Log = c.App.ErrWriter
	check, err := mvn.InitProfile(dir, opts)
	if err != nil {
		return profileError(err)
	}
	switch check.Status {
	case mvn.ProfileCurrent:
		fmt.Fprintf(out, "the flaky profile in %s is up to date\n", check.Pom)
	case mvn.ProfileStale:
		fmt.Fprintf(out, "updated the flaky profile in %s (%s; previous version: %s)\n", check.Pom, writtenBy(check), check.Backup)
	default:
		fmt.Fprintf(out, "added the flaky profile to %s (previous version: %s); run mvn -Pflaky verify\n", check.Pom, check.Backup)
	}
	return nil
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
