package dev.flaky.runner.jupiter;

import dev.flaky.runner.Classes;
import dev.flaky.runner.Engine;
import dev.flaky.runner.Events;
import dev.flaky.runner.Failure;
import dev.flaky.runner.ListedTest;
import dev.flaky.runner.OrderEntry;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.UniqueId;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.EngineFilter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link Engine} for Jupiter classes, through the JUnit Platform launcher restricted to the Jupiter engine (so a
 * vintage engine on the class path never runs JUnit 4 classes twice). Each segment of an order is one launcher
 * execution that selects the requested methods (or single invocations) by unique id.
 */
public final class JupiterEngine implements Engine {
    private static final String ENGINE_ID = "junit-jupiter";
    private static final String ORDER_PARAMETER = "junit.jupiter.testmethod.order.default";

    private final Launcher launcher = LauncherFactory.create();
    private final Map<String, Map<String, List<TestIdentifier>>> methodsByClass = new HashMap<>();

    @Override
    public boolean handles(Class<?> testClass) {
        return true;
    }

    @Override
    public List<ListedTest> list(List<Class<?>> classes, Events events) {
        List<DiscoverySelector> selectors = new ArrayList<>();
        for (Class<?> c : classes) {
            selectors.add(DiscoverySelectors.selectClass(c));
        }
        TestPlan plan = launcher.discover(request(selectors).build());
        List<ListedTest> tests = new ArrayList<>();
        ClassFixtures fixtures = new ClassFixtures();
        for (TestIdentifier root : plan.getRoots()) {
            for (TestIdentifier top : plan.getChildren(root)) {
                String listedClass = Nodes.className(top);
                collect(plan, top, listedClass != null ? listedClass : top.getDisplayName(), fixtures, events, tests);
            }
        }
        return tests;
    }

    private static void collect(TestPlan plan, TestIdentifier node, String listedClass, ClassFixtures fixtures,
                                Events events, List<ListedTest> out) {
        if (Nodes.isMethodLevel(node)) {
            String id = Nodes.methodId(node);
            int hash = id.indexOf('#');
            String className = id.substring(0, hash);
            out.add(new ListedTest(className, id.substring(hash + 1), "jupiter", listedClass,
                    hasClassFixtures(className, fixtures, events), !Nodes.METHOD.equals(Nodes.type(node))));
            return;
        }
        for (TestIdentifier child : plan.getChildren(node)) {
            collect(plan, child, listedClass, fixtures, events, out);
        }
    }

    /** Whether the class has class fixtures; true (unknown) when it cannot be inspected. */
    private static boolean hasClassFixtures(String className, ClassFixtures fixtures, Events events) {
        try {
            return fixtures.of(Classes.load(className));
        } catch (ClassNotFoundException | LinkageError | RuntimeException e) {
            events.log("warn", "cannot inspect the class fixtures of " + className + ": " + e);
            return true;
        }
    }

    @Override
    public void run(Class<?> c, List<OrderEntry> entries, Events events) {
        Map<String, List<TestIdentifier>> methods = methods(c);
        List<Requested> found = new ArrayList<>();
        for (OrderEntry e : entries) {
            Requested r = Requested.parse(e);
            if (r == null) {
                events.notFound(e, "invalid invocation suffix in " + e.id);
                continue;
            }
            List<TestIdentifier> nodes = methods.get(r.method);
            if (nodes == null) {
                events.notFound(e, "Jupiter finds no test " + r.method + " in " + c.getName());
            } else if (r.invocation != null && invocationIds(nodes.get(0), r.invocation).isEmpty()) {
                events.notFound(e, r.method + " in " + c.getName() + " has no invocation " + e.method);
            } else {
                found.add(r);
            }
        }
        for (List<Requested> segment : segments(found)) {
            execute(c, segment, methods, events);
        }
    }

