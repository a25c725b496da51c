package dev.flaky.runner;

import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Prints stack traces the way Surefire's trimStackTrace does in spirit: each throwable's frames end at the
 * deepest frame of the test class (or its non-framework superclasses, or a class nested in or enclosing one of them), cutting the reflection and JUnit
 * (or TestNG) frames below the test method. Traces without such a frame lose only their trailing framework frames.
 */
final class StackTraces {
    private static final int MAX_LENGTH = 64 * 1024;
    private static final String[] FRAMEWORK = {
        "org.junit.", "junit.", "org.testng.", "sun.reflect.", "java.lang.reflect.", "jdk.internal.reflect.", "java.lang.invoke.",
        "java.util.", "java.lang.Thread", "org.apache.maven.surefire.", "dev.flaky.runner.",
    };

    private StackTraces() {
    }

    /** Returns the trimmed trace of {@code t} including suppressed throwables and causes. */
    static String trim(Throwable t, Class<?> testClass) {
        Set<String> classes = new HashSet<>();
        classes.add(topLevel(testClass.getName()));
        for (Class<?> c = testClass.getSuperclass(); c != null && c != Object.class; c = c.getSuperclass()) {
            if (!isFramework(c.getName())) {
                classes.add(topLevel(c.getName()));
            }
        }
        StringBuilder b = new StringBuilder();
        append(b, t, "", "", classes, Collections.newSetFromMap(new IdentityHashMap<>()));
        if (b.length() > MAX_LENGTH) {
            b.setLength(MAX_LENGTH);
            b.append("\n\t... (trace cut at ").append(MAX_LENGTH).append(" characters)\n");
        }
        return b.toString();
    }

    private static void append(StringBuilder b, Throwable t, String indent, String caption, Set<String> classes,
                               Set<Throwable> seen) {
        if (!seen.add(t)) {
            b.append(indent).append(caption).append("[CIRCULAR REFERENCE: ").append(t).append("]\n");
            return;
        }
        if (b.length() > MAX_LENGTH) {
            return;
        }
        b.append(indent).append(caption).append(t).append('\n');
        StackTraceElement[] frames = t.getStackTrace();
        int keep = keep(frames, classes);
        for (int i = 0; i < keep; i++) {
            b.append(indent).append("\tat ").append(frames[i]).append('\n');
        }
        for (Throwable suppressed : t.getSuppressed()) {
            append(b, suppressed, indent + "\t", "Suppressed: ", classes, seen);
        }
        if (t.getCause() != null) {
            append(b, t.getCause(), indent, "Caused by: ", classes, seen);
        }
    }

    /** Returns how many leading frames to keep. */
    private static int keep(StackTraceElement[] frames, Set<String> classes) {
        for (int i = frames.length - 1; i >= 0; i--) {
            if (inTestClass(frames[i].getClassName(), classes)) {
                return i + 1;
            }
        }
        int end = frames.length;
        while (end > 0 && isFramework(frames[end - 1].getClassName())) {
            end--;
        }
        return end == 0 ? frames.length : end;
    }

    private static boolean inTestClass(String frameClass, Set<String> classes) {
        return classes.contains(topLevel(frameClass));
    }

    /** Maps nested, inner and anonymous classes to their top-level class. */
    private static String topLevel(String className) {
        int dollar = className.indexOf('$');
        return dollar > 0 ? className.substring(0, dollar) : className;
    }

    private static boolean isFramework(String frameClass) {
        for (String prefix : FRAMEWORK) {
            if (frameClass.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }
}
