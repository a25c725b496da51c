package dev.flaky.runner.junit3;

import junit.extensions.TestDecorator;
import junit.framework.Test;
import junit.framework.TestCase;
import junit.framework.TestSuite;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * A JUnit 3 test tree as {@code suite()} methods build it: {@code TestSuite}s, decorators such as
 * {@code TestSetup} around them, and leaves ({@code TestCase}s, {@link LazyTest}s). Other kinds of
 * {@code Test} are opaque: they have no leaves flaky can name.
 */
final class Tree {
    private Tree() {
    }

    /** The test id of a leaf, or null for a node that is not one. */
    static String id(Test t) {
        String method = method(t);
        return method == null ? null : testClass(t).getName() + "#" + method;
    }

    /** The class of a leaf's test. */
    static Class<?> testClass(Test leaf) {
        return leaf instanceof LazyTest ? ((LazyTest) leaf).testClass() : leaf.getClass();
    }

    /** The test method of a leaf, or null for a node that is not one. */
    static String method(Test t) {
        if (t instanceof LazyTest) {
            return ((LazyTest) t).method();
        }
        return t instanceof TestCase ? ((TestCase) t).getName() : null;
    }

    /** The leaves under {@code t} in the order they run. */
    static List<Test> leaves(Test t) {
        List<Test> leaves = new ArrayList<>();
        collect(t, leaves);
        return leaves;
    }

    private static void collect(Test t, List<Test> leaves) {
        if (id(t) != null) {
            leaves.add(t);
        }
        for (Test child : children(t)) {
            collect(child, leaves);
        }
    }

    /** The children of a suite or decorator; none for a leaf or an opaque test. */
    private static List<Test> children(Test t) {
        List<Test> children = new ArrayList<>();
        if (t instanceof TestSuite) {
            TestSuite suite = (TestSuite) t;
            for (int i = 0; i < suite.testCount(); i++) {
                children.add(suite.testAt(i));
            }
        } else if (t instanceof TestDecorator) {
            children.add(((TestDecorator) t).getTest());
        }
        return children;
    }

    /**
     * The ids of the requested leaves under {@code t} in the order {@link #prune} makes them run: the children of
     * each suite sorted by the first position any of their leaves has in {@code position}; a decorator keeps its
     * place around what it decorates.
     */
    static List<String> predict(Test t, Map<String, Integer> position) {
        List<String> out = new ArrayList<>();
        String id = id(t);
        if (id != null) {
            if (position.containsKey(id)) {
                out.add(id);
            }
            return out;
        }
        for (Test child : sorted(children(t), position)) {
            out.addAll(predict(child, position));
        }
        return out;
    }

    /**
     * Cuts {@code t} down to the leaves in {@code position}, in {@link #predict}'s order: suites are rebuilt, and
     * decorators (whose fixtures run around the leaves they keep) are changed in place to decorate what remains of
     * their test. Returns null when nothing requested is under {@code t}.
     */
    static Test prune(Test t, Map<String, Integer> position) {
        String id = id(t);
        if (id != null) {
            return position.containsKey(id) ? t : null;
        }
        if (t instanceof TestSuite) {
            TestSuite rebuilt = new TestSuite(((TestSuite) t).getName());
            for (Test child : sorted(children(t), position)) {
                Test kept = prune(child, position);
                if (kept != null) {
                    rebuilt.addTest(kept);
                }
            }
            return rebuilt.testCount() == 0 ? null : rebuilt;
        }
        if (t instanceof TestDecorator) {
            Test inner = prune(((TestDecorator) t).getTest(), position);
            if (inner == null) {
                return null;
            }
            setDecorated((TestDecorator) t, inner);
            return t;
        }
        return null;
    }

    /** Replaces what a decorator runs; JUnit 3 has no API for it, so its {@code fTest} field is set. */
    private static void setDecorated(TestDecorator decorator, Test inner) {
        try {
            Field f = TestDecorator.class.getDeclaredField("fTest");
            f.setAccessible(true);
            f.set(decorator, inner);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot narrow JUnit 3 decorator " + decorator, e);
        }
    }

    private static List<Test> sorted(List<Test> children, Map<String, Integer> position) {
        List<Test> kept = new ArrayList<>();
        for (Test child : children) {
            if (first(child, position) != Integer.MAX_VALUE) {
                kept.add(child);
            }
        }
        // Stable: children whose first requested leaf is the same keep their order.
        Collections.sort(kept, Comparator.comparingInt(child -> first(child, position)));
        return kept;
    }

    private static int first(Test t, Map<String, Integer> position) {
        int first = Integer.MAX_VALUE;
        for (Test leaf : leaves(t)) {
            first = Math.min(first, position.getOrDefault(id(leaf), Integer.MAX_VALUE));
        }
        return first;
    }
}
