package dev.flaky.editor;

import com.github.javaparser.JavaParser;
import com.github.javaparser.ParseResult;
import com.github.javaparser.ParserConfiguration;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.ImportDeclaration;
import com.github.javaparser.ast.Modifier;
import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.NodeList;
import com.github.javaparser.ast.body.BodyDeclaration;
import com.github.javaparser.ast.body.CallableDeclaration;
import com.github.javaparser.ast.body.ClassOrInterfaceDeclaration;
import com.github.javaparser.ast.body.FieldDeclaration;
import com.github.javaparser.ast.body.MethodDeclaration;
import com.github.javaparser.ast.body.TypeDeclaration;
import com.github.javaparser.ast.body.VariableDeclarator;
import com.github.javaparser.ast.expr.AnnotationExpr;
import com.github.javaparser.ast.expr.AssignExpr;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.FieldAccessExpr;
import com.github.javaparser.ast.expr.MarkerAnnotationExpr;
import com.github.javaparser.ast.expr.MethodCallExpr;
import com.github.javaparser.ast.expr.NameExpr;
import com.github.javaparser.ast.expr.ObjectCreationExpr;
import com.github.javaparser.ast.stmt.BlockStmt;
import com.github.javaparser.ast.stmt.Statement;
import com.github.javaparser.ast.type.ClassOrInterfaceType;
import com.github.javaparser.ast.type.ReferenceType;
import com.github.javaparser.printer.lexicalpreservation.LexicalPreservingPrinter;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The editor's operations; each takes a parsed JSON request and returns its JSON answer. */
final class Editor {
    private Editor() {
    }

    /** The test frameworks whose lifecycle annotations the editor adds. */
    private static final String JUNIT4 = "junit4";
    private static final String JUPITER = "jupiter";
    private static final String TESTNG = "testng";
    private static final String JUNIT3 = "junit3";