    private void execute(Class<?> c, List<Requested> segment, Map<String, List<TestIdentifier>> methods,
                         Events events) {
        List<String> order = new ArrayList<>();
        List<DiscoverySelector> selectors = new ArrayList<>();
        for (Requested r : segment) {
            if (!order.contains(r.method)) {
                order.add(r.method);
            }
            for (TestIdentifier node : methods.get(r.method)) {
                if (r.invocation == null) {
                    selectors.add(DiscoverySelectors.selectUniqueId(node.getUniqueId()));
                } else {
                    for (UniqueId id : invocationIds(node, r.invocation)) {
                        selectors.add(DiscoverySelectors.selectUniqueId(id));
                    }
                }
            }
        }
        RequestedOrder.set(order);
        LauncherDiscoveryRequest request = request(selectors)
                .configurationParameter(ORDER_PARAMETER, RequestedOrder.class.getName())
                .build();
        JupiterListener listener = new JupiterListener(c, segment, events);
        events.classStart(c.getName());
        try {
            launcher.execute(request, listener);
        } catch (RuntimeException | LinkageError e) {
            listener.fixtureFailure(c.getName(), Failure.of(e, c), false);
        }
        listener.finish();
        events.upcoming(c, null);
        events.classEnd(c.getName());
    }

    /** The unique ids that select one invocation of a test template or factory; empty for plain methods. */
    private static List<UniqueId> invocationIds(TestIdentifier method, int[] path) {
        List<UniqueId> ids = new ArrayList<>();
        UniqueId id = UniqueId.parse(method.getUniqueId());
        String type = Nodes.type(method);
        if (Nodes.TEMPLATE.equals(type) && path.length == 1) {
            ids.add(id.append("test-template-invocation", "#" + path[0]));
        } else if (Nodes.FACTORY.equals(type)) {
            for (int i = 0; i < path.length - 1; i++) {
                id = id.append("dynamic-container", "#" + path[i]);
            }
            String last = "#" + path[path.length - 1];
            ids.add(id.append("dynamic-test", last));
            ids.add(id.append("dynamic-container", last));
        }
        return ids;
    }

    /**
     * Splits entries into segments one execution runs in the requested order: the orderer places whole methods,
     * so a method's entries must be consecutive, and several entries of one method must be single invocations in
     * increasing order (Jupiter runs invocations in index order).
     */
    static List<List<Requested>> segments(List<Requested> entries) {
        List<List<Requested>> segments = new ArrayList<>();
        List<Requested> current = new ArrayList<>();
        for (Requested r : entries) {
            if (!current.isEmpty() && !fits(current, r)) {
                segments.add(current);
                current = new ArrayList<>();
            }
            current.add(r);
        }
        if (!current.isEmpty()) {
            segments.add(current);
        }
        return segments;
    }

    private static boolean fits(List<Requested> segment, Requested next) {
        Requested last = segment.get(segment.size() - 1);
        boolean seen = false;
        for (Requested r : segment) {
            seen |= r.method.equals(next.method);
        }
        if (!seen) {
            return true;
        }
        return last.method.equals(next.method) && last.invocation != null && next.invocation != null
                && Requested.compare(last.invocation, next.invocation) < 0;
    }

    /** The method-level nodes of {@code c} by method name (overloads share a name), discovered once per class. */
    private Map<String, List<TestIdentifier>> methods(Class<?> c) {
        return methodsByClass.computeIfAbsent(c.getName(), name -> {
            List<DiscoverySelector> selectors = new ArrayList<>();
            selectors.add(DiscoverySelectors.selectClass(c));
            TestPlan plan = launcher.discover(request(selectors).build());
            Map<String, List<TestIdentifier>> methods = new LinkedHashMap<>();
            for (TestIdentifier root : plan.getRoots()) {
                collectMethods(plan, root, name, methods);
            }
            return methods;
        });
    }

    private static void collectMethods(TestPlan plan, TestIdentifier node, String className,
                                       Map<String, List<TestIdentifier>> out) {
        if (Nodes.isMethodLevel(node)) {
            if (Nodes.methodSource(node).getClassName().equals(className)) {
                out.computeIfAbsent(Nodes.methodSource(node).getMethodName(), k -> new ArrayList<>()).add(node);
            }
            return;
        }
        for (TestIdentifier child : plan.getChildren(node)) {
            collectMethods(plan, child, className, out);
        }
    }

    private static LauncherDiscoveryRequestBuilder request(List<DiscoverySelector> selectors) {
        return LauncherDiscoveryRequestBuilder.request()
                .selectors(selectors)
                .filters(EngineFilter.includeEngines(ENGINE_ID));
    }
}
