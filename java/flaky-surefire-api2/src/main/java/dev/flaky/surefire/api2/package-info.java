/**
 * The flaky provider for Surefire 2.x ({@code org.apache.maven.surefire.providerapi}, tested with 2.22.2), named in
 * {@code META-INF/services/org.apache.maven.surefire.providerapi.SurefireProvider}.
 */
package dev.flaky.surefire.api2;
