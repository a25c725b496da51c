package dev.flaky.runner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Finds the test class names in a test-classes directory that Surefire's includes and excludes select. */
final class ClassScanner {
    /** Surefire's default includes. */
    static final List<String> DEFAULT_INCLUDES = Collections.unmodifiableList(Arrays.asList(
            "**/Test*.java", "**/*Test.java", "**/*Tests.java", "**/*TestCase.java"));
    /** Surefire's default excludes (used when no exclude is given). */
    static final List<String> DEFAULT_EXCLUDES = Collections.singletonList("**/*$*");

    private ClassScanner() {
    }

    /** Returns the selected classes' fully qualified names, sorted. */
    static List<String> scan(Path dir, List<ClassPattern> includes, List<ClassPattern> excludes) throws IOException {
        List<String> paths;
        try (Stream<Path> files = Files.walk(dir)) {
            paths = files.filter(Files::isRegularFile)
                    .map(p -> dir.relativize(p).toString().replace('\\', '/'))
                    .filter(p -> p.endsWith(".class"))
                    .collect(Collectors.toList());
        }
        List<String> names = new ArrayList<>();
        for (String path : paths) {
            String name = path.substring(0, path.length() - ".class".length()).replace('/', '.');
            if (name.endsWith("module-info") || name.endsWith("package-info")) {
                continue;
            }
            if (any(includes, path) && !any(excludes, path)) {
                names.add(name);
            }
        }
        Collections.sort(names);
        return names;
    }

    private static boolean any(List<ClassPattern> patterns, String path) {
        for (ClassPattern p : patterns) {
            if (p.matches(path)) {
                return true;
            }
        }
        return false;
    }
}
