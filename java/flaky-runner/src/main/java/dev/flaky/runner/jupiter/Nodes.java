package dev.flaky.runner.jupiter;

import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.UniqueId;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestIdentifier;

import java.util.List;
import java.util.Optional;

/** Reads what the runner needs from Jupiter test identifiers and unique ids. */
final class Nodes {
    /** Unique id segment type of a {@code @Test} method. */
    static final String METHOD = "method";
    /** Unique id segment type of a test template ({@code @ParameterizedTest}, {@code @RepeatedTest}). */
    static final String TEMPLATE = "test-template";
    /** Unique id segment type of a {@code @TestFactory}. */
    static final String FACTORY = "test-factory";

    private Nodes() {
    }

    /** The type of the last segment of a unique id, e.g. {@code method} or {@code test-template-invocation}. */
    static String type(TestIdentifier node) {
        return UniqueId.parse(node.getUniqueId()).getLastSegment().getType();
    }

    /** Reports whether {@code node} is a test method, test template or test factory: a listed test. */
    static boolean isMethodLevel(TestIdentifier node) {
        String type = type(node);
        return (METHOD.equals(type) || TEMPLATE.equals(type) || FACTORY.equals(type)) && methodSource(node) != null;
    }

    /** The node's method source, or null. */
    static MethodSource methodSource(TestIdentifier node) {
        Optional<TestSource> source = node.getSource();
        return source.isPresent() && source.get() instanceof MethodSource ? (MethodSource) source.get() : null;
    }

    /** The class of a class container, or null for other nodes. */
    static String className(TestIdentifier node) {
        Optional<TestSource> source = node.getSource();
        return source.isPresent() && source.get() instanceof ClassSource
                ? ((ClassSource) source.get()).getClassName() : null;
    }

    /** The test id {@code pkg.Class#method} of a method-level node. */
    static String methodId(TestIdentifier node) {
        MethodSource source = methodSource(node);
        return source.getClassName() + "#" + source.getMethodName();
    }

    /**
     * The suffix {@code [i]...} that identifies a dynamic descendant below a method-level node, from the
     * {@code #i} values of the unique id segments below that node.
     */
    static String invocationSuffix(UniqueId method, UniqueId descendant) {
        List<UniqueId.Segment> segments = descendant.getSegments();
        StringBuilder b = new StringBuilder();
        for (int i = method.getSegments().size(); i < segments.size(); i++) {
            String value = segments.get(i).getValue();
            b.append('[').append(value.startsWith("#") ? value.substring(1) : value).append(']');
        }
        return b.toString();
    }
}
