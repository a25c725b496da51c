package dev.flaky.runner;

/**
 * The engines whose framework (JUnit 4, JUnit 3, the JUnit Platform, TestNG) is on the class path. Engine classes are loaded reflectively, only after their JUnit
 * is found, so a class path without JUnit 4 or without the JUnit Platform never loads code that needs it.
 */
final class Engines {
    /** JUnit 4 (which also runs JUnit 3 classes), or without JUnit 4 the JUnit 3 engine, or null. */
    final Engine junit;
    /** Jupiter through the JUnit Platform launcher, or null. */
    final Engine jupiter;
    /** TestNG, or null. */
    final Engine testng;

    private Engines(Engine junit, Engine jupiter, Engine testng) {
        this.junit = junit;
        this.jupiter = jupiter;
        this.testng = testng;
    }

    /** Finds the engines whose JUnit is present; an engine that fails to start is logged and left out. */
    static Engines load(Events events) {
        Engine junit = null;
        if (Classes.present("org.junit.runner.Request", "org.junit.runner.notification.RunListener")) {
            junit = create("dev.flaky.runner.junit4.Junit4Engine", events);
        } else if (Classes.present("junit.framework.TestCase", "junit.framework.TestListener")) {
            // JUnit 3 alone, which Surefire runs with its JUnit 3 provider.
            junit = create("dev.flaky.runner.junit3.Junit3Engine", events);
        }
        Engine jupiter = null;
        if (Classes.present("org.junit.platform.launcher.core.LauncherFactory",
                "org.junit.platform.engine.UniqueId", "org.junit.platform.commons.JUnitException",
                "org.junit.jupiter.engine.JupiterTestEngine", "org.junit.jupiter.api.MethodOrderer")) {
            jupiter = create("dev.flaky.runner.jupiter.JupiterEngine", events);
        }
        Engine testng = null;
        if (Classes.present("org.testng.TestNG", "org.testng.annotations.Test", "org.testng.xml.XmlSuite")) {
            testng = create("dev.flaky.runner.testng.TestngEngine", events);
        }
        return new Engines(junit, jupiter, testng);
    }

    /**
     * Returns the engine that runs {@code testClass}: JUnit 4 or 3 for JUnit 4/3 classes, TestNG for classes with
     * TestNG tests, Jupiter otherwise.
     */
    Engine forClass(Class<?> testClass) {
        if (junit != null && junit.handles(testClass)) {
            return junit;
        }
        if (testng != null && testng.handles(testClass)) {
            return testng;
        }
        if (jupiter != null && jupiter.handles(testClass)) {
            return jupiter;
        }
        return null;
    }

    private static Engine create(String className, Events events) {
        try {
            return (Engine) Class.forName(className).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
            events.log("warn", "cannot start " + className + ": " + e);
            return null;
        }
    }
}
