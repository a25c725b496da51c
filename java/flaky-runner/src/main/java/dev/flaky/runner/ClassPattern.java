package dev.flaky.runner;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A Surefire-style include/exclude pattern, matched against a class file's path relative to the test-classes
 * directory: an Ant-style glob ({@code **}, {@code *}, {@code ?}) whose {@code .java}/{@code .class} extension
 * is optional, or {@code %regex[...]}. A {@code #method} suffix is ignored (methods are chosen by the order).
 */
final class ClassPattern {
    private final Pattern regex;
    private final boolean isRegex;

    private ClassPattern(Pattern regex, boolean isRegex) {
        this.regex = regex;
        this.isRegex = isRegex;
    }

    /** Parses a pattern option; commas separate several patterns, as in Surefire's {@code -Dtest}. */
    static List<ClassPattern> parseAll(String option) {
        List<ClassPattern> patterns = new ArrayList<>();
        for (String p : option.split(",")) {
            p = p.trim();
            if (!p.isEmpty()) {
                patterns.add(parse(p));
            }
        }
        return patterns;
    }

    static ClassPattern parse(String pattern) {
        if (pattern.startsWith("%regex[") && pattern.endsWith("]")) {
            return new ClassPattern(Pattern.compile(pattern.substring(7, pattern.length() - 1)), true);
        }
        int hash = pattern.indexOf('#');
        if (hash >= 0) {
            pattern = pattern.substring(0, hash);
        }
        return new ClassPattern(Pattern.compile(globToRegex(stripExtension(pattern.replace('\\', '/')))), false);
    }

    /** Matches {@code path}, a class file path relative to the test-classes directory with {@code /} separators. */
    boolean matches(String path) {
        String withoutExtension = stripExtension(path);
        if (isRegex) {
            return regex.matcher(path).matches() || regex.matcher(withoutExtension).matches();
        }
        return regex.matcher(withoutExtension).matches();
    }

    private static String stripExtension(String path) {
        if (path.endsWith(".java")) {
            return path.substring(0, path.length() - 5);
        }
        if (path.endsWith(".class")) {
            return path.substring(0, path.length() - 6);
        }
        return path;
    }

    private static String globToRegex(String glob) {
        StringBuilder b = new StringBuilder();
        int i = 0;
        while (i < glob.length()) {
            char c = glob.charAt(i);
            if (glob.startsWith("**/", i)) {
                b.append("(?:[^/]*/)*");
                i += 3;
            } else if (glob.startsWith("**", i)) {
                b.append(".*");
                i += 2;
            } else if (c == '*') {
                b.append("[^/]*");
                i++;
            } else if (c == '?') {
                b.append("[^/]");
                i++;
            } else {
                b.append(Pattern.quote(String.valueOf(c)));
                i++;
            }
        }
        return b.toString();
    }
}
