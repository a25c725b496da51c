// Package docs holds flaky's documentation pages (the README is for users,
// these pages are the reference). It has no code: its tests check that every
// relative link and anchor of README.md, SECURITY.md and docs/*.md resolves,
// and that every flaky command the pages show exists in `flaky --help`.
package docs
