package dev.flaky.runner.junit4;

import dev.flaky.runner.OrderEntry;
import org.junit.runner.Description;
import org.junit.runner.Request;
import org.junit.runner.Runner;
import org.junit.runners.BlockJUnit4ClassRunner;
import org.junit.runners.ParentRunner;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs requested methods of a class whose runner is a {@code BlockJUnit4ClassRunner} (or a subclass, such as jMock's
 * runner) in exactly the requested order, repeats included, in one class-fixture scope: the runner's own
 * {@code run} (so {@code @BeforeClass}, {@code @ClassRule}s and {@code @AfterClass} run once around them) over a
 * children list made of the requested methods. JUnit 4 has no public way to repeat a child, so the list replaces
 * the runner's filtered children (a private field of {@code ParentRunner} in every JUnit 4 version).
 */
final class OrderedChildren {
    private static final Method GET_CHILDREN = method("getChildren");
    private static final Method DESCRIBE_CHILD = method("describeChild", Object.class);
    private static final Field CHILDREN = childrenField();

    private OrderedChildren() {
    }

    /**
     * Returns JUnit 4's runner for {@code c} set up to run {@code scope}'s methods in order, or null when the class's
     * runner is not a {@code BlockJUnit4ClassRunner} whose children are single tests that include every entry.
     */
    static Runner runner(Class<?> c, List<OrderEntry> scope) {
        if (GET_CHILDREN == null || DESCRIBE_CHILD == null || CHILDREN == null) {
            return null;
        }
        Runner runner = Request.aClass(c).getRunner();
        if (!(runner instanceof BlockJUnit4ClassRunner)) {
            return null;
        }
        try {
            Map<String, Object> byId = new HashMap<>();
            for (Object child : (List<?>) GET_CHILDREN.invoke(runner)) {
                Description d = (Description) DESCRIBE_CHILD.invoke(runner, child);
                if (!d.isTest() || d.getMethodName() == null) {
                    return null;
                }
                byId.putIfAbsent(Junit4Listener.id(d), child);
            }
            List<Object> ordered = new ArrayList<>();
            for (OrderEntry e : scope) {
                Object child = byId.get(e.id);
                if (child == null) {
                    return null;
                }
                ordered.add(child);
            }
            CHILDREN.set(runner, Collections.unmodifiableList(ordered));
            return runner;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static Method method(String name, Class<?>... parameters) {
        try {
            Method m = ParentRunner.class.getDeclaredMethod(name, parameters);
            m.setAccessible(true);
            return m;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** {@code ParentRunner}'s one instance field holding the children to run (the filtered children). */
    private static Field childrenField() {
        try {
            for (Field f : ParentRunner.class.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers()) && Collection.class.isAssignableFrom(f.getType())) {
                    f.setAccessible(true);
                    return f;
                }
            }
        } catch (RuntimeException e) {
            return null;
        }
        return null;
    }
}
