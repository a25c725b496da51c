// Package chaos finds tests that rely on what nondeterministic JDK APIs never
// promised: it runs a module's suite with the flaky agent perturbing those
// APIs (ChaosAPI's strategies plus iteration-order shuffling), confirms every
// failure by rerunning the same order unperturbed, attributes failures of
// combined runs to the single strategy that reproduces them, and names the
// perturbed call sites each failing test hit.
//
// Run (chaos.go) chains its stages within the budget, each in its own
// files:
//
//   - Exploration runs the suite perturbed and unperturbed, and gives the
//     tests that failed perturbed but passed unperturbed: once per strategy
//     in single mode (explore.go, which also sets the baseline and counts
//     each run's coverage), or once with the whole set in combined mode
//     (combined.go's combined). Failures that are not the test's own are
//     left out: those of flaky's machinery (machinery.go) and those the
//     perturbation excuses, such as a framework timeout (dismiss.go). The
//     unperturbed control runs (control.go) rerun each failing test; one
//     that fails there too is NOD, not a finding.
//   - Attribution (combined.go, with early.go) reruns each failing test of
//     a combined run with single strategies, its suspects (the strategies
//     whose call sites it hit, sites.go) first and in ever wider scopes,
//     until one reproduces the failure; early.go starts the control runs
//     and attribution's first round while the combined run still goes on.
//   - Confirmation (confirm.go, with clearly.go) reruns each finding's test
//     alone with its strategy, to shorten its reproduce order, then gives
//     each finding and suspect control runs like its reproduce order
//     (control.go's likeForLike: that order unperturbed, in JVMs of its
//     own), then reruns its reproduce order until its strategies make it
//     fail clearly more often than unperturbed runs do (clearly.go), and
//     TIME and SLEEP findings with a milder parameter; it sets aside what it
//     cannot show. A finding none of whose failing runs perturbed a call of
//     its strategies during the test is none (evidence.go); then the
//     findings are counted.
//   - Bisection (bisect.go): each confirmed ITERATION_ORDER finding whose
//     test hit several call sites reruns with only some of them shuffled,
//     as NonDex's debug mode does, until it names the sites whose
//     shuffling alone fails the test; only those are reported, marked.
//   - ITERATION_ORDER's passes (seeds.go): in combined mode beside other
//     strategies (as in the default set) it is no part of the combined run
//     but runs alone over the suite in a pass of its own (ownPass), and,
//     whenever it is among the strategies, under each next seed
//     (Config.Seeds); the passes' runs of the suite go to workers the
//     combined run leaves free (early.go), and each run is judged by a
//     single-mode analysis with the first one's unperturbed runs; its
//     findings of tests not found yet keep their seed.
//   - Reporting (report.go) turns the Result into report findings, their
//     order files and reproduce commands, and the run's statistics.
//
// Every stage runs its jobs through run.go, which starts each in a JVM of
// its own on the free workers, the longest first and within the budget,
// and takes jobs added while it goes on (feed); spread.go splits a long
// perturbed run over JVMs that the free workers start. strategy.go holds
// the strategy table, options.go the agent options of a set of strategies,
// and timeouts.go the per-test timeouts of perturbed runs.
package chaos
