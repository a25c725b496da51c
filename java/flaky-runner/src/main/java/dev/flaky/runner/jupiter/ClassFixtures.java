package dev.flaky.runner.jupiter;

import dev.flaky.runner.Classes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * Tells whether a Jupiter class has class-level fixtures: {@code @BeforeAll}/{@code @AfterAll} methods (inherited,
 * interface defaults), a per-class test instance (its state is shared by the methods), class-level extensions with
 * {@code BeforeAllCallback}/{@code AfterAllCallback} ({@code @ExtendWith} on the class, its supertypes or
 * meta-annotations, and static {@code @RegisterExtension} fields that are or may be such extensions). A
 * {@code @Nested} class has its enclosing classes' fixtures too. Nothing is initialised: only declarations are read.
 */
final class ClassFixtures {
    private static final String LIFECYCLE_PARAMETER = "junit.jupiter.testinstance.lifecycle.default";
    private static final String PLATFORM_PROPERTIES = "junit-platform.properties";

    private final boolean perClassByDefault = perClassByDefault();
    private final Map<Class<?>, Boolean> known = new HashMap<>();

    /** Reports whether {@code c} (or, for an inner class, an enclosing class) has class fixtures. */
    boolean of(Class<?> c) {
        return known.computeIfAbsent(c, k -> {
            for (Class<?> n = k; n != null; n = isInner(n) ? n.getEnclosingClass() : null) {
                if (own(n)) {
                    return true;
                }
            }
            return false;
        });
    }

    private boolean own(Class<?> c) {
        if (!AnnotationSupport.findAnnotatedMethods(c, BeforeAll.class, HierarchyTraversalMode.TOP_DOWN).isEmpty()
                || !AnnotationSupport.findAnnotatedMethods(c, AfterAll.class, HierarchyTraversalMode.TOP_DOWN)
                .isEmpty()) {
            return true;
        }
        Optional<TestInstance> lifecycle = AnnotationSupport.findAnnotation(c, TestInstance.class);
        if (lifecycle.isPresent() ? lifecycle.get().value() == TestInstance.Lifecycle.PER_CLASS : perClassByDefault) {
            return true;
        }
        for (ExtendWith extendWith : AnnotationSupport.findRepeatableAnnotations(c, ExtendWith.class)) {
            for (Class<? extends Extension> extension : extendWith.value()) {
                if (classLevel(extension)) {
                    return true;
                }
            }
        }
        for (Field f : AnnotationSupport.findAnnotatedFields(c, RegisterExtension.class,
                f -> Modifier.isStatic(f.getModifiers()), HierarchyTraversalMode.TOP_DOWN)) {
            // The value would need the class initialised; a type that may hold such an extension counts.
            if (classLevel(f.getType()) || !Modifier.isFinal(f.getType().getModifiers())) {
                return true;
            }
        }
        return false;
    }

    private static boolean classLevel(Class<?> extension) {
        return BeforeAllCallback.class.isAssignableFrom(extension) || AfterAllCallback.class.isAssignableFrom(extension);
    }

    private static boolean isInner(Class<?> c) {
        return c.isMemberClass() && !Modifier.isStatic(c.getModifiers());
    }

    /** The default lifecycle from the system property or {@code junit-platform.properties}, as Jupiter reads it. */
    private static boolean perClassByDefault() {
        String value = System.getProperty(LIFECYCLE_PARAMETER);
        if (value == null) {
            try (InputStream in = Classes.loader().getResourceAsStream(PLATFORM_PROPERTIES)) {
                if (in != null) {
                    Properties p = new Properties();
                    p.load(in);
                    value = p.getProperty(LIFECYCLE_PARAMETER);
                }
            } catch (IOException e) {
                value = null;
            }
        }
        return value != null && TestInstance.Lifecycle.PER_CLASS.name().equalsIgnoreCase(value.trim());
    }
}