    /**
     * Runs one request.
     *
     * @param req the request
     * @return its answer
     */
    static JsonObject handle(JsonObject req) {
        String op = str(req, "op");
        Unit u = op.equals("parse-members") || op.equals("split") || op.equals("jdk-classes") || op.equals("compile") || op.equals("scan-resets") || op.equals("bind-sites") || op.equals("test-meaning") ? null : Unit.parse(str(req, "source"));
        JsonObject out = new JsonObject();
        switch (op) {
            case "info":
                out = info(u, str(req, "class"));
                return out;
            case "add-fixture":
                out.add("added", addFixture(u, req));
                break;
            case "insert-at-start":
                out.add("added", insertAtStart(u, req));
                break;
            case "replace-method":
                out.add("restored", replaceMethod(u, req));
                break;
            case "add-members":
                out.add("added", addMembers(u, u.type(str(req, "class")), strings(req, "members"), new LinkedHashSet<String>()));
                break;
            case "add-imports":
                out.add("added", addImports(u, strings(req, "imports"), null));
                break;
            case "reset-methods":
                out.add("methods", ResetMethods.find(u.type(str(req, "class")), str(req, "field")));
                return out;
            case "scan-resets":
                try {
                    return dev.flaky.editor.bytecode.ResetFinder.find(req);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            case "bind-sites":
                try {
                    return dev.flaky.editor.bytecode.BindSites.find(req);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            case "locale-root":
                out.addProperty("changed", Templates.localeRoot(u, req.get("line").getAsInt()));
                break;
            case "ordered-collection":
                out.addProperty("changed", Templates.orderedCollection(u, req.get("line").getAsInt()));
                break;
            case "sorted-assertion":
                out.addProperty("changed", OrderTemplates.sortedAssertion(u, req.get("line").getAsInt()));
                break;
            case "await-condition":
                out.addProperty("changed", WaitTemplates.awaitCondition(u, req.get("line").getAsInt()));
                break;
            case "time-zone":
                out.addProperty("changed", ClockTemplates.timeZone(u, req.get("line").getAsInt()));
                break;
            case "seeded-random":
                out.addProperty("changed", ClockTemplates.seededRandom(u, req.get("line").getAsInt()));
                break;
            case "parse-members":
                out.add("members", parseMembers(str(req, "text"), out));
                return out;
            case "compile":
                return Compiler.compile(strings(req, "args"));
            case "test-meaning":
                return Meaning.facts(str(req, "source"));
            case "split":
                return Members.split(str(req, "source"));
            case "jdk-classes":
                JsonArray names = new JsonArray();
                JdkClasses.named(str(req, "simple")).forEach(names::add);
                out.add("classes", names);
                return out;
            default:
                throw new IllegalArgumentException("unknown op " + op);
        }
        out.addProperty("source", u.print());
        return out;
    }

    /** Describes a class: framework, imports, fields, methods with their statements and lifecycle roles. */
    private static JsonObject info(Unit u, String className) {
        TypeDeclaration<?> type = u.type(className);
        JsonObject out = new JsonObject();
        out.addProperty("framework", framework(u.cu, type));
        out.addProperty("package", u.cu.getPackageDeclaration().map(p -> p.getNameAsString()).orElse(""));
        JsonArray imports = new JsonArray();
        for (ImportDeclaration i : u.cu.getImports()) {
            imports.add(importText(i));
        }
        out.add("imports", imports);
        JsonArray fields = new JsonArray();
        JsonArray methods = new JsonArray();
        for (BodyDeclaration<?> m : type.getMembers()) {
            if (m instanceof FieldDeclaration) {
                FieldDeclaration f = (FieldDeclaration) m;
                JsonObject o = new JsonObject();
                JsonArray names = new JsonArray();
                JsonArray inits = new JsonArray();
                f.getVariables().forEach(v -> {
                    names.add(v.getNameAsString());
                    inits.add(v.getInitializer().map(u::text).orElse(""));
                });
                o.add("names", names);
                o.add("initializers", inits);
                o.addProperty("private", f.isPrivate());
                o.addProperty("text", u.text(f));
                o.addProperty("static", f.isStatic());
                o.addProperty("final", f.isFinal());
                o.addProperty("public", f.isPublic());
                o.addProperty("type", f.getVariable(0).getType().asString());
                fields.add(o);
            } else if (m instanceof MethodDeclaration) {
                methods.add(methodInfo(u, (MethodDeclaration) m));
            }
        }
        out.add("fields", fields);
        out.add("methods", methods);
        return out;
    }

    private static JsonObject methodInfo(Unit u, MethodDeclaration md) {
        JsonObject o = new JsonObject();
        o.addProperty("name", md.getNameAsString());
        o.addProperty("text", u.text(md));
        o.addProperty("static", md.isStatic());
        o.addProperty("public", md.isPublic());
        o.addProperty("throws", md.getThrownExceptions().isNonEmpty());
        JsonArray ann = new JsonArray();
        md.getAnnotations().forEach(a -> ann.add(simple(a.getNameAsString())));
        o.add("annotations", ann);
        JsonArray body = new JsonArray();
        md.getBody().ifPresent(b -> b.getStatements().forEach(s -> body.add(u.text(s))));
        o.add("body", body);
        md.getRange().ifPresent(r -> {
            o.addProperty("beginLine", r.begin.line);
            o.addProperty("endLine", r.end.line);
        });
        return o;
    }

    /**
     * The test framework of a class: junit3 when it extends a {@code TestCase} (JUnit's, or a project's base class
     * named so) and declares no {@code @Test} method, unless its file imports Jupiter or TestNG (JUnit 3 runs
     * {@code setUp} and {@code tearDown} around each test, also under JUnit 4's runner); else that of its
     * compilation unit.
     */
    static String framework(CompilationUnit cu, TypeDeclaration<?> type) {
        String fw = framework(cu);
        if (!(type instanceof ClassOrInterfaceDeclaration) || fw.equals(JUPITER) || fw.equals(TESTNG)) {
            return fw;
        }
        boolean annotated = type.getMethods().stream()
                .anyMatch(m -> m.getAnnotations().stream().anyMatch(a -> simple(a.getNameAsString()).equals("Test")));
        for (ClassOrInterfaceType t : ((ClassOrInterfaceDeclaration) type).getExtendedTypes()) {
            if (t.getNameAsString().endsWith("TestCase") && !annotated) {
                return JUNIT3;
            }
        }
        return fw;
    }

    /** The test framework a compilation unit uses, from its imports: jupiter, junit4, testng or empty. */
    static String framework(CompilationUnit cu) {
        String fw = "";
        for (ImportDeclaration i : cu.getImports()) {
            String n = i.getNameAsString();
            if (n.startsWith("org.junit.jupiter")) {
                return JUPITER;
            }
            if (n.startsWith("org.junit.") || n.equals("org.junit")) {
                fw = JUNIT4;
            } else if ((n.startsWith("org.testng.") || n.equals("org.testng")) && fw.isEmpty()) {
                fw = TESTNG;
            }
        }
        return fw;
    }

    /** The set-up ({@code before}) or tear-down annotation of a framework, run around each test method. */
    private static String lifecycleAnnotation(String fw, boolean before) {
        if (fw.equals(JUPITER)) {
            return before ? "BeforeEach" : "AfterEach";
        }
        if (fw.equals(TESTNG)) {
            return before ? "BeforeMethod" : "AfterMethod";
        }
        return before ? "Before" : "After";
    }

    /**
     * Adds statements to the class's set-up (before) or tear-down (after): at the start of its first
     * {@code @Before}/{@code @BeforeEach} method or the end of its first {@code @After}/{@code @AfterEach} method,
     * else in a new one with the annotation (and its import) of the class's framework. Members (fields, helper
     * methods) and imports of the code's origin are added when the statements need them.
     */
    private static JsonArray addFixture(Unit u, JsonObject req) {
        TypeDeclaration<?> type = u.type(str(req, "class"));
        boolean before = str(req, "when").equals("before");
        String fw = req.has("framework") ? str(req, "framework") : framework(u.cu, type);
        if (fw.isEmpty()) {
            throw new IllegalArgumentException("the class neither extends a JUnit 3 TestCase nor its file imports JUnit 4, Jupiter or TestNG: no set-up or tear-down to add to");
        }
        List<String> texts = strings(req, "statements");
        List<Statement> stmts = parseStatements(texts);
        if (fw.equals(JUNIT3)) {
            return addJUnit3Fixture(u, type, req, before, texts, stmts);
        }
        String annotation = lifecycleAnnotation(fw, before);
        JsonArray added = new JsonArray();
        MethodDeclaration target = null;
        for (MethodDeclaration md : type.getMethods()) {
            if (md.getAnnotations().stream().anyMatch(a -> simple(a.getNameAsString()).equals(annotation)) && md.getBody().isPresent()) {
                target = md;
                break;
            }
        }
        // The members first: a field goes before a new lifecycle method inserted at the same place.
        Set<String> names = new LinkedHashSet<>();
        for (Statement s : stmts) {
            collectNames(s, names);
        }
        JsonArray members = addMembers(u, type, strings(req, "members"), names);
        if (target == null) {
            String name = newLifecycleMethod(u, type, annotation, before ? "resetSharedState" : "restoreSharedState",
                    fw, req.has("throws") && req.get("throws").getAsBoolean(), texts);
            added.add("method " + name);
        } else if (before) {
            insertStatements(u, target.getBody().get(), texts, true);
        } else {
            insertStatements(u, target.getBody().get(), texts, false);
        }
        added.addAll(members);
        addImports(u, strings(req, "imports"), names).forEach(added::add);
        return added;
    }

    /**
     * Adds statements to a JUnit 3 class's {@code setUp} (before: after its leading {@code super.setUp()}) or
     * {@code tearDown} (after: before its trailing {@code super.tearDown()}), else to a new
     * {@code protected void setUp()/tearDown() throws Exception} that calls the super method as JUnit 3's
     * {@code TestCase} expects (first in set-up, last in tear-down).
     */
    private static JsonArray addJUnit3Fixture(Unit u, TypeDeclaration<?> type, JsonObject req, boolean before,
                                              List<String> texts, List<Statement> stmts) {
        String name = before ? "setUp" : "tearDown";
        String superCall = "super." + name + "();";
        Set<String> names = new LinkedHashSet<>();
        for (Statement s : stmts) {
            collectNames(s, names);
        }
        JsonArray members = addMembers(u, type, strings(req, "members"), names);
        JsonArray added = new JsonArray();
        MethodDeclaration target = null;
        for (MethodDeclaration md : type.getMethodsByName(name)) {
            if (md.getParameters().isEmpty() && md.getBody().isPresent()) {
                target = md;
            }
        }
        if (target == null) {
            List<String> body = new ArrayList<>();
            if (before) {
                body.add(superCall);
            }
            body.addAll(texts);
            if (!before) {
                body.add(superCall);
            }
            newJUnit3Method(u, type, name, body);
            added.add("method " + name);
        } else {
            NodeList<Statement> body = target.getBody().get().getStatements();
            Statement edge = body.isEmpty() ? null : body.get(before ? 0 : body.size() - 1);
            if (edge != null && isSuperCall(edge, name)) {
                insertNextTo(u, target.getBody().get(), edge, texts, before);
            } else {
                insertStatements(u, target.getBody().get(), texts, before);
            }
        }
        added.addAll(members);
        addImports(u, strings(req, "imports"), names).forEach(added::add);
        return added;
    }

    /** Whether a statement is the call {@code super.name()}. */
    private static boolean isSuperCall(Statement s, String name) {
        if (!s.isExpressionStmt() || !s.asExpressionStmt().getExpression().isMethodCallExpr()) {
            return false;
        }
        MethodCallExpr c = s.asExpressionStmt().getExpression().asMethodCallExpr();
        return c.getNameAsString().equals(name) && c.getArguments().isEmpty()
                && c.getScope().map(Expression::isSuperExpr).orElse(false);
    }

    /**
     * Inserts statement texts after (after is true) or before a statement of a block, each on its own line,
     * indented like the block's statements; falls back to the block's start or end when the statement shares its line.
     */
    private static void insertNextTo(Unit u, BlockStmt block, Statement s, List<String> texts, boolean after) {
        if (texts.isEmpty()) {
            return;
        }
        String indent = statementIndent(u, block);
        StringBuilder b = new StringBuilder();
        if (!u.blankBefore(u.begin(s))) {
            insertStatements(u, block, texts, after);
            return;
        }
        if (after) {
            for (String t : texts) {
                b.append(u.sep).append(u.reindent(t, indent));
            }
            u.insert(u.end(s), b.toString());
            return;
        }
        for (String t : texts) {
            b.append(u.reindent(t, indent)).append(u.sep);
        }
        u.insert(u.lineStartOf(u.begin(s)), b.toString());
    }

    /** Adds a JUnit 3 fixture method (setUp or tearDown) with a body, before the class's first method. */
    private static void newJUnit3Method(Unit u, TypeDeclaration<?> type, String name, List<String> stmts) {
        insertMethod(u, type, "@Override", "protected void " + name + "() throws Exception {", stmts);
    }

    /**
     * Inserts a method, its annotation line and its signature line (ending in "{") followed by the statements,
     * before the type's first method, or before its closing brace when it has none.
     */
    private static void insertMethod(Unit u, TypeDeclaration<?> type, String annotation, String signature,
                                     List<String> stmts) {
        String indent = memberIndent(u, type);
        String inner = indent + indentUnit(u, type);
        StringBuilder b = new StringBuilder();
        b.append(indent).append(annotation).append(u.sep);
        b.append(indent).append(signature).append(u.sep);
        for (String s : stmts) {
            b.append(u.reindent(s, inner)).append(u.sep);
        }
        b.append(indent).append('}').append(u.sep);
        BodyDeclaration<?> first = firstMethod(type);
        if (first != null && u.blankBefore(memberStart(u, first))) {
            u.insert(u.lineStartOf(memberStart(u, first)), b.append(u.sep).toString());
        } else {
            insertBeforeClose(u, type, u.sep + b);
        }
    }

    /** Inserts statements at the start of a method. */
    private static JsonArray insertAtStart(Unit u, JsonObject req) {
        TypeDeclaration<?> type = u.type(str(req, "class"));
        MethodDeclaration md = method(type, str(req, "method"));
        List<String> texts = strings(req, "statements");
        List<Statement> stmts = parseStatements(texts);
        insertStatements(u, md.getBody().orElseThrow(() -> new IllegalArgumentException("method has no body")), texts, true);
        JsonArray added = new JsonArray();
        addSupport(u, type, stmts, req, added);
        return added;
    }

    /** Inserts statement texts at the start or end of a block, one per line, indented like the block's statements. */
    private static void insertStatements(Unit u, BlockStmt block, List<String> texts, boolean atStart) {
        if (texts.isEmpty()) {
            return;
        }
        String indent = statementIndent(u, block);
        StringBuilder b = new StringBuilder();
        if (atStart) {
            for (String t : texts) {
                b.append(u.sep).append(u.reindent(t, indent));
            }
            u.insert(u.begin(block) + 1, b.toString());
            return;
        }
        int close = u.end(block) - 1;
        if (u.blankBefore(close)) {
            for (String t : texts) {
                b.append(u.reindent(t, indent)).append(u.sep);
            }
            u.insert(u.lineStartOf(close), b.toString());
        } else {
            for (String t : texts) {
                b.append(u.sep).append(u.reindent(t, indent));
            }
            u.insert(close, b.append(u.sep).append(u.indentOf(block.getParentNode().get())).toString());
        }
    }

    /** The indentation of a block's statements: that of its first statement on its own line, else one level deeper than the block's owner. */
    private static String statementIndent(Unit u, BlockStmt block) {
        for (Statement s : block.getStatements()) {
            if (u.blankBefore(u.begin(s))) {
                return u.indentOf(s);
            }
        }
        Node owner = block.getParentNode().orElse(block);
        return u.indentOf(owner) + indentUnit(u, owner);
    }

    /** The indentation of a type's members. */
    private static String memberIndent(Unit u, TypeDeclaration<?> type) {
        for (BodyDeclaration<?> m : type.getMembers()) {
            if (u.blankBefore(u.begin(m))) {
                return u.indentOf(m);
            }
        }
        return u.indentOf(type) + indentUnit(u, type);
    }

    /** One level of indentation in the file: a tab when its members are indented with tabs, else the step from a type to its members. */
    static String indentUnit(Unit u, Node near) {
        for (TypeDeclaration<?> t : u.cu.findAll(TypeDeclaration.class)) {
            for (BodyDeclaration<?> m : t.getMembers()) {
                if (!u.blankBefore(u.begin(m))) {
                    continue;
                }
                String mi = u.indentOf(m);
                String ti = u.indentOf(t);
                if (mi.startsWith("\t")) {
                    return "\t";
                }
                if (mi.length() > ti.length()) {
                    return mi.substring(ti.length());
                }
            }
        }
        return "    ";
    }

    /** Adds the members and imports the inserted statements refer to. */
    private static void addSupport(Unit u, TypeDeclaration<?> type, List<Statement> stmts, JsonObject req, JsonArray added) {
        Set<String> names = new LinkedHashSet<>();
        for (Statement s : stmts) {
            collectNames(s, names);
        }
        JsonArray members = addMembers(u, type, strings(req, "members"), names);
        members.forEach(added::add);
        addImports(u, strings(req, "imports"), names).forEach(added::add);
    }

    /**
     * Adds the members (field or method declarations, as text) that the class does not declare yet; given names,
     * only those the names refer to, directly or through other added members. Fields go before the first method,
     * methods to the end of the class.
     */
    private static JsonArray addMembers(Unit u, TypeDeclaration<?> type, List<String> texts, Set<String> names) {
        JsonArray added = new JsonArray();
        List<BodyDeclaration<?>> candidates = new ArrayList<>();
        for (String t : texts) {
            ParseResult<BodyDeclaration<?>> r = Unit.parser().parseBodyDeclaration(t);
            candidates.add(r.getResult().filter(x -> r.isSuccessful()).orElseThrow(() -> new IllegalArgumentException("not a member: " + t)));
        }
        boolean filter = !names.isEmpty();
        List<Integer> chosen = new ArrayList<>();
        for (boolean grew = true; grew; ) {
            grew = false;
            for (int i = 0; i < candidates.size(); i++) {
                BodyDeclaration<?> c = candidates.get(i);
                if (chosen.contains(i) || declares(type, c) || (filter && !refersTo(names, c))) {
                    continue;
                }
                chosen.add(i);
                collectNames(c, names);
                grew = true;
            }
        }
        String indent = memberIndent(u, type);
        StringBuilder fields = new StringBuilder();
        StringBuilder methods = new StringBuilder();
        for (int i = 0; i < candidates.size(); i++) {
            if (!chosen.contains(i)) {
                continue;
            }
            BodyDeclaration<?> c = candidates.get(i);
            if (c instanceof FieldDeclaration) {
                fields.append(u.reindent(texts.get(i), indent)).append(u.sep);
            } else {
                methods.append(u.sep).append(u.reindent(texts.get(i), indent)).append(u.sep);
            }
            added.add(describe(c));
        }
        if (fields.length() > 0) {
            BodyDeclaration<?> first = firstMethod(type);
            if (first != null && u.blankBefore(memberStart(u, first))) {
                u.insert(u.lineStartOf(memberStart(u, first)), fields.append(u.sep).toString());
            } else {
                methods.insert(0, u.sep + fields);
            }
        }
        if (methods.length() > 0) {
            insertBeforeClose(u, type, methods.toString());
        }
        return added;
    }

    /** Inserts member text (starting with a line break, ending with one) before the closing brace of a type. */
    private static void insertBeforeClose(Unit u, TypeDeclaration<?> type, String text) {
        int close = u.end(type) - 1;
        if (u.blankBefore(close)) {
            u.insert(u.lineStartOf(close), text);
        } else {
            u.insert(close, text + u.indentOf(type));
        }
    }

    /** Where a member starts, its leading comment included. */
    private static int memberStart(Unit u, BodyDeclaration<?> m) {
        return m.getComment().filter(c -> c.getBegin().isPresent()).map(u::begin).orElse(u.begin(m));
    }

    private static BodyDeclaration<?> firstMethod(TypeDeclaration<?> type) {
        for (BodyDeclaration<?> m : type.getMembers()) {
            if (m instanceof CallableDeclaration) {
                return m;
            }
        }
        return null;
    }

    /** Adds imports (text after "import", e.g. "static org.junit.Assert.assertEquals") not present yet; given names, only those they refer to. */
    private static JsonArray addImports(Unit u, List<String> imports, Set<String> names) {
        JsonArray added = new JsonArray();
        Set<String> seen = new LinkedHashSet<>();
        for (String text : imports) {
            String t = text.trim();
            boolean isStatic = t.startsWith("static ");
            if (isStatic) {
                t = t.substring("static ".length()).trim();
            }
            boolean asterisk = t.endsWith(".*");
            String name = asterisk ? t.substring(0, t.length() - 2) : t;
            if (names != null && (asterisk || !names.contains(simple(name)))) {
                continue;
            }
            boolean present = u.cu.getImports().stream().anyMatch(i -> i.getNameAsString().equals(name) && i.isStatic() == isStatic && i.isAsterisk() == asterisk);
            if (present || (!isStatic && !asterisk && u.imports(simple(name))) || !seen.add(text.trim())) {
                continue;
            }
            insertImport(u, "import " + text.trim() + ";", isStatic);
            added.add("import " + text.trim());
        }
        return added;
    }

    /**
     * Inserts an import line after the last import of its kind (static or not), else after the last import,
     * else after the package.
     */
    private static void insertImport(Unit u, String line, boolean isStatic) {
        NodeList<ImportDeclaration> imports = u.cu.getImports();
        ImportDeclaration after = null;
        for (ImportDeclaration i : imports) {
            if (i.isStatic() == isStatic) {
                after = i;
            }
        }
        if (after == null && imports.isNonEmpty()) {
            after = imports.get(imports.size() - 1);
        }
        if (after != null) {
            u.insert(u.end(after), u.sep + line);
        } else if (u.cu.getPackageDeclaration().isPresent()) {
            u.insert(u.end(u.cu.getPackageDeclaration().get()), u.sep + u.sep + line);
        } else {
            u.insert(0, line + u.sep + u.sep);
        }
    }

    /** Imports a class by its qualified name unless its simple name is imported already. */
    static void importClass(Unit u, String qualified) {
        boolean all = u.cu.getImports().stream().anyMatch(i -> i.isAsterisk() && !i.isStatic()
                && (i.getNameAsString() + "." + simple(qualified)).equals(qualified));
        if (!all && !u.imports(simple(qualified))) {
            addImports(u, java.util.Collections.singletonList(qualified), null);
        }
    }

    /**
     * Replaces a method's body with the body of new method text (e.g. an LLM's answer), keeping the original's
     * modifiers, return type, annotations and name: stitching. Returns what the new text had changed there.
     */
    private static JsonArray replaceMethod(Unit u, JsonObject req) {
        TypeDeclaration<?> type = u.type(str(req, "class"));
        MethodDeclaration orig = method(type, str(req, "method"));
        String text = str(req, "text");
        ParseResult<MethodDeclaration> r = Unit.parser().parseMethodDeclaration(text);
        MethodDeclaration repl = r.getResult().filter(x -> r.isSuccessful())
                .orElseThrow(() -> new IllegalArgumentException("the new method does not parse: " + r.getProblems()));
        JsonArray restored = new JsonArray();
        if (!orig.getModifiers().equals(repl.getModifiers())) {
            restored.add("modifiers " + mods(orig.getModifiers()) + " (the answer had " + mods(repl.getModifiers()) + ")");
        }
        if (!orig.getType().equals(repl.getType())) {
            restored.add("return type " + orig.getType() + " (the answer had " + repl.getType() + ")");
        }
        if (!orig.getAnnotations().equals(repl.getAnnotations())) {
            restored.add("annotations " + orig.getAnnotations() + " (the answer had " + repl.getAnnotations() + ")");
        }
        BlockStmt body = repl.getBody().orElseThrow(() -> new IllegalArgumentException("the new method has no body"));
        BlockStmt target = orig.getBody().orElseThrow(() -> new IllegalArgumentException("the method has no body"));
        if (repl.getThrownExceptions().isNonEmpty() && !orig.getThrownExceptions().equals(repl.getThrownExceptions())) {
            StringBuilder thrown = new StringBuilder();
            for (ReferenceType t : repl.getThrownExceptions()) {
                thrown.append(thrown.length() > 0 ? ", " : "").append(t);
            }
            if (orig.getThrownExceptions().isEmpty()) {
                u.insert(u.begin(target), "throws " + thrown + " ");
            } else {
                NodeList<ReferenceType> ts = orig.getThrownExceptions();
                u.replace(u.begin(ts.get(0)), u.end(ts.get(ts.size() - 1)), thrown.toString());
            }
        }
        if (!target.equals(body)) {
            String indent = statementIndent(u, target);
            StringBuilder b = new StringBuilder("{");
            int from = offsetIn(text, body.getBegin().get()) + 1;
            int to = offsetIn(text, body.getEnd().get());
            String inner = text.substring(from, to);
            if (!inner.trim().isEmpty()) {
                b.append(u.sep).append(u.reindent(stripBlankEdges(inner), indent));
            }
            b.append(u.sep).append(u.indentOf(orig)).append("}");
            u.replace(u.begin(target), u.end(target), b.toString());
        }
        return restored;
    }

    /** Drops the blank lines that open and close a text. */
    private static String stripBlankEdges(String s) {
        String[] ls = s.replace("\r\n", "\n").split("\n", -1);
        int a = 0;
        int b = ls.length;
        while (a < b && ls[a].trim().isEmpty()) {
            a++;
        }
        while (b > a && ls[b - 1].trim().isEmpty()) {
            b--;
        }
        StringBuilder out = new StringBuilder();
        for (int i = a; i < b; i++) {
            out.append(i > a ? "\n" : "").append(ls[i]);
        }
        return out.toString();
    }

    /** The offset of a parser position in a text. */
    private static int offsetIn(String text, com.github.javaparser.Position p) {
        int line = 1;
        int i = 0;
        while (line < p.line) {
            char c = text.charAt(i++);
            if (c == '\n' || (c == '\r' && (i >= text.length() || text.charAt(i) != '\n'))) {
                line++;
            }
        }
        return i + p.column - 1;
    }

    /**
     * Splits code (an answer: a whole class, or import lines followed by member declarations) into its imports
     * and one text per method or field, with its name and kind.
     */
    private static JsonArray parseMembers(String text, JsonObject out) {
        JavaParser parser = Unit.parser();
        ParseResult<CompilationUnit> whole = parser.parse(text);
        CompilationUnit cu;
        if (whole.isSuccessful() && whole.getResult().isPresent() && whole.getResult().get().getTypes().isNonEmpty()) {
            cu = whole.getResult().get();
        } else {
            StringBuilder imports = new StringBuilder();
            StringBuilder rest = new StringBuilder();
            for (String line : text.split("\r?\n", -1)) {
                String t = line.trim();
                (t.startsWith("import ") && t.endsWith(";") ? imports : rest).append(line).append('\n');
            }
            ParseResult<CompilationUnit> r = parser.parse(imports + "class FlakyAnswer {\n" + rest + "\n}");
            cu = r.getResult().filter(c -> r.isSuccessful())
                    .orElseThrow(() -> new IllegalArgumentException("the answer does not parse as Java members: " + r.getProblems()));
        }
        JsonArray imports = new JsonArray();
        cu.getImports().forEach(i -> imports.add(importText(i)));
        out.add("imports", imports);
        JsonArray members = new JsonArray();
        for (BodyDeclaration<?> m : cu.getType(0).getMembers()) {
            JsonObject o = new JsonObject();
            if (m instanceof MethodDeclaration) {
                o.addProperty("kind", "method");
                o.addProperty("name", ((MethodDeclaration) m).getNameAsString());
            } else if (m instanceof FieldDeclaration) {
                o.addProperty("kind", "field");
                o.addProperty("name", ((FieldDeclaration) m).getVariable(0).getNameAsString());
            } else {
                continue;
            }
            o.addProperty("text", m.toString());
            members.add(o);
        }
        return members;
    }

    private static String mods(NodeList<Modifier> mods) {
        StringBuilder b = new StringBuilder("[");
        for (Modifier m : mods) {
            b.append(b.length() > 1 ? " " : "").append(m.getKeyword().asString());
        }
        return b.append("]").toString();
    }

    /** Adds a lifecycle method holding the statements before the first method of the type and returns its name. */
    private static String newLifecycleMethod(Unit u, TypeDeclaration<?> type, String annotation, String baseName, String fw,
                                             boolean throwsException, List<String> stmts) {
        String name = baseName;
        for (int n = 2; !type.getMethodsByName(name).isEmpty(); n++) {
            name = baseName + n;
        }
        boolean publicTests = fw.equals(JUNIT4) || fw.equals(TESTNG) || type.getMethods().stream()
                .anyMatch(m -> m.isPublic() && m.getAnnotations().stream().anyMatch(a -> simple(a.getNameAsString()).equals("Test")));
        insertMethod(u, type, "@" + annotation, (publicTests ? "public " : "") + "void " + name + "()"
                + (throwsException ? " throws Exception" : "") + " {", stmts);
        String pkg = fw.equals(JUPITER) ? "org.junit.jupiter.api." : fw.equals(TESTNG) ? "org.testng.annotations." : "org.junit.";
        importClass(u, pkg + annotation);
        return name;
    }

    /** Finds a method by name (the first, when overloaded). */
    static MethodDeclaration method(TypeDeclaration<?> type, String name) {
        List<MethodDeclaration> ms = type.getMethodsByName(name);
        if (ms.isEmpty()) {
            throw new IllegalArgumentException("no method " + name + " in " + type.getNameAsString());
        }
        return ms.get(0);
    }

    private static boolean declares(TypeDeclaration<?> type, BodyDeclaration<?> c) {
        if (c instanceof FieldDeclaration) {
            for (VariableDeclarator v : ((FieldDeclaration) c).getVariables()) {
                if (type.getFieldByName(v.getNameAsString()).isPresent()) {
                    return true;
                }
            }
            return false;
        }
        if (c instanceof MethodDeclaration) {
            MethodDeclaration m = (MethodDeclaration) c;
            return type.getMethodsByName(m.getNameAsString()).stream().anyMatch(o -> o.getParameters().size() == m.getParameters().size());
        }
        return true;
    }

    private static boolean refersTo(Set<String> names, BodyDeclaration<?> c) {
        if (c instanceof FieldDeclaration) {
            return ((FieldDeclaration) c).getVariables().stream().anyMatch(v -> names.contains(v.getNameAsString()));
        }
        return c instanceof MethodDeclaration && names.contains(((MethodDeclaration) c).getNameAsString());
    }

    /** Collects the simple names code refers to: variables, unscoped calls, types, first segments of qualified names. */
    static void collectNames(Node n, Set<String> names) {
        n.walk(NameExpr.class, e -> names.add(e.getNameAsString()));
        n.walk(MethodCallExpr.class, e -> names.add(e.getNameAsString()));
        n.walk(FieldAccessExpr.class, e -> names.add(e.getNameAsString()));
        n.walk(ClassOrInterfaceType.class, e -> names.add(e.getNameAsString()));
        n.walk(MarkerAnnotationExpr.class, e -> names.add(simple(e.getNameAsString())));
        n.walk(AnnotationExpr.class, e -> names.add(simple(e.getNameAsString())));
        n.walk(ObjectCreationExpr.class, e -> names.add(e.getType().getNameAsString()));
        n.walk(AssignExpr.class, e -> collectTarget(e.getTarget(), names));
    }

    private static void collectTarget(Expression e, Set<String> names) {
        if (e.isNameExpr()) {
            names.add(e.asNameExpr().getNameAsString());
        }
    }

    private static List<Statement> parseStatements(List<String> texts) {
        JavaParser parser = Unit.parser();
        List<Statement> out = new ArrayList<>();
        for (String t : texts) {
            ParseResult<Statement> r = parser.parseStatement(t);
            out.add(r.getResult().filter(s -> r.isSuccessful()).orElseThrow(() -> new IllegalArgumentException("not a statement: " + t)));
        }
        return out;
    }

    private static String describe(BodyDeclaration<?> c) {
        if (c instanceof FieldDeclaration) {
            return "field " + ((FieldDeclaration) c).getVariable(0).getNameAsString();
        }
        return "method " + ((MethodDeclaration) c).getNameAsString();
    }

    static String importText(ImportDeclaration i) {
        return (i.isStatic() ? "static " : "") + i.getNameAsString() + (i.isAsterisk() ? ".*" : "");
    }

    static String simple(String name) {
        int dot = name.lastIndexOf('.');
        return dot < 0 ? name : name.substring(dot + 1);
    }

    static String str(JsonObject o, String key) {
        JsonElement e = o.get(key);
        if (e == null || e.isJsonNull()) {
            throw new IllegalArgumentException("request without " + key);
        }
        return e.getAsString();
    }

    static List<String> strings(JsonObject o, String key) {
        List<String> out = new ArrayList<>();
        JsonElement e = o.get(key);
        if (e != null && e.isJsonArray()) {
            e.getAsJsonArray().forEach(x -> out.add(x.getAsString()));
        }
        return out;
    }
}
