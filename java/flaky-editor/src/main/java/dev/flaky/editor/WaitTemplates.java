package dev.flaky.editor;

import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.body.CallableDeclaration;
import com.github.javaparser.ast.body.Parameter;
import com.github.javaparser.ast.body.VariableDeclarator;
import com.github.javaparser.ast.expr.EnclosedExpr;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.FieldAccessExpr;
import com.github.javaparser.ast.expr.IntegerLiteralExpr;
import com.github.javaparser.ast.expr.LambdaExpr;
import com.github.javaparser.ast.expr.LongLiteralExpr;
import com.github.javaparser.ast.expr.MethodCallExpr;
import com.github.javaparser.ast.expr.MethodReferenceExpr;
import com.github.javaparser.ast.expr.NameExpr;
import com.github.javaparser.ast.stmt.BlockStmt;
import com.github.javaparser.ast.stmt.ExpressionStmt;
import com.github.javaparser.ast.stmt.Statement;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The standard fix of a timing finding: wait on the condition instead of a fixed sleep. A {@code Thread.sleep(n)}
 * (or {@code TimeUnit.X.sleep(n)}) right before an {@code assertTrue(c)} or {@code assertNotNull(x)} becomes a
 * bounded poll of that assertion's condition, which ends as soon as it holds; the assertion itself stays.
 */
final class WaitTemplates {
    private WaitTemplates() {
    }

    /** How long the poll waits at most: 30 s, or the original sleep when that is longer. */
    private static final long BOUND_SECONDS = 30;
    private static final String BOUND = "TimeUnit.SECONDS.toNanos(" + BOUND_SECONDS + ")";
    /** The poll's interval, in milliseconds. */
    private static final int INTERVAL_MS = 10;
    /** The scopes an assertion call may have. */
    private static final Set<String> ASSERT_SCOPES = new HashSet<>(Arrays.asList("", "Assert", "Assertions", "AssertJUnit", "TestCase"));
    /** TimeUnit's constants, which a statically imported unit's sleep is called on. */
    private static final Set<String> UNITS = new HashSet<>(Arrays.asList(
            "NANOSECONDS", "MICROSECONDS", "MILLISECONDS", "SECONDS", "MINUTES", "HOURS", "DAYS"));

    /**
     * Turns the sleeps on a line that an {@code assertTrue}/{@code assertNotNull} follows into a poll of its
     * condition, at most {@link #BOUND} or the sleep's own duration, whichever is longer:
     * {@code long deadline = ...; while (!c && System.nanoTime() - deadline < 0) Thread.sleep(10);}. A condition
     * that is a lambda or method reference (Jupiter's {@code BooleanSupplier}) is left alone. Returns how many sleeps
     * changed.
     */
    static int awaitCondition(Unit u, int line) {
        String fw = Editor.framework(u.cu);
        int changed = 0;
        for (ExpressionStmt s : u.cu.findAll(ExpressionStmt.class, s -> Templates.onLine(s, line))) {
            Optional<String> unit = sleepUnit(s.getExpression());
            Optional<String> until = unit.isPresent() ? pollCondition(u, s, fw) : Optional.empty();
            if (!until.isPresent()) {
                changed += waitBefore(u, s, fw);
                continue;
            }
            String name = freshName(s, "deadline");
            String indent = u.indentOf(s);
            String poll = "long " + name + " = System.nanoTime() + " + bound(u, unit.get(), ((MethodCallExpr) s.getExpression()).getArgument(0)) + ";"
                    + u.sep + indent + "while (" + until.get() + " && System.nanoTime() - " + name + " < 0) {" + u.sep
                    + indent + Editor.indentUnit(u, s) + "Thread.sleep(" + INTERVAL_MS + ");" + u.sep + indent + "}";
            u.replace(u.begin(s), u.end(s), poll);
            changed++;
        }
        if (changed > 0) {
            Editor.importClass(u, "java.util.concurrent.TimeUnit");
        }
        return changed;
    }

