package dev.flaky.editor;

import com.github.javaparser.ParseResult;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.ImportDeclaration;
import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.NodeList;
import com.github.javaparser.ast.body.BodyDeclaration;
import com.github.javaparser.ast.body.CallableDeclaration;
import com.github.javaparser.ast.body.ClassOrInterfaceDeclaration;
import com.github.javaparser.ast.body.FieldDeclaration;
import com.github.javaparser.ast.body.MethodDeclaration;
import com.github.javaparser.ast.body.TypeDeclaration;
import com.github.javaparser.ast.expr.AnnotationExpr;
import com.github.javaparser.ast.expr.BinaryExpr;
import com.github.javaparser.ast.expr.ClassExpr;
import com.github.javaparser.ast.expr.ConditionalExpr;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.FieldAccessExpr;
import com.github.javaparser.ast.expr.LambdaExpr;
import com.github.javaparser.ast.expr.LiteralExpr;
import com.github.javaparser.ast.expr.MemberValuePair;
import com.github.javaparser.ast.expr.MethodCallExpr;
import com.github.javaparser.ast.expr.NameExpr;
import com.github.javaparser.ast.expr.NormalAnnotationExpr;
import com.github.javaparser.ast.expr.ObjectCreationExpr;
import com.github.javaparser.ast.expr.UnaryExpr;
import com.github.javaparser.ast.stmt.AssertStmt;
import com.github.javaparser.ast.stmt.CatchClause;
import com.github.javaparser.ast.stmt.DoStmt;
import com.github.javaparser.ast.stmt.ForEachStmt;
import com.github.javaparser.ast.stmt.ForStmt;
import com.github.javaparser.ast.stmt.IfStmt;
import com.github.javaparser.ast.stmt.ReturnStmt;
import com.github.javaparser.ast.stmt.SwitchEntry;
import com.github.javaparser.ast.stmt.SwitchStmt;
import com.github.javaparser.ast.stmt.SynchronizedStmt;
import com.github.javaparser.ast.stmt.ThrowStmt;
import com.github.javaparser.ast.stmt.TryStmt;
import com.github.javaparser.ast.stmt.WhileStmt;
import com.github.javaparser.ast.type.ClassOrInterfaceType;
import com.github.javaparser.ast.type.Type;
import com.github.javaparser.ast.type.UnionType;
import com.github.javaparser.printer.DefaultPrettyPrinter;
import com.github.javaparser.printer.Printer;
import com.github.javaparser.printer.configuration.DefaultConfigurationOption;
import com.github.javaparser.printer.configuration.DefaultPrinterConfiguration;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What a source file's tests check, as facts that a repair patch must keep: its test methods, assertions (each with
 * the conditions, loops, catches and lambdas around it and a fingerprint of its arguments), expected exceptions,
 * timeouts, rules and extensions, and the things that weaken a test when added: disabling annotations, assumptions,
 * catches that swallow a failure, returns in a test, and methods that shadow an assertion. Flaky compares the facts
 * of a file before and after a patch (op {@code test-meaning}); the comparison lives in the driver.
 */
final class Meaning {
    private Meaning() {
    }

    /** Annotations that make a method a test. */
    private static final Set<String> TEST_ANNOTATIONS = new HashSet<>(Arrays.asList(
            "Test", "ParameterizedTest", "RepeatedTest", "TestFactory", "TestTemplate", "Theory", "Property"));
    /** Annotations that run a class's or method's tests through code other than the framework's own. */
    private static final Set<String> RULE_ANNOTATIONS = new HashSet<>(Arrays.asList(
            "RunWith", "ExtendWith", "Listeners", "Rule", "ClassRule", "RegisterExtension"));
    /** @Test attributes that say which exception passes the test, or how often it may fail. */
    private static final Set<String> EXPECTED_ATTRIBUTES = new HashSet<>(Arrays.asList(
            "expected", "expectedExceptions", "expectedExceptionsMessageRegExp", "successPercentage"));
    /** @Test attributes that bound a test's time. */
    private static final Set<String> TIMEOUT_ATTRIBUTES = new HashSet<>(Arrays.asList("timeout", "timeOut", "invocationTimeOut"));
    /** Exceptions whose throwing skips a test instead of failing it. */
    private static final Set<String> SKIP_EXCEPTIONS = new HashSet<>(Arrays.asList(
            "AssumptionViolatedException", "TestAbortedException", "SkipException"));
    /** Catch types that catch an assertion's failure (or any test failure). */
    private static final Set<String> BROAD_CATCHES = new HashSet<>(Arrays.asList(
            "Throwable", "Error", "AssertionError", "AssertionFailedError", "ComparisonFailure", "Exception",
            "RuntimeException", "MultipleFailuresError", "AssertionFailedException"));

