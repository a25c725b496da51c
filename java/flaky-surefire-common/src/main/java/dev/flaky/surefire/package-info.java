/**
 * The flaky Surefire provider's logic shared by both Surefire SPI generations: which order to run
 * ({@code -Dflaky.order}, {@code -Dflaky.shuffle} or Surefire's), running it through the embedded runner, reporting
 * the results to Surefire grouped by test class (through a {@link dev.flaky.surefire.Reporter} that each generation
 * implements), and the fork record ({@code flaky/fork.json}) that the flaky driver replays.
 */
package dev.flaky.surefire;
