package dev.flaky.surefire.api2;

import dev.flaky.runner.RunnerListener;
import dev.flaky.runner.TestRunner;
import dev.flaky.surefire.ForkRun;
import dev.flaky.surefire.Listing;
import dev.flaky.surefire.SuiteXml;
import dev.flaky.surefire.SurefireVersion;
import dev.flaky.surefire.TestClasses;
import org.apache.maven.surefire.booter.CommandReader;
import org.apache.maven.surefire.providerapi.AbstractProvider;
import org.apache.maven.surefire.providerapi.ProviderParameters;
import org.apache.maven.surefire.report.ConsoleOutputCapture;
import org.apache.maven.surefire.report.ReporterException;
import org.apache.maven.surefire.report.ReporterFactory;
import org.apache.maven.surefire.suite.RunResult;
import org.apache.maven.surefire.testset.DirectoryScannerParameters;
import org.apache.maven.surefire.testset.TestListResolver;
import org.apache.maven.surefire.testset.TestSetFailedException;
import org.apache.maven.surefire.util.TestsToRun;

import java.io.File;
import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiPredicate;

/**
 * Surefire 2.x provider that runs the module's tests through the flaky runner, in the order {@code -Dflaky.order}
 * or {@code -Dflaky.shuffle} choose (else Surefire's classes in its order, methods in JUnit's), reports them like
 * Surefire's JUnit providers and writes the fork record for the flaky driver.
 */
public class FlakyProvider extends AbstractProvider {
    private final ProviderParameters parameters;
    private final CommandReader commands;

    /** Called by Surefire with the fork's parameters. */
    public FlakyProvider(ProviderParameters parameters) {
        this.parameters = parameters;
        // Like Surefire's providers: no command reader thread in the Maven process (getSuites, forkCount=0).
        this.commands = parameters.isInsideFork() ? CommandReader.getReader().setShutdown(parameters.getShutdown())
                : null;
    }

    /** The test classes (those with tests), in Surefire's run order; Surefire calls this to spread them on forks. */
    @Override
    public Iterable<Class<?>> getSuites() {
        RunnerListener console = new RunnerListener() {
            @Override
            public void log(String level, String message) {
                parameters.getConsoleLogger().println("[WARNING] flaky: " + message);
            }
        };
        return scan(new Listing(TestRunner.embedded(console)));
    }

    @Override
    public RunResult invoke(Object forkTestSet) throws TestSetFailedException, ReporterException {
        ReporterFactory factory = parameters.getReporterFactory();
        final RunResult result;
        try {
            SurefireReporter reporter = new SurefireReporter(factory.createReporter(), parameters.getConsoleLogger());
            ForkRun<Chunk> run;
            try {
                run = new ForkRun<>(reporter, SurefireVersion.of(ProviderParameters.class), "2",
                        parameters.getTestClassLoader(), testClassesDirectory());
            } catch (IllegalArgumentException e) {
                throw new TestSetFailedException("flaky: " + e.getMessage(), e);
            }
            ConsoleOutputCapture.startCapture(
                    (buf, off, len, stdout) -> run.output(new Chunk(Arrays.copyOfRange(buf, off, off + len), stdout)));
            try {
                run.recording(() -> execute(run, forkTestSet));
            } catch (IOException e) {
                throw new TestSetFailedException("flaky: " + e, e);
            }
        } finally {
            // Also after a failure, so that Surefire gets the results reported so far.
            result = factory.close();
        }
        return result;
    }

    private void execute(ForkRun<Chunk> run, Object forkTestSet) throws IOException, TestSetFailedException {
        BiPredicate<String, String> methodFilter = methodFilter();
        if (commands != null) {
            commands.awaitStarted();
        }
        if (forkTestSet == null) {
            run.runAll(TestClasses.names(scan(run.listing())), methodFilter);
        } else if (forkTestSet instanceof Class) {
            run.runClass(((Class<?>) forkTestSet).getName(), methodFilter);
        } else if (forkTestSet instanceof TestsToRun) {
            TestsToRun tests = (TestsToRun) forkTestSet;
            boolean eager = tests.allowEagerReading();
            if (!eager && commands != null) {
                // Classes arrive one by one from Surefire, which spreads them over several forks.
                commands.addShutdownListener(command -> tests.markTestSetFinished());
            }
            run.runClasses(tests, eager, methodFilter);
        } else {
            throw new TestSetFailedException("flaky: unexpected test set from Surefire: " + forkTestSet);
        }
    }

    /**
     * Surefire's test classes (includes, excludes, -Dtest) that have tests, in its run order; with TestNG suite files
     * ({@code suiteXmlFiles}), the classes they name, in their order; the TestNG classes first in a module that mixes
     * TestNG and JUnit.
     */
    private TestsToRun scan(Listing listing) {
        List<File> suites = parameters.getTestRequest() == null
                ? null : parameters.getTestRequest().getSuiteXmlFiles();
        Iterable<Class<?>> scanned;
        if (suites != null && !suites.isEmpty()) {
            scanned = SuiteXml.load(suites, parameters.getTestClassLoader());
        } else {
            scanned = parameters.getScanResult().applyFilter(c -> true, parameters.getTestClassLoader());
        }
        Set<Class<?>> classes = TestClasses.withTests(listing, scanned);
        TestsToRun ordered = suites != null && !suites.isEmpty()
                ? new TestsToRun(classes) : parameters.getRunOrderCalculator().orderTestClasses(new TestsToRun(classes));
        // A module that mixes TestNG and JUnit runs as Surefire's TestNG provider runs it: the TestNG classes first.
        return new TestsToRun(new LinkedHashSet<>(listing.testngFirstClasses(ordered)));
    }

    /** Surefire's {@code -Dtest} method patterns, if any, as a (class, method) filter. */
    private BiPredicate<String, String> methodFilter() {
        TestListResolver resolver = parameters.getTestRequest() == null
                ? null : parameters.getTestRequest().getTestListResolver();
        if (resolver == null || !resolver.hasMethodPatterns()) {
            return TestClasses.ALL_METHODS;
        }
        return TestClasses.methodFilter(TestListResolver::toClassFileName, resolver::shouldRun);
    }

    private String testClassesDirectory() {
        @SuppressWarnings("deprecation")
        DirectoryScannerParameters scanner = parameters.getDirectoryScannerParameters();
        return scanner == null || scanner.getTestClassesDirectory() == null
                ? null : scanner.getTestClassesDirectory().getAbsolutePath();
    }
}
