package dev.flaky.editor;

import com.github.javaparser.ParseResult;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.body.BodyDeclaration;
import com.github.javaparser.ast.body.CallableDeclaration;
import com.github.javaparser.ast.body.ConstructorDeclaration;
import com.github.javaparser.ast.body.FieldDeclaration;
import com.github.javaparser.ast.body.InitializerDeclaration;
import com.github.javaparser.ast.body.MethodDeclaration;
import com.github.javaparser.ast.body.TypeDeclaration;
import com.github.javaparser.ast.comments.Comment;
import com.github.javaparser.ast.expr.AnnotationExpr;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Splits a source file into its members, for change mode's member diff: per type (top-level and nested, by binary
 * name below the package: {@code Outer}, {@code Outer$Inner}) its header (the declaration without its members:
 * annotations, modifiers, name, type parameters, supertypes, enum constants) and each method, constructor, field,
 * initialiser and other member, with its name, signature, line range and a hash of its text without comments.
 * Anonymous and local classes and lambdas are part of the member whose code declares them.
 */
final class Members {
    private Members() {
    }

    /** Answers a {@code split} request: the package and the members of {@code source}. */
    static JsonObject split(String source) {
        ParseResult<CompilationUnit> r = Unit.parser().parse(source);
        if (!r.isSuccessful() || !r.getResult().isPresent()) {
            throw new IllegalArgumentException("the file does not parse: " + r.getProblems());
        }
        CompilationUnit cu = r.getResult().get();
        JsonObject out = new JsonObject();
        out.addProperty("package", cu.getPackageDeclaration().map(p -> p.getNameAsString()).orElse(""));
        JsonArray members = new JsonArray();
        for (TypeDeclaration<?> t : cu.getTypes()) {
            type(t, t.getNameAsString(), members);
        }
        out.add("members", members);
        return out;
    }

    private static void type(TypeDeclaration<?> t, String binary, JsonArray out) {
        TypeDeclaration<?> header = t.clone();
        header.getMembers().clear();
        out.add(member(binary, "header", binary, "header", t, header));
        int initializers = 0;
        int others = 0;
        for (BodyDeclaration<?> m : t.getMembers()) {
            if (m instanceof TypeDeclaration) {
                TypeDeclaration<?> nested = (TypeDeclaration<?>) m;
                type(nested, binary + "$" + nested.getNameAsString(), out);
            } else if (m instanceof MethodDeclaration) {
                MethodDeclaration md = (MethodDeclaration) m;
                out.add(member(binary, "method", md.getNameAsString(), md.getSignature().asString(), m, m));
            } else if (m instanceof ConstructorDeclaration) {
                ConstructorDeclaration cd = (ConstructorDeclaration) m;
                out.add(member(binary, "constructor", "<init>", "<init>" + params(cd), m, m));
            } else if (m instanceof FieldDeclaration) {
                StringBuilder names = new StringBuilder();
                ((FieldDeclaration) m).getVariables().forEach(v -> names.append(names.length() == 0 ? "" : ",").append(v.getNameAsString()));
                out.add(member(binary, "field", names.toString(), "field " + names, m, m));
            } else if (m instanceof InitializerDeclaration) {
                boolean isStatic = ((InitializerDeclaration) m).isStatic();
                out.add(member(binary, "initializer", isStatic ? "<clinit>" : "<init>", "initializer " + ++initializers, m, m));
            } else {
                out.add(member(binary, "other", m.getClass().getSimpleName(), "other " + ++others, m, m));
            }
        }
    }

    /** Returns a callable's parameter list as {@code Signature.asString} writes it. */
    private static String params(CallableDeclaration<?> c) {
        String s = c.getSignature().asString();
        return s.substring(s.indexOf('('));
    }

    private static JsonObject member(String type, String kind, String name, String signature, Node at, Node text) {
        JsonObject o = new JsonObject();
        o.addProperty("class", type);
        o.addProperty("kind", kind);
        o.addProperty("name", name);
        o.addProperty("signature", signature);
        o.addProperty("beginLine", at.getBegin().map(p -> p.line).orElse(0));
        o.addProperty("endLine", at.getEnd().map(p -> p.line).orElse(0));
        o.addProperty("hash", hash(text));
        JsonArray annotations = new JsonArray();
        if (at instanceof BodyDeclaration) {
            for (AnnotationExpr a : ((BodyDeclaration<?>) at).getAnnotations()) {
                String n = a.getNameAsString();
                annotations.add(n.substring(n.lastIndexOf('.') + 1));
            }
        }
        o.add("annotations", annotations);
        return o;
    }

    /** Hashes a node's text as the printer writes it without comments, so that layout and comments do not count. */
    private static String hash(Node n) {
        Node c = n.clone();
        for (Comment x : c.getAllContainedComments()) {
            x.remove();
        }
        c.removeComment();
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(c.toString().getBytes(StandardCharsets.UTF_8));
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < 12; i++) {
                s.append(String.format("%02x", d[i]));
            }
            return s.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