    /**
     * A tight deadline inside an assertion ({@code assertTrue(latch.await(700, MILLISECONDS))}, also
     * {@code awaitTermination}): the same wait, for at most {@link #BOUND}, as a statement of its own right before
     * the assertion, which then finds the condition met; the assertion itself stays as written. Only a
     * {@code CountDownLatch} the file declares (awaiting it again changes nothing, unlike a barrier's
     * {@code await} or a semaphore's {@code tryAcquire}) and {@code awaitTermination}; a deadline longer than the
     * bound is left alone. Returns 1 when it inserted the wait.
     */
    private static int waitBefore(Unit u, ExpressionStmt s, String fw) {
        Optional<Expression> cond = assertedCondition(s, "assertTrue", fw);
        if (!cond.isPresent() || !(cond.get() instanceof MethodCallExpr) || !(s.getParentNode().orElse(null) instanceof BlockStmt)) {
            return 0;
        }
        MethodCallExpr wait = (MethodCallExpr) cond.get();
        Optional<Expression> recv = wait.getScope().filter(r -> r instanceof NameExpr || r instanceof FieldAccessExpr);
        String name = wait.getNameAsString();
        if (!recv.isPresent() || wait.getArguments().size() != 2
                || !(name.equals("awaitTermination") || name.equals("await") && declaredAs(u, recv.get(), "CountDownLatch"))) {
            return 0;
        }
        Expression n = wait.getArgument(0);
        String unit = wait.getArgument(1).toString();
        String args;
        if ((n instanceof IntegerLiteralExpr || n instanceof LongLiteralExpr) && UNITS.contains(Editor.simple(unit))) {
            if (!bound(u, "TimeUnit." + Editor.simple(unit), n).equals(BOUND)) {
                return 0;
            }
            args = BOUND_SECONDS + ", TimeUnit.SECONDS";
        } else {
            args = "Math.max(" + BOUND + ", " + text(u, wait.getArgument(1)) + ".toNanos(" + text(u, n) + ")), TimeUnit.NANOSECONDS";
        }
        u.insert(u.begin(s), text(u, recv.get()) + "." + name + "(" + args + ");" + u.sep + u.indentOf(s));
        return 1;
    }

    /** Whether the file declares the variable, parameter or field an expression names with the type's simple name. */
    private static boolean declaredAs(Unit u, Expression e, String type) {
        String name = e instanceof NameExpr ? ((NameExpr) e).getNameAsString() : ((FieldAccessExpr) e).getNameAsString();
        return u.cu.findAll(VariableDeclarator.class).stream().anyMatch(v -> v.getNameAsString().equals(name) && Editor.simple(v.getType().asString()).equals(type))
                || u.cu.findAll(Parameter.class).stream().anyMatch(p -> p.getNameAsString().equals(name) && Editor.simple(p.getType().asString()).equals(type));
    }

    /**
     * The poll's bound in nanoseconds, as code: {@link #BOUND}, or the sleep's own duration when it is longer (known
     * when the duration is a literal, else the larger of the two at run time).
     */
    private static String bound(Unit u, String unit, Expression duration) {
        if (duration instanceof IntegerLiteralExpr || duration instanceof LongLiteralExpr) {
            Number n = duration instanceof IntegerLiteralExpr ? ((IntegerLiteralExpr) duration).asNumber() : ((LongLiteralExpr) duration).asNumber();
            long millis = TimeUnit.valueOf(Editor.simple(unit)).toMillis(n.longValue());
            return millis <= BOUND_SECONDS * 1000 ? BOUND : unit + ".toNanos(" + text(u, duration) + ")";
        }
        return "Math.max(" + BOUND + ", " + unit + ".toNanos(" + text(u, duration) + "))";
    }

