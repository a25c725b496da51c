package dev.flaky.editor;

import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.expr.EnclosedExpr;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.FieldAccessExpr;
import com.github.javaparser.ast.expr.MethodCallExpr;
import com.github.javaparser.ast.expr.NameExpr;
import com.github.javaparser.ast.expr.ObjectCreationExpr;
import com.github.javaparser.ast.expr.StringLiteralExpr;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * The standard fixes of an assertion that compares a collection in an iteration order nothing promises (FlakyDoctor's
 * ID templates): sort before asserting, or compare the collections themselves instead of their text. The assertion
 * call stays; only the expressions of its compared values change, so its literals and operators stay as written.
 */
final class OrderTemplates {
    private OrderTemplates() {
    }

    /** Calls that build a list whose order the comparison then depends on. */
    private static final Set<String> LIST_FACTORIES = new HashSet<>(Arrays.asList(
            "Arrays.asList", "List.of", "Collections.singletonList", "ImmutableList.of", "Lists.newArrayList"));

    /**
     * Makes the {@code assertEquals} calls on a line order-insensitive:
     * <ul>
     * <li>a collection's or map's text against a literal ({@code "[a, b]"}, {@code "{a=1}"}): the text of its
     * sorted copy ({@code x.stream().sorted().collect(Collectors.toList()).toString()}, which keeps how often each
     * element occurs, or {@code new TreeMap<>(x).toString()});</li>
     * <li>two texts ({@code a.toString()}, {@code b.toString()}): the two values themselves (sets and maps compare by
     * content);</li>
     * <li>a list built by a factory ({@code Arrays.asList(...)}, {@code List.of(...)}) against a collection: both
     * sorted ({@code x.stream().sorted().collect(Collectors.toList())}), which keeps how often each element
     * occurs.</li>
     * </ul>
     * Which argument is the expected and which the actual value follows the file's framework (TestNG's
     * {@code assertEquals(actual, expected)}; JUnit 3 and 4 take the message first). Returns how many assertions
     * changed.
     */
    static int sortedAssertion(Unit u, int line) {
        String fw = Editor.framework(u.cu);
        int changed = 0;
        boolean treeMap = false;
        boolean collectors = false;
        for (MethodCallExpr call : u.cu.findAll(MethodCallExpr.class, c -> Templates.onLine(c, line) && isAssertEquals(c))) {
            int n = call.getArguments().size();
            if (n != 2 && n != 3) {
                continue;
            }
            boolean messageFirst = n == 3 && (fw.equals("junit4") || fw.equals("junit3") || fw.isEmpty());
            int first = messageFirst ? 1 : 0;
            Expression expected = call.getArgument(fw.equals("testng") ? first + 1 : first);
            Expression actual = call.getArgument(fw.equals("testng") ? first : first + 1);
            Optional<Expression> actualOf = toStringOf(actual);
            Optional<Expression> expectedOf = toStringOf(expected);
            if (actualOf.isPresent() && expected instanceof StringLiteralExpr) {
                String lit = ((StringLiteralExpr) expected).getValue();
                boolean map = lit.startsWith("{");
                if (!map && !lit.startsWith("[")) {
                    continue;
                }
                u.replace(u.begin(actual), u.end(actual), map ? "new TreeMap<>(" + text(u, actualOf.get()) + ").toString()" : sorted(u, actualOf.get()) + ".toString()");
                treeMap |= map;
                collectors |= !map;
            } else if (actualOf.isPresent() && expectedOf.isPresent()) {
                u.replace(u.begin(expected), u.end(expected), text(u, expectedOf.get()));
                u.replace(u.begin(actual), u.end(actual), text(u, actualOf.get()));
            } else if (listFactory(expected) && !listFactory(actual)) {
                u.replace(u.begin(expected), u.end(expected), sorted(u, expected));
                u.replace(u.begin(actual), u.end(actual), sorted(u, actual));
                collectors = true;
            } else {
                continue;
            }
            changed++;
        }
        if (treeMap) {
            Editor.importClass(u, "java.util.TreeMap");
        }
        if (collectors) {
            Editor.importClass(u, "java.util.stream.Collectors");
        }
        return changed;
    }

    private static boolean isAssertEquals(MethodCallExpr c) {
        String scope = c.getScope().map(Expression::toString).orElse("");
        return c.getNameAsString().equals("assertEquals")
                && (scope.isEmpty() || scope.equals("Assert") || scope.equals("Assertions") || scope.equals("AssertJUnit"));
    }

    /** The receiver of a no-argument {@code toString()} call. */
    private static Optional<Expression> toStringOf(Expression e) {
        if (e instanceof MethodCallExpr) {
            MethodCallExpr m = (MethodCallExpr) e;
            if (m.getNameAsString().equals("toString") && m.getArguments().isEmpty()) {
                return m.getScope();
            }
        }
        return Optional.empty();
    }

    private static boolean listFactory(Expression e) {
        if (!(e instanceof MethodCallExpr)) {
            return false;
        }
        MethodCallExpr m = (MethodCallExpr) e;
        return LIST_FACTORIES.contains(m.getScope().map(s -> s.toString() + ".").orElse("") + m.getNameAsString());
    }

    /** An expression's sorted list: {@code x.stream().sorted().collect(Collectors.toList())}. */
    private static String sorted(Unit u, Expression e) {
        boolean primary = e instanceof NameExpr || e instanceof MethodCallExpr || e instanceof ObjectCreationExpr
                || e instanceof FieldAccessExpr || e instanceof EnclosedExpr;
        return (primary ? text(u, e) : "(" + text(u, e) + ")") + ".stream().sorted().collect(Collectors.toList())";
    }

    /** A node's source text exactly as written. */
    private static String text(Unit u, Node n) {
        return u.src.substring(u.begin(n), u.end(n));
    }
}
