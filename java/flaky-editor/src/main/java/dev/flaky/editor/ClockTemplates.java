package dev.flaky.editor;

import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.body.CallableDeclaration;
import com.github.javaparser.ast.body.FieldDeclaration;
import com.github.javaparser.ast.body.Parameter;
import com.github.javaparser.ast.body.VariableDeclarator;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.MethodCallExpr;
import com.github.javaparser.ast.expr.ObjectCreationExpr;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The standard fixes for time-zone, date and random findings: an explicit time zone (or the {@code Clock} the
 * file already has) and a seeded {@code Random}.
 */
final class ClockTemplates {
    private ClockTemplates() {
    }

    /** The java.time types whose no-argument {@code now()} reads the default zone's clock. */
    private static final Set<String> NOW = new HashSet<>(Arrays.asList(
            "LocalDate", "LocalDateTime", "LocalTime", "ZonedDateTime", "OffsetDateTime", "OffsetTime", "Year", "YearMonth"));

    /**
     * Makes the default-zone calls on a line explicit: {@code X.now()} of the java.time types becomes
     * {@code X.now(clock)} when the file declares a {@code Clock} field or the enclosing method a {@code Clock}
     * variable or parameter, else {@code X.now(ZoneOffset.UTC)}; {@code ZoneId.systemDefault()} becomes
     * {@code ZoneOffset.UTC}, {@code TimeZone.getDefault()} {@code TimeZone.getTimeZone("UTC")} and
     * {@code Clock.systemDefaultZone()} {@code Clock.systemUTC()}. Returns how many calls changed.
     */
    static int timeZone(Unit u, int line) {
        int changed = 0;
        boolean utc = false;
        List<MethodCallExpr> calls = u.cu.findAll(MethodCallExpr.class, c -> Templates.onLine(c, line));
        for (MethodCallExpr call : calls) {
            String scope = call.getScope().map(Expression::toString).orElse("");
            String name = call.getNameAsString();
            if (!call.getArguments().isEmpty()) {
                continue;
            }
            if (name.equals("now") && NOW.contains(scope)) {
                Optional<String> clock = clockInScope(u, call);
                u.insert(u.end(call) - 1, clock.orElse("ZoneOffset.UTC"));
                utc |= !clock.isPresent();
                changed++;
            } else if (scope.equals("ZoneId") && name.equals("systemDefault")) {
                u.replace(u.begin(call), u.end(call), "ZoneOffset.UTC");
                utc = true;
                changed++;
            } else if (scope.equals("TimeZone") && name.equals("getDefault")) {
                u.replace(u.begin(call.getName()), u.end(call), "getTimeZone(\"UTC\")");
                changed++;
            } else if (scope.equals("Clock") && name.equals("systemDefaultZone")) {
                u.replace(u.begin(call.getName()), u.end(call), "systemUTC()");
                changed++;
            }
        }
        if (utc) {
            Editor.importClass(u, "java.time.ZoneOffset");
        }
        return changed;
    }

    /** The name of a {@code Clock} the call can see: a variable or parameter of its method, else a field. */
    private static Optional<String> clockInScope(Unit u, Node at) {
        @SuppressWarnings("rawtypes")
        Optional<CallableDeclaration> m = at.findAncestor(CallableDeclaration.class);
        if (m.isPresent()) {
            for (Parameter p : ((CallableDeclaration<?>) m.get()).getParameters()) {
                if (p.getType().asString().equals("Clock")) {
                    return Optional.of(p.getNameAsString());
                }
            }
            for (VariableDeclarator v : ((Node) m.get()).findAll(VariableDeclarator.class)) {
                if (v.getType().asString().equals("Clock") && v.getRange().isPresent() && at.getRange().isPresent()
                        && v.getRange().get().end.isBefore(at.getRange().get().begin)) {
                    return Optional.of(v.getNameAsString());
                }
            }
        }
        for (FieldDeclaration f : u.cu.findAll(FieldDeclaration.class)) {
            for (VariableDeclarator v : f.getVariables()) {
                if (v.getType().asString().equals("Clock")) {
                    return Optional.of(v.getNameAsString());
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Seeds the unseeded {@code new Random()} behind the calls on a line: the one the call's receiver (a
     * variable or field) is initialised with in this file, else the ones created on the line. Returns how many
     * creations changed.
     */
    static int seededRandom(Unit u, int line) {
        List<String> receivers = Templates.receiversOnLine(u, line);
        List<ObjectCreationExpr> creations = new ArrayList<>();
        for (VariableDeclarator v : u.cu.findAll(VariableDeclarator.class, v -> receivers.contains(v.getNameAsString()))) {
            v.getInitializer().filter(ClockTemplates::unseeded).ifPresent(e -> creations.add((ObjectCreationExpr) e));
        }
        if (creations.isEmpty()) {
            creations.addAll(u.cu.findAll(ObjectCreationExpr.class, c -> Templates.onLine(c, line) && unseeded(c)));
        }
        for (ObjectCreationExpr c : creations) {
            u.insert(u.end(c) - 1, "42L");
        }
        return creations.size();
    }

    private static boolean unseeded(Expression e) {
        return e instanceof ObjectCreationExpr && ((ObjectCreationExpr) e).getType().getNameAsString().equals("Random")
                && ((ObjectCreationExpr) e).getArguments().isEmpty() && !((ObjectCreationExpr) e).getAnonymousClassBody().isPresent();
    }
}
