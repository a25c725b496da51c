package dev.flaky.runner.junit4;

import org.junit.internal.builders.AllDefaultPossibilitiesBuilder;
import org.junit.internal.builders.IgnoredBuilder;
import org.junit.runner.Runner;

/**
 * JUnit 4's default runner builder without the step that turns an {@code @Ignore}d class into a runner with no
 * children, so the class's tests can be listed and found (running still uses the default builder).
 */
final class NoIgnoreBuilder extends AllDefaultPossibilitiesBuilder {
    @SuppressWarnings("deprecation") // The boolean constructor is the one JUnit 4.12 has too.
    NoIgnoreBuilder() {
        super(true);
    }

    @Override
    protected IgnoredBuilder ignoredBuilder() {
        return new IgnoredBuilder() {
            @Override
            public Runner runnerForClass(Class<?> testClass) {
                return null;
            }
        };
    }
}