    private static final Printer PRINTER = new DefaultPrettyPrinter(new DefaultPrinterConfiguration()
            .removeOption(new DefaultConfigurationOption(DefaultPrinterConfiguration.ConfigOption.PRINT_COMMENTS)));

    /**
     * The facts of a source file.
     *
     * @param source the file
     * @return {@code {"facts": [{"kind", "where", "key", "text"}, ...]}}
     */
    static JsonObject facts(String source) {
        ParseResult<CompilationUnit> r = Unit.parser().parse(source);
        if (!r.isSuccessful() || !r.getResult().isPresent()) {
            throw new IllegalArgumentException("the file does not parse: " + r.getProblems());
        }
        CompilationUnit cu = r.getResult().get();
        JsonArray out = new JsonArray();
        for (ImportDeclaration i : cu.getImports()) {
            String member = Editor.simple(i.getNameAsString());
            if (i.isStatic() && (i.isAsterisk() || isAssertion(member, null) || isAssumption(member, null))) {
                add(out, "import", "", print(i).trim(), print(i).trim());
            }
        }
        for (TypeDeclaration<?> t : cu.findAll(TypeDeclaration.class)) {
            typeFacts(out, t);
        }
        for (CallableDeclaration<?> c : cu.findAll(CallableDeclaration.class)) {
            callableFacts(out, c);
        }
        JsonObject o = new JsonObject();
        o.add("facts", out);
        return o;
    }

    /** A class's own facts: its annotations and its rule fields. */
    private static void typeFacts(JsonArray out, TypeDeclaration<?> t) {
        String where = where(t);
        annotationFacts(out, where, t.getAnnotations());
        for (BodyDeclaration<?> m : t.getMembers()) {
            if (!(m instanceof FieldDeclaration)) {
                continue;
            }
            for (AnnotationExpr a : m.getAnnotations()) {
                if (RULE_ANNOTATIONS.contains(Editor.simple(a.getNameAsString()))) {
                    String text = print(m);
                    add(out, "rule", where, text, text);
                    break;
                }
            }
        }
    }

    /** The facts of a method or constructor: what it is, and what its body checks and skips. */
    private static void callableFacts(JsonArray out, CallableDeclaration<?> c) {
        String where = where(c);
        boolean test = isTest(c);
        if (test) {
            add(out, "test", where, "", where);
        }
        annotationFacts(out, where, c.getAnnotations());
        if (c instanceof MethodDeclaration && (isAssertion(c.getNameAsString(), null) || isAssumption(c.getNameAsString(), null))) {
            add(out, "assert-decl", where, c.getNameAsString(), c.getNameAsString());
        }
        for (MethodCallExpr call : c.findAll(MethodCallExpr.class, x -> owner(x) == c)) {
            String scope = call.getScope().map(Meaning::print).orElse(null);
            if (isAssumption(call.getNameAsString(), scope)) {
                add(out, "assumption", where, print(call), print(call));
            } else if (isAssertion(call.getNameAsString(), scope)) {
                MethodCallExpr outer = outermost(call);
                add(out, "assertion", where, context(call, c) + signature(call, outer), print(outer));
            }
        }
        for (AssertStmt a : c.findAll(AssertStmt.class, x -> owner(x) == c)) {
            String sig = "assert " + fingerprint(a.getCheck()) + a.getMessage().map(m -> " : " + fingerprint(m)).orElse("");
            add(out, "assertion", where, context(a, c) + sig, print(a));
        }
        for (ThrowStmt t : c.findAll(ThrowStmt.class, x -> owner(x) == c)) {
            Expression e = t.getExpression();
            if (e instanceof ObjectCreationExpr && SKIP_EXCEPTIONS.contains(((ObjectCreationExpr) e).getType().getNameAsString())) {
                add(out, "assumption", where, print(t), print(t));
            }
        }
        if (test) {
            for (ReturnStmt ret : c.findAll(ReturnStmt.class, x -> owner(x) == c)) {
                String ctx = context(ret, c);
                if (!ctx.contains("lambda")) {
                    add(out, "return", where, ctx, print(ret));
                }
            }
        }
        for (TryStmt t : c.findAll(TryStmt.class, x -> owner(x) == c)) {
            swallowFacts(out, where, c, t, test);
        }
    }

