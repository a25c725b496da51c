package dev.flaky.runner;

/** One entry of a {@code tests} event. */
public final class ListedTest {
    /** The test id, {@code pkg.Class#method}. */
    public final String id;
    /** The class that declares the test, e.g. {@code pkg.Outer$Inner} for a nested Jupiter class. */
    public final String className;
    /** The method name (for JUnit 4 {@code Parameterized}, the name JUnit gives, e.g. {@code test[0]}). */
    public final String method;
    /** {@code junit4}, {@code junit3} or {@code jupiter}. */
    public final String engine;
    /** The class of the test-classes directory the test was found through, which decides its place in the list. */
    public final String listedClass;
    /**
     * Whether the test's class has class-level fixtures ({@code @BeforeClass}, {@code @ClassRule}, {@code @BeforeAll},
     * a JUnit 3 {@code suite()}, a per-class test instance, ...), or a runner whose class-level behaviour is unknown.
     */
    public final boolean classFixtures;
    /**
     * Whether the test is a Jupiter test template ({@code @ParameterizedTest}, {@code @RepeatedTest}) or test
     * factory: its invocations ({@code id[1]}, {@code id[2]}, ...), each a test of its own for Surefire, are only
     * known when it runs.
     */
    public final boolean dynamic;

    /**
     * Creates an entry for test {@code className#method} run by {@code engine}; {@code listedClass} is the class
     * of the test-classes directory it was found through, which decides its place in the list; {@code classFixtures}
     * tells whether the test's class has class-level fixtures.
     */
    public ListedTest(String className, String method, String engine, String listedClass, boolean classFixtures) {
        this(className, method, engine, listedClass, classFixtures, false);
    }

    /** Like the other constructor; {@code dynamic} tells whether the test is a test template or factory. */
    public ListedTest(String className, String method, String engine, String listedClass, boolean classFixtures,
                      boolean dynamic) {
        this.dynamic = dynamic;
        this.id = className + "#" + method;
        this.className = className;
        this.method = method;
        this.engine = engine;
        this.listedClass = listedClass;
        this.classFixtures = classFixtures;
    }
}
