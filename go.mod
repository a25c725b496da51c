module github.com/flakyhq/flaky

go 1.24.0

require (
	github.com/aymanbagabas/go-udiff v0.4.1
	github.com/google/renameio/v2 v2.0.0
	github.com/joshdk/go-junit v1.0.0
	github.com/kballard/go-shellquote v0.0.0-20180428030007-95032a82bc51
	github.com/otiai10/copy v1.14.1
	github.com/sashabaranov/go-openai v1.43.0
	github.com/urfave/cli/v2 v2.27.7
	github.com/vifraa/gopom v1.0.0
	golang.org/x/sync v0.18.0
	golang.org/x/sys v0.38.0
)

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.7 // indirect
	github.com/otiai10/mint v1.6.3 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
)
