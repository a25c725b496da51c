package dev.flaky.editor;

import com.github.javaparser.ast.body.MethodDeclaration;
import com.github.javaparser.ast.body.Parameter;
import com.github.javaparser.ast.body.TypeDeclaration;
import com.github.javaparser.ast.expr.AssignExpr;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.FieldAccessExpr;
import com.github.javaparser.ast.expr.MethodCallExpr;
import com.github.javaparser.ast.expr.NameExpr;
import com.github.javaparser.ast.expr.UnaryExpr;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * ODRepair's reset-method finder, on source: the methods of a field's class that write the field or call a
 * mutator on the object it holds.
 */
final class ResetMethods {
    private ResetMethods() {
    }

    /** Mutators whose call on the field's object may reset what it holds. */
    private static final Set<String> MUTATORS = new HashSet<>(Arrays.asList(
            "clear", "remove", "removeAll", "put", "putAll", "set", "reset", "add", "addAll", "retainAll", "shutdown", "close"));

    /**
     * Lists the reset-method candidates for a field of a type.
     *
     * @param type  the field's class
     * @param field the field's name
     * @return {@code [{name, static, private, params: [types]}]}
     */
    static JsonArray find(TypeDeclaration<?> type, String field) {
        JsonArray out = new JsonArray();
        for (MethodDeclaration m : type.getMethods()) {
            if (!writes(m, field)) {
                continue;
            }
            JsonObject o = new JsonObject();
            o.addProperty("name", m.getNameAsString());
            o.addProperty("static", m.isStatic());
            o.addProperty("private", m.isPrivate());
            JsonArray params = new JsonArray();
            for (Parameter p : m.getParameters()) {
                params.add(p.getType().asString());
            }
            o.add("params", params);
            out.add(o);
        }
        return out;
    }

    private static boolean writes(MethodDeclaration m, String field) {
        for (AssignExpr a : m.findAll(AssignExpr.class)) {
            if (names(a.getTarget(), field)) {
                return true;
            }
        }
        for (UnaryExpr u : m.findAll(UnaryExpr.class)) {
            if ((u.getOperator() == UnaryExpr.Operator.PREFIX_INCREMENT || u.getOperator() == UnaryExpr.Operator.PREFIX_DECREMENT
                    || u.getOperator() == UnaryExpr.Operator.POSTFIX_INCREMENT || u.getOperator() == UnaryExpr.Operator.POSTFIX_DECREMENT)
                    && names(u.getExpression(), field)) {
                return true;
            }
        }
        for (MethodCallExpr c : m.findAll(MethodCallExpr.class)) {
            if (MUTATORS.contains(c.getNameAsString()) && c.getScope().map(s -> names(s, field)).orElse(false)) {
                return true;
            }
        }
        return false;
    }

    private static boolean names(Expression e, String field) {
        return (e instanceof NameExpr && ((NameExpr) e).getNameAsString().equals(field))
                || (e instanceof FieldAccessExpr && ((FieldAccessExpr) e).getNameAsString().equals(field));
    }
}