    /** The disabling annotations, timeouts, expected exceptions, rules and extensions among annotations. */
    private static void annotationFacts(JsonArray out, String where, NodeList<AnnotationExpr> annotations) {
        for (AnnotationExpr a : annotations) {
            String n = Editor.simple(a.getNameAsString());
            String text = print(a);
            if (n.equals("Ignore") || n.startsWith("Disabled") || n.startsWith("Enabled")) {
                add(out, "disabled", where, text, text);
            } else if (n.equals("Timeout")) {
                add(out, "timeout", where, text, text);
            } else if (RULE_ANNOTATIONS.contains(n)) {
                add(out, "rule", where, text, text);
            } else if (n.equals("Test") && a instanceof NormalAnnotationExpr) {
                for (MemberValuePair p : ((NormalAnnotationExpr) a).getPairs()) {
                    String name = p.getNameAsString();
                    String pair = name + " = " + print(p.getValue());
                    if (EXPECTED_ATTRIBUTES.contains(name)) {
                        add(out, "expected", where, pair, pair);
                    } else if (TIMEOUT_ATTRIBUTES.contains(name)) {
                        add(out, "timeout", where, pair, pair);
                    } else if (name.equals("enabled") && !print(p.getValue()).equals("true")) {
                        add(out, "disabled", where, pair, pair);
                    }
                }
            }
        }
    }

    /**
     * A catch of try t that swallows a failure: the try holds an assertion (or is a statement of a test's own
     * body), and a catch clause of a broad type neither throws nor fails.
     */
    private static void swallowFacts(JsonArray out, String where, CallableDeclaration<?> c, TryStmt t, boolean test) {
        boolean guards = !t.getTryBlock().findAll(MethodCallExpr.class,
                x -> isAssertion(x.getNameAsString(), x.getScope().map(Meaning::print).orElse(null))).isEmpty()
                || !t.getTryBlock().findAll(AssertStmt.class).isEmpty();
        boolean body = test && t.getParentNode().flatMap(Node::getParentNode).map(p -> p == c).orElse(false);
        if (!guards && !body) {
            return;
        }
        for (CatchClause cc : t.getCatchClauses()) {
            if (!broad(cc.getParameter().getType())) {
                continue;
            }
            boolean rethrows = !cc.getBody().findAll(ThrowStmt.class).isEmpty() || !cc.getBody().findAll(MethodCallExpr.class,
                    x -> x.getNameAsString().equals("fail") || x.getNameAsString().startsWith("assert")).isEmpty();
            if (!rethrows) {
                String text = "catch (" + print(cc.getParameter().getType()) + ")";
                add(out, "swallow", where, context(t, c) + text, text);
            }
        }
    }

    private static boolean broad(Type type) {
        if (type instanceof UnionType) {
            for (Type t : ((UnionType) type).getElements()) {
                if (broad(t)) {
                    return true;
                }
            }
            return false;
        }
        return type instanceof ClassOrInterfaceType && BROAD_CATCHES.contains(((ClassOrInterfaceType) type).getNameAsString());
    }

    /** Whether a method is a test: a test annotation, or JUnit 3's public void testX() in a TestCase. */
    private static boolean isTest(CallableDeclaration<?> c) {
        for (AnnotationExpr a : c.getAnnotations()) {
            if (TEST_ANNOTATIONS.contains(Editor.simple(a.getNameAsString()))) {
                return true;
            }
        }
        if (!(c instanceof MethodDeclaration)) {
            return false;
        }
        MethodDeclaration m = (MethodDeclaration) c;
        if (!m.getNameAsString().startsWith("test") || !m.isPublic() || m.isStatic() || !m.getType().isVoidType() || !m.getParameters().isEmpty()) {
            return false;
        }
        Optional<Node> parent = m.getParentNode();
        if (!parent.isPresent() || !(parent.get() instanceof ClassOrInterfaceDeclaration)) {
            return false;
        }
        for (ClassOrInterfaceType t : ((ClassOrInterfaceDeclaration) parent.get()).getExtendedTypes()) {
            if (t.getNameAsString().endsWith("TestCase")) {
                return true;
            }
        }
        return false;
    }

    /** Calls that check: assert*, fail, verify* (mocks), and ExpectedException's expect*. */
    static boolean isAssertion(String name, String scope) {
        return name.startsWith("assert") || name.equals("fail") || name.startsWith("verify")
                || name.equals("expect") || name.equals("expectMessage") || name.equals("expectCause");
    }

