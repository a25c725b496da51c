package dev.flaky.editor;

import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.body.VariableDeclarator;
import com.github.javaparser.ast.expr.AssignExpr;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.FieldAccessExpr;
import com.github.javaparser.ast.expr.MethodCallExpr;
import com.github.javaparser.ast.expr.NameExpr;
import com.github.javaparser.ast.expr.ObjectCreationExpr;
import com.github.javaparser.ast.type.ClassOrInterfaceType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The standard fixes for API findings: Locale.ROOT and ordered collections. */
final class Templates {
    private Templates() {
    }

    /** Ordered replacements of the hash collections whose iteration order is unspecified. */
    private static final Map<String, String> ORDERED = new HashMap<>();

    static {
        ORDERED.put("HashMap", "LinkedHashMap");
        ORDERED.put("HashSet", "LinkedHashSet");
    }

    /**
     * Passes {@code Locale.ROOT} to the locale-sensitive calls on a line: {@code toUpperCase()},
     * {@code toLowerCase()} and {@code String.format(...)} without a locale. Returns how many calls changed.
     */
    static int localeRoot(Unit u, int line) {
        int changed = 0;
        for (MethodCallExpr call : u.cu.findAll(MethodCallExpr.class, c -> onLine(c, line))) {
            String name = call.getNameAsString();
            if ((name.equals("toUpperCase") || name.equals("toLowerCase")) && call.getArguments().isEmpty()) {
                u.insert(u.end(call) - 1, "Locale.ROOT");
                changed++;
            } else if (name.equals("format") && call.getScope().map(s -> s.toString().equals("String")).orElse(false)
                    && call.getArguments().isNonEmpty() && !call.getArgument(0).toString().contains("Locale")) {
                u.insert(u.begin(call.getArgument(0)), "Locale.ROOT, ");
                changed++;
            }
        }
        if (changed > 0) {
            Editor.importClass(u, "java.util.Locale");
        }
        return changed;
    }

    /**
     * Makes the hash collection behind the calls on a line an ordered one: the variable or field the call's
     * receiver names, when it is created in this file as {@code new HashMap}/{@code new HashSet}; without such a
     * receiver, every hash collection created on the line. Returns how many creations changed.
     */
    static int orderedCollection(Unit u, int line) {
        List<String> receivers = receiversOnLine(u, line);
        List<ObjectCreationExpr> creations = new ArrayList<>();
        for (VariableDeclarator v : u.cu.findAll(VariableDeclarator.class, v -> receivers.contains(v.getNameAsString()))) {
            v.getInitializer().ifPresent(init -> addCreation(init, creations));
        }
        for (AssignExpr a : u.cu.findAll(AssignExpr.class)) {
            Expression t = a.getTarget();
            String name = t instanceof NameExpr ? ((NameExpr) t).getNameAsString() : t instanceof FieldAccessExpr ? ((FieldAccessExpr) t).getNameAsString() : "";
            if (receivers.contains(name)) {
                addCreation(a.getValue(), creations);
            }
        }
        if (creations.isEmpty()) {
            for (ObjectCreationExpr c : u.cu.findAll(ObjectCreationExpr.class, c -> onLine(c, line))) {
                addCreation(c, creations);
            }
        }
        Set<String> imported = new HashSet<>();
        for (ObjectCreationExpr c : creations) {
            ClassOrInterfaceType type = c.getType();
            String ordered = ORDERED.get(type.getNameAsString());
            u.replace(u.begin(type.getName()), u.end(type.getName()), ordered);
            if (imported.add(ordered)) {
                Editor.importClass(u, "java.util." + ordered);
            }
        }
        return creations.size();
    }

    private static void addCreation(Expression e, List<ObjectCreationExpr> out) {
        if (e instanceof ObjectCreationExpr && ORDERED.containsKey(((ObjectCreationExpr) e).getType().getNameAsString())) {
            out.add((ObjectCreationExpr) e);
        }
    }

    /** The names (variables or fields) that the receivers of the method calls on a line name. */
    static List<String> receiversOnLine(Unit u, int line) {
        List<String> receivers = new ArrayList<>();
        for (MethodCallExpr call : u.cu.findAll(MethodCallExpr.class, c -> onLine(c, line))) {
            call.getScope().ifPresent(s -> {
                if (s instanceof NameExpr) {
                    receivers.add(((NameExpr) s).getNameAsString());
                } else if (s instanceof FieldAccessExpr) {
                    receivers.add(((FieldAccessExpr) s).getNameAsString());
                }
            });
        }
        return receivers;
    }

    /** Whether the node spans the line. */
    static boolean onLine(Node n, int line) {
        return n.getRange().map(r -> r.begin.line <= line && line <= r.end.line).orElse(false);
    }
}
