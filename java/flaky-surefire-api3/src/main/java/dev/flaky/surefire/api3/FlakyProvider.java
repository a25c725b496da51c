package dev.flaky.surefire.api3;

import dev.flaky.runner.RunnerListener;
import dev.flaky.runner.TestRunner;
import dev.flaky.surefire.ForkRun;
import dev.flaky.surefire.Listing;
import dev.flaky.surefire.SuiteXml;
import dev.flaky.surefire.SurefireVersion;
import dev.flaky.surefire.TestClasses;
import org.apache.maven.surefire.api.provider.AbstractProvider;
import org.apache.maven.surefire.api.provider.CommandChainReader;
import org.apache.maven.surefire.api.provider.ProviderParameters;
import org.apache.maven.surefire.api.report.ConsoleOutputCapture;
import org.apache.maven.surefire.api.report.OutputReportEntry;
import org.apache.maven.surefire.api.report.ReporterException;
import org.apache.maven.surefire.api.report.ReporterFactory;
import org.apache.maven.surefire.api.suite.RunResult;
import org.apache.maven.surefire.api.testset.DirectoryScannerParameters;
import org.apache.maven.surefire.api.testset.TestListResolver;
import org.apache.maven.surefire.api.testset.TestSetFailedException;
import org.apache.maven.surefire.api.util.TestsToRun;

import java.io.File;
import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiPredicate;

/**
 * Surefire 3.x provider that runs the module's tests through the flaky runner, in the order {@code -Dflaky.order}
 * or {@code -Dflaky.shuffle} choose (else Surefire's classes in its order, methods in JUnit's), reports them like
 * Surefire's JUnit providers and writes the fork record for the flaky driver.
 */
public class FlakyProvider extends AbstractProvider {
    private final ProviderParameters parameters;
    private final CommandChainReader commands;

    /** Called by Surefire with the fork's parameters. */
    public FlakyProvider(ProviderParameters parameters) {
        this.parameters = parameters;
        // Like Surefire's providers: no command reader in the Maven process (getSuites, forkCount=0).
        this.commands = parameters.isInsideFork() ? parameters.getCommandReader() : null;
    }

    /** The test classes (those with tests), in Surefire's run order; Surefire calls this to spread them on forks. */
    @Override
    public Iterable<Class<?>> getSuites() {
        RunnerListener console = new RunnerListener() {
            @Override
            public void log(String level, String message) {
                // Runs in the Maven process, where 3.x gives providers no logger.
                System.err.println("[WARNING] flaky: " + message);
            }
        };
        return scan(new Listing(TestRunner.embedded(console)));
    }

    @Override
    public RunResult invoke(Object forkTestSet) throws TestSetFailedException, ReporterException {
        ReporterFactory factory = parameters.getReporterFactory();
        final RunResult result;
        try {
            SurefireReporter reporter = new SurefireReporter(factory.createTestReportListener());
            ForkRun<OutputReportEntry> run;
            try {
                run = new ForkRun<>(reporter, SurefireVersion.of(ProviderParameters.class), "3",
                        parameters.getTestClassLoader(), testClassesDirectory());
            } catch (IllegalArgumentException e) {
                throw new TestSetFailedException("flaky: " + e.getMessage(), e);
            }
            ConsoleOutputCapture.startCapture(run::output);
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

    private void execute(ForkRun<OutputReportEntry> run, Object forkTestSet)
            throws IOException, TestSetFailedException {
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
        DirectoryScannerParameters scanner = parameters.getDirectoryScannerParameters();
        return scanner == null || scanner.getTestClassesDirectory() == null
                ? null : scanner.getTestClassesDirectory().getAbsolutePath();
    }
}
