/**
 * The flaky provider for Surefire 3.x ({@code org.apache.maven.surefire.api}, stable from 3.0.0-M6 on), named in
 * {@code META-INF/services/org.apache.maven.surefire.api.provider.SurefireProvider}.
 */
package dev.flaky.surefire.api3;