    /** Calls that skip a test when their condition fails: assume*, assuming*, Assumptions.abort. */
    static boolean isAssumption(String name, String scope) {
        return name.startsWith("assume") || name.startsWith("assuming")
                || (name.equals("abort") && scope != null && scope.endsWith("Assumptions"));
    }

    /** The outermost call of the fluent chain a call starts: assertThat(x).isEqualTo(1) for assertThat(x). */
    private static MethodCallExpr outermost(MethodCallExpr call) {
        MethodCallExpr c = call;
        while (c.getParentNode().isPresent() && c.getParentNode().get() instanceof MethodCallExpr) {
            MethodCallExpr p = (MethodCallExpr) c.getParentNode().get();
            final MethodCallExpr inner = c;
            if (!p.getScope().filter(s -> s == inner).isPresent()) {
                break;
            }
            c = p;
        }
        return c;
    }

    /** The chain from call to outer: each call's name and its arguments' fingerprints. */
    private static String signature(MethodCallExpr call, MethodCallExpr outer) {
        List<MethodCallExpr> chain = new ArrayList<>();
        for (Node n = outer; n instanceof MethodCallExpr; n = ((MethodCallExpr) n).getScope().orElse(null)) {
            chain.add(0, (MethodCallExpr) n);
            if (n == call) {
                break;
            }
        }
        StringBuilder b = new StringBuilder();
        for (MethodCallExpr m : chain) {
            b.append(b.length() > 0 ? "." : "").append(m.getNameAsString()).append('(');
            for (int i = 0; i < m.getArguments().size(); i++) {
                b.append(i > 0 ? ", " : "").append(fingerprint(m.getArgument(i)));
            }
            b.append(')');
        }
        return b.toString();
    }

    /**
     * An argument as the comparison sees it: a literal, constant or variable as written; any other expression by
     * the literals and operators it holds, so that a patch may change how an actual value is computed (a
     * Locale.ROOT, an ordered collection) but not what it is compared with.
     */
    static String fingerprint(Expression e) {
        if (plain(e)) {
            return "=" + print(e);
        }
        List<String> lits = new ArrayList<>();
        for (Expression x : e.findAll(Expression.class, x -> x instanceof LiteralExpr || x instanceof ClassExpr)) {
            lits.add(print(x));
        }
        List<String> ops = new ArrayList<>();
        e.findAll(BinaryExpr.class).forEach(x -> ops.add(x.getOperator().asString()));
        e.findAll(UnaryExpr.class).forEach(x -> ops.add(x.getOperator().asString()));
        e.findAll(ConditionalExpr.class).forEach(x -> ops.add("?:"));
        e.findAll(MethodCallExpr.class, x -> x.getNameAsString().equals("not")).forEach(x -> ops.add("not"));
        Collections.sort(lits);
        Collections.sort(ops);
        return "{" + String.join(" ", lits) + " | " + String.join(" ", ops) + "}";
    }

    private static boolean plain(Expression e) {
        if (e instanceof UnaryExpr) {
            UnaryExpr u = (UnaryExpr) e;
            return (u.getOperator() == UnaryExpr.Operator.MINUS || u.getOperator() == UnaryExpr.Operator.PLUS) && u.getExpression() instanceof LiteralExpr;
        }
        return e instanceof LiteralExpr || e instanceof ClassExpr || e instanceof NameExpr || e instanceof FieldAccessExpr;
    }

    /**
     * What encloses a node within its method, innermost first: the conditions, loops, catches, switch cases,
     * lambdas and synchronized blocks it is in (not a try block or finally, which pass a failure on). Moving an
     * assertion under a condition changes it.
     */
    static String context(Node node, CallableDeclaration<?> c) {
        StringBuilder b = new StringBuilder();
        Node child = node;
        for (Optional<Node> p = node.getParentNode(); p.isPresent() && p.get() != c; p = p.get().getParentNode()) {
            String part = contextPart(p.get(), child);
            if (part != null) {
                b.append(part).append(" > ");
            }
            child = p.get();
        }
        return b.toString();
    }

