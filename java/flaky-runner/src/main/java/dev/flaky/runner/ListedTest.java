package dev.flaky.runner;

/** One entry of a {@code tests} event. */
public final class ListedTest {
    final String id;
    final String className;
    final String method;
    final String engine;
    final String listedClass;

    /**
     * Creates an entry for test {@code className#method} run by {@code engine}; {@code listedClass} is the class
     * of the test-classes directory it was found through, which decides its place in the list.
     */
    public ListedTest(String className, String method, String engine, String listedClass) {
        this.id = className + "#" + method;
        this.className = className;
        this.method = method;
        this.engine = engine;
        this.listedClass = listedClass;
    }
}