    /** The TimeUnit a sleep call counts in: Thread.sleep(ms) in milliseconds, TimeUnit.X.sleep(n) in X. */
    private static Optional<String> sleepUnit(Expression e) {
        if (!(e instanceof MethodCallExpr)) {
            return Optional.empty();
        }
        MethodCallExpr m = (MethodCallExpr) e;
        String scope = m.getScope().map(Expression::toString).orElse("");
        if (!m.getNameAsString().equals("sleep") || m.getArguments().size() != 1) {
            return Optional.empty();
        }
        if (scope.equals("Thread") || scope.equals("java.lang.Thread")) {
            return Optional.of("TimeUnit.MILLISECONDS");
        }
        String constant = Editor.simple(scope);
        if (UNITS.contains(constant) && (scope.equals(constant) || scope.endsWith("TimeUnit." + constant))) {
            return Optional.of("TimeUnit." + constant);
        }
        return Optional.empty();
    }

    /**
     * The loop condition that waits for the assertion right after a statement: {@code !c} for
     * {@code assertTrue(c)}, {@code x == null} for {@code assertNotNull(x)} (parenthesised unless a name, call or field); the condition is the first argument,
     * or the second of two under JUnit 3 and 4 (message first).
     */
    private static Optional<String> pollCondition(Unit u, Statement s, String fw) {
        Optional<Node> parent = s.getParentNode();
        if (!parent.isPresent() || !(parent.get() instanceof BlockStmt)) {
            return Optional.empty();
        }
        java.util.List<Statement> stmts = ((BlockStmt) parent.get()).getStatements();
        int i = 0;
        while (i < stmts.size() && stmts.get(i) != s) {
            i++;
        }
        if (i + 1 >= stmts.size() || !(stmts.get(i + 1) instanceof ExpressionStmt)) {
            return Optional.empty();
        }
        ExpressionStmt next = (ExpressionStmt) stmts.get(i + 1);
        String name = next.getExpression() instanceof MethodCallExpr ? ((MethodCallExpr) next.getExpression()).getNameAsString() : "";
        Optional<Expression> asserted = assertedCondition(next, name, fw);
        if (!asserted.isPresent() || !(name.equals("assertTrue") || name.equals("assertNotNull"))) {
            return Optional.empty();
        }
        Expression cond = asserted.get();
        if (cond instanceof LambdaExpr || cond instanceof MethodReferenceExpr) {
            return Optional.empty();
        }
        boolean primary = cond instanceof MethodCallExpr || cond instanceof NameExpr || cond instanceof FieldAccessExpr || cond instanceof EnclosedExpr;
        String c = primary ? text(u, cond) : "(" + text(u, cond) + ")";
        return Optional.of(name.equals("assertTrue") ? "!" + c : c + " == null");
    }

    /**
     * The condition of a statement that is an assertion call of the given name with one or two arguments: the
     * first, or the second of two under JUnit 3 and 4 (message first).
     */
    private static Optional<Expression> assertedCondition(ExpressionStmt s, String assertion, String fw) {
        if (!(s.getExpression() instanceof MethodCallExpr)) {
            return Optional.empty();
        }
        MethodCallExpr call = (MethodCallExpr) s.getExpression();
        int n = call.getArguments().size();
        if (!call.getNameAsString().equals(assertion) || !ASSERT_SCOPES.contains(call.getScope().map(Expression::toString).orElse("")) || n < 1 || n > 2) {
            return Optional.empty();
        }
        boolean messageFirst = n == 2 && (fw.equals("junit4") || fw.equals("junit3") || fw.isEmpty());
        return Optional.of(call.getArgument(messageFirst ? 1 : 0));
    }

    /** A name no parameter or variable of the statement's method has: base, else base2, base3, ... */
    private static String freshName(Node at, String base) {
        Set<String> taken = new HashSet<>();
        at.findAncestor(CallableDeclaration.class).ifPresent(c -> {
            for (Object p : ((CallableDeclaration<?>) c).getParameters()) {
                taken.add(((Parameter) p).getNameAsString());
            }
            ((Node) c).findAll(VariableDeclarator.class).forEach(v -> taken.add(v.getNameAsString()));
        });
        String name = base;
        for (int i = 2; taken.contains(name); i++) {
            name = base + i;
        }
        return name;
    }

    private static String text(Unit u, Node n) {
        return u.src.substring(u.begin(n), u.end(n));
    }
}
