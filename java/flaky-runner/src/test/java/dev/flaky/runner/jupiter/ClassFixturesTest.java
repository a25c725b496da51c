package dev.flaky.runner.jupiter;

import org.junit.Test;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

public class ClassFixturesTest {
    static class Plain {
        @org.junit.jupiter.api.Test
        void t() {
        }
    }

    static class WithBeforeAll {
        @BeforeAll
        static void setUp() {
        }
    }

    static class InheritsBeforeAll extends WithBeforeAll {
    }

    interface AfterAllDefault {
        @AfterAll
        static void tearDown() {
        }
    }

    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    interface SharedInstance {
        @AfterAll
        default void tearDown() {
        }
    }

    static class ImplementsSharedInstance implements SharedInstance {
    }

    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    static class PerClass {
    }

    static final class ClassLevel implements BeforeAllCallback {
        @Override
        public void beforeAll(ExtensionContext context) {
        }
    }

    static final class MethodLevel implements BeforeEachCallback {
        @Override
        public void beforeEach(ExtensionContext context) {
        }
    }

    @Retention(RetentionPolicy.RUNTIME)
    @ExtendWith(ClassLevel.class)
    @interface UsesClassLevel {
    }

    @UsesClassLevel
    static class MetaAnnotated {
    }

    @ExtendWith(MethodLevel.class)
    static class MethodLevelOnly {
    }

    static class StaticRegistered {
        @RegisterExtension
        static final ClassLevel EXTENSION = new ClassLevel();
    }

    static class InstanceRegistered {
        @RegisterExtension
        final ClassLevel extension = new ClassLevel();
    }

    static class StaticMethodLevelRegistered {
        @RegisterExtension
        static final MethodLevel EXTENSION = new MethodLevel();
    }

    static class Outer {
        @BeforeAll
        static void setUp() {
        }

        @Nested
        class Inner {
        }
    }

    static class PlainOuter {
        @Nested
        class Inner {
        }
    }

    @Test
    public void findsClassFixtures() {
        ClassFixtures fixtures = new ClassFixtures();
        for (Class<?> c : new Class<?>[] {WithBeforeAll.class, InheritsBeforeAll.class, ImplementsSharedInstance.class,
                PerClass.class, MetaAnnotated.class, StaticRegistered.class, Outer.class, Outer.Inner.class}) {
            assertTrue(c.getSimpleName(), fixtures.of(c));
        }
        for (Class<?> c : new Class<?>[] {Plain.class, MethodLevelOnly.class, InstanceRegistered.class,
                StaticMethodLevelRegistered.class, PlainOuter.Inner.class}) {
            assertFalse(c.getSimpleName(), fixtures.of(c));
        }
    }
}
