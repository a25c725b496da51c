/**
 * Runs JUnit 4 and JUnit 3 test classes with JUnit 4 itself, keeping a requested method order with a filter and
 * a sorter. Loaded only when JUnit 4 is on the class path.
 */
package dev.flaky.runner.junit4;
