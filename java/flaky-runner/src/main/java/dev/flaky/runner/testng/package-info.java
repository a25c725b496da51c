/**
 * The TestNG engine: lists TestNG test classes' methods and runs orders of them as TestNG suites, with the project's
 * TestNG (6.x or 7.x) from the test class path.
 */
package dev.flaky.runner.testng;
