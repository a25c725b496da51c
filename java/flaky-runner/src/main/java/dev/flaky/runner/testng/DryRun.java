package dev.flaky.runner.testng;

import dev.flaky.runner.Events;
import org.testng.ITestContext;
import org.testng.ITestListener;
import org.testng.ITestNGListener;
import org.testng.ITestResult;
import org.testng.TestNG;
import org.testng.xml.XmlClass;
import org.testng.xml.XmlSuite;
import org.testng.xml.XmlTest;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Lists the invocations of data-provider methods with a TestNG dry run ({@code -Dtestng.mode.dryrun=true}): TestNG
 * calls the data providers and reports every invocation with its parameters, without calling the test methods.
 */
final class DryRun implements ITestListener {
    private static final String PROPERTY = "testng.mode.dryrun";

    /** Per test id {@code C#m}, the members of its invocations in order ({@code m[params](n)}). */
    private final Map<String, List<String>> invocations = new LinkedHashMap<>();
    /** The methods with an invocation without parameters (a data provider that failed): listed once. */
    private final Set<String> broken = new HashSet<>();
    private final Set<ITestResult> seen = Collections.newSetFromMap(new IdentityHashMap<>());

    private DryRun() {
    }

    /**
     * The invocations of the data-provider methods of {@code classes}, per test id {@code C#m}, as members
     * {@code m[params](n)} in the data provider's order. A method whose data provider fails, or that TestNG does not
     * report, is not in the answer (it is listed as one test). Runs in this JVM: the data providers' code runs.
     */
    static Map<String, List<String>> invocations(List<Class<?>> classes, Events events) {
        DryRun listener = new DryRun();
        XmlSuite suite = new XmlSuite();
        suite.setName("flaky-list");
        suite.setDataProviderThreadCount(1);
        XmlTest test = new XmlTest(suite);
        test.setName("flaky-list");
        test.setPreserveOrder(true);
        List<XmlClass> xmlClasses = new ArrayList<>();
        for (Class<?> c : classes) {
            XmlClass xc = new XmlClass(c.getName(), xmlClasses.size(), false);
            xc.setClass(c);
            xmlClasses.add(xc);
        }
        test.setXmlClasses(xmlClasses);
        TestNG testng = new TestNG(false);
        testng.setUseDefaultListeners(false);
        testng.setVerbose(0);
        testng.setXmlSuites(Collections.singletonList(suite));
        testng.addListener((ITestNGListener) listener);
        String before = System.getProperty(PROPERTY);
        System.setProperty(PROPERTY, "true");
        try {
            testng.run();
        } catch (RuntimeException | LinkageError e) {
            events.log("warn", "cannot list the invocations of TestNG data providers (a dry run failed), "
                    + "each data-provider test is listed once: " + e);
        } finally {
            if (before == null) {
                System.clearProperty(PROPERTY);
            } else {
                System.setProperty(PROPERTY, before);
            }
        }
        return listener.result();
    }

    private synchronized Map<String, List<String>> result() {
        Map<String, List<String>> out = new LinkedHashMap<>(invocations);
        out.keySet().removeAll(broken);
        return out;
    }

    private synchronized void ended(ITestResult r) {
        if (!seen.add(r)) {
            return;
        }
        String method = r.getMethod().getMethodName();
        String id = r.getTestClass().getRealClass().getName() + "#" + method;
        Object[] parameters = r.getParameters();
        if (parameters == null || parameters.length == 0) {
            broken.add(id);
            return;
        }
        List<String> members = invocations.computeIfAbsent(id, k -> new ArrayList<>());
        members.add(Invocation.member(method, parameters, members.size() + 1));
    }

    @Override
    public void onTestStart(ITestResult r) {
    }

    @Override
    public void onTestSuccess(ITestResult r) {
        ended(r);
    }

    @Override
    public void onTestFailure(ITestResult r) {
        ended(r);
    }

    @Override
    public void onTestSkipped(ITestResult r) {
        ended(r);
    }

    @Override
    public void onTestFailedButWithinSuccessPercentage(ITestResult r) {
        ended(r);
    }

    @Override
    public void onStart(ITestContext context) {
    }

    @Override
    public void onFinish(ITestContext context) {
    }
}