    private static String contextPart(Node p, Node child) {
        if (p instanceof IfStmt) {
            IfStmt s = (IfStmt) p;
            return child == s.getCondition() ? null : (child == s.getThenStmt() ? "if (" : "else of if (") + print(s.getCondition()) + ")";
        }
        if (p instanceof ConditionalExpr) {
            ConditionalExpr s = (ConditionalExpr) p;
            return child == s.getCondition() ? null : (child == s.getThenExpr() ? "? " : ": ") + print(s.getCondition());
        }
        if (p instanceof WhileStmt) {
            return "while (" + print(((WhileStmt) p).getCondition()) + ")";
        }
        if (p instanceof DoStmt) {
            return "do while (" + print(((DoStmt) p).getCondition()) + ")";
        }
        if (p instanceof ForStmt) {
            return "for (" + ((ForStmt) p).getCompare().map(Meaning::print).orElse("") + ")";
        }
        if (p instanceof ForEachStmt) {
            return "for (: " + print(((ForEachStmt) p).getIterable()) + ")";
        }
        if (p instanceof TryStmt) {
            // A try block or finally passes an assertion's failure on; a catch that swallows it is a fact of its own.
            TryStmt s = (TryStmt) p;
            return child == s.getTryBlock() || s.getFinallyBlock().map(f -> f == child).orElse(false) ? null : "try resources";
        }
        if (p instanceof CatchClause) {
            return "catch (" + print(((CatchClause) p).getParameter().getType()) + ")";
        }
        if (p instanceof SwitchEntry) {
            return "case " + print(((SwitchEntry) p).getLabels());
        }
        if (p instanceof SwitchStmt) {
            return "switch (" + print(((SwitchStmt) p).getSelector()) + ")";
        }
        if (p instanceof LambdaExpr) {
            return "lambda";
        }
        if (p instanceof SynchronizedStmt) {
            return "synchronized";
        }
        if (p instanceof BinaryExpr) {
            BinaryExpr s = (BinaryExpr) p;
            boolean shortCircuit = s.getOperator() == BinaryExpr.Operator.AND || s.getOperator() == BinaryExpr.Operator.OR;
            return shortCircuit && child == s.getRight() ? print(s.getLeft()) + " " + s.getOperator().asString() : null;
        }
        return null;
    }

    /** The method or constructor a node belongs to (lambdas belong to their method), or its class. */
    private static Node owner(Node n) {
        for (Optional<Node> p = n.getParentNode(); p.isPresent(); p = p.get().getParentNode()) {
            if (p.get() instanceof CallableDeclaration || p.get() instanceof TypeDeclaration) {
                return p.get();
            }
        }
        return null;
    }

    /**
     * Where a class or method is, for messages and as the comparison's key: Outer.Inner#name(int, String), and
     * for a method of a local or anonymous class, its method first: Outer#m() > new Runnable() {}#run().
     */
    static String where(Node n) {
        List<Node> path = new ArrayList<>();
        for (Node x = n; x != null; x = x.getParentNode().orElse(null)) {
            if (x instanceof TypeDeclaration || x instanceof CallableDeclaration
                    || (x instanceof ObjectCreationExpr && ((ObjectCreationExpr) x).getAnonymousClassBody().isPresent())) {
                path.add(0, x);
            }
        }
        StringBuilder b = new StringBuilder();
        Node prev = null;
        for (Node x : path) {
            if (x instanceof CallableDeclaration) {
                CallableDeclaration<?> c = (CallableDeclaration<?>) x;
                StringBuilder params = new StringBuilder();
                c.getParameters().forEach(p -> params.append(params.length() > 0 ? ", " : "").append(p.getType().asString()));
                b.append('#').append(c.getNameAsString()).append('(').append(params).append(')');
            } else {
                String name = x instanceof TypeDeclaration ? ((TypeDeclaration<?>) x).getNameAsString()
                        : "new " + ((ObjectCreationExpr) x).getType().getNameAsString() + "() {}";
                b.append(prev == null ? "" : prev instanceof TypeDeclaration ? "." : " > ").append(name);
            }
            prev = x;
        }
        return b.toString();
    }

    private static String print(Node n) {
        return PRINTER.print(n);
    }

    private static String print(NodeList<? extends Node> ns) {
        StringBuilder b = new StringBuilder();
        for (Node n : ns) {
            b.append(b.length() > 0 ? ", " : "").append(print(n));
        }
        return b.toString();
    }

    private static void add(JsonArray out, String kind, String where, String key, String text) {
        JsonObject f = new JsonObject();
        f.addProperty("kind", kind);
        f.addProperty("where", where);
        f.addProperty("key", key);
        f.addProperty("text", text);
        out.add(f);
    }
}
