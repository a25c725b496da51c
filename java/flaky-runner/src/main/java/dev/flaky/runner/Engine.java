package dev.flaky.runner;

import java.util.List;

/** A way to list and run test classes: JUnit 4 or 3 directly, Jupiter through the JUnit Platform launcher, or TestNG. */
public interface Engine {
    /** Reports whether this engine runs {@code testClass}. */
    boolean handles(Class<?> testClass);

    /** Lists the tests of {@code testClasses} in the engine's default order; classes without tests add none. */
    List<ListedTest> list(List<Class<?>> testClasses, Events events);

    /**
     * Runs {@code entries}, consecutive order entries naming methods of {@code testClass}, in that order with
     * class fixtures run once (more often only where the engine cannot keep the order in one execution), and
     * reports a {@code test-end} for every entry.
     */
    void run(Class<?> testClass, List<OrderEntry> entries, Events events);

    /**
     * Runs consecutive runs of an order that this engine handles, {@code runs.get(i)} naming methods of
     * {@code classes.get(i)}: by default each with {@link #run}, after {@link Events#beginRun} (where the runner
     * stops when the driver handed the rest of the order to another JVM); an engine whose framework has fixtures
     * wider than a class (TestNG's {@code @BeforeSuite}) runs them in one execution.
     */
    default void runAll(List<Class<?>> classes, List<List<OrderEntry>> runs, Events events) {
        for (int i = 0; i < runs.size(); i++) {
            events.beginRun(runs.get(i));
            run(classes.get(i), runs.get(i), events);
        }
    }
}
