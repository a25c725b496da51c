package dev.flaky.runner.testng;

import dev.flaky.runner.Failure;
import dev.flaky.runner.Outcome;
import org.testng.IClass;
import org.testng.IClassListener;
import org.testng.IConfigurationListener;
import org.testng.ITestClass;
import org.testng.ITestContext;
import org.testng.ITestListener;
import org.testng.ITestNGMethod;
import org.testng.ITestResult;

import java.util.List;

/**
 * Turns TestNG's notifications for one suite into events, block by block. Each invocation of a data-provider method
 * is a test of its own (see {@link Block#start}); another method's invocations ({@code invocationCount}) are one
 * test, which ends when another test starts or its class ends, with the first failure of its invocations. A failed {@code @BeforeClass},
 * {@code @BeforeMethod} or {@code @BeforeGroups} (or {@code @BeforeSuite}, {@code @BeforeTest}) makes the tests
 * TestNG then skips errors with that failure; a failed {@code @AfterMethod} fails its test; a failure of another
 * {@code @After...} method is a {@code class-error}.
 */
final class TestngListener implements ITestListener, IConfigurationListener, IClassListener {
    private final List<Block> blocks;
    /** A failure of a {@code @BeforeSuite} or {@code @BeforeTest}, which makes TestNG skip the tests after it. */
    private Failure suiteFailure;

    TestngListener(List<Block> blocks) {
        this.blocks = blocks;
    }

    private Block block(IClass c) {
        if (c == null || c.getXmlTest() == null) {
            return null;
        }
        String test = c.getXmlTest().getName();
        for (Block b : blocks) {
            if (b.testClass == c.getRealClass() && test.equals(b.testName)) {
                return b;
            }
        }
        return null;
    }

    @Override
    public synchronized void onBeforeClass(ITestClass c) {
        Block b = block(c);
        if (b != null) {
            b.begin();
        }
    }

    @Override
    public synchronized void onAfterClass(ITestClass c) {
        Block b = block(c);
        if (b != null) {
            b.end();
        }
    }

    /** The block of r's test, its test (or invocation) started; null for a test not requested. */
    private Block start(ITestResult r) {
        Block b = block(r.getTestClass());
        return b == null || b.start(r) == null ? null : b;
    }

    @Override
    public synchronized void onTestStart(ITestResult r) {
        start(r);
    }

    @Override
    public synchronized void onTestSuccess(ITestResult r) {
        start(r);
    }

    @Override
    public synchronized void onTestFailure(ITestResult r) {
        Block b = start(r);
        if (b != null) {
            Throwable t = r.getThrowable();
            b.tests.record(b.running, t == null ? Outcome.ERROR : Outcome.of(t),
                    t == null ? Failure.reason("TestNG reports a failure") : Failure.of(t, b.testClass));
        }
    }

    @Override
    public synchronized void onTestFailedButWithinSuccessPercentage(ITestResult r) {
        onTestFailure(r);
    }

    @Override
    public synchronized void onTestSkipped(ITestResult r) {
        Block b = start(r);
        if (b == null) {
            return;
        }
        Failure config = b.configFailure != null ? b.configFailure : suiteFailure;
        if (config != null) {
            b.tests.record(b.running, Outcome.ERROR, config);
        } else {
            Throwable t = r.getThrowable();
            b.tests.record(b.running, Outcome.SKIPPED, Failure.reason(t == null ? null : t.getMessage()));
        }
    }

    @Override
    public synchronized void onConfigurationFailure(ITestResult r) {
        ITestNGMethod m = r.getMethod();
        Block b = block(r.getTestClass());
        Class<?> c = r.getTestClass() == null ? null : r.getTestClass().getRealClass();
        Throwable t = r.getThrowable();
        Failure failure = t == null ? Failure.reason("TestNG reports a configuration failure") : Failure.of(t, c);
        if (m.isBeforeSuiteConfiguration() || m.isBeforeTestConfiguration()) {
            suiteFailure = failure;
        } else if (b != null && (m.isBeforeClassConfiguration() || m.isBeforeMethodConfiguration()
                || m.isBeforeGroupsConfiguration())) {
            b.configFailure = failure;
        } else if (b != null && m.isAfterMethodConfiguration() && b.running != null) {
            b.tests.record(b.running, Outcome.ERROR, failure);
        } else if (b != null) {
            b.begin();
            b.tests.fixtureFailure(b.entries, failure, false);
        } else if (c != null) {
            for (Block any : blocks) {
                if (any.testClass == c) {
                    any.tests.fixtureFailure(any.entries, failure, false);
                    return;
                }
            }
        }
    }

    @Override
    public void onConfigurationSuccess(ITestResult r) {
    }

    @Override
    public void onConfigurationSkip(ITestResult r) {
    }

    @Override
    public void onStart(ITestContext context) {
    }

    @Override
    public synchronized void onFinish(ITestContext context) {
        for (Block b : blocks) {
            if (context.getName().equals(b.testName)) {
                b.end();
            }
        }
    }

    /** Ends every block, reporting the requested tests TestNG did not run. */
    synchronized void finish() {
        for (Block b : blocks) {
            b.end();
        }
    }
}
