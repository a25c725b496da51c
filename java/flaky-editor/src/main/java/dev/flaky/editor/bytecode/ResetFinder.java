package dev.flaky.editor.bytecode;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.AnnotationNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.FieldNode;
import org.objectweb.asm.tree.IntInsnNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.VarInsnNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.Frame;
import org.objectweb.asm.tree.analysis.SourceInterpreter;
import org.objectweb.asm.tree.analysis.SourceValue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * ODRepair's reset-method finder on bytecode: in the module's class directories, the methods that write a polluted
 * static field ({@code PUTSTATIC}), call a mutator on an object loaded from it (followed from the {@code GETSTATIC}
 * through locals, casts, field reads and getters with ASM's source analysis), or, when the field holds a project
 * object, write that object's fields; then the methods that call those, up to a depth. It also mines the literals
 * of some classes and lists how to obtain a receiver of each instance method's class. It only reports: the Go side
 * ranks and searches.
 */
public final class ResetFinder {
    private ResetFinder() {
    }

    /** Names (or prefixes, ending in '*') of mutators whose call on the field's object may reset what it holds. */
    private static final List<String> MUTATORS = Arrays.asList("clear", "remove*", "put*", "set*", "reset*", "add*",
            "retainAll", "invalidate*", "delete*", "unregister*", "poll", "pop", "offer", "push", "compute*", "merge",
            "replace*", "close", "shutdown*", "init*", "reload*", "evict*", "purge*");

    /** How far the value of the field is followed through field reads, casts, getters and locals. */
    private static final int FOLLOW = 6;
    /** Literals reported at most. */
    private static final int LITERALS = 40;

    /**
     * Runs the finder.
     *
     * @param req {@code {dirs: [class directories or jars], class, field, literalClasses: [...], depth}}
     * @return {@code {methods: [...], receivers: {class: [...]}, literals: [...]}}
     * @throws IOException when a class directory cannot be read
     */
    public static JsonObject find(JsonObject req) throws IOException {
        Map<String, ClassNode> classes = new LinkedHashMap<>();
        for (com.google.gson.JsonElement d : req.getAsJsonArray("dirs")) {
            load(Paths.get(d.getAsString()), classes);
        }
        String owner = req.has("class") ? req.get("class").getAsString().replace('.', '/') : "";
        String field = req.get("field").getAsString();
        int depth = req.has("depth") ? req.get("depth").getAsInt() : 2;
        String valueType = null;
        ClassNode oc = classes.get(owner);
        if (oc != null) {
            for (FieldNode f : oc.fields) {
                if (f.name.equals(field) && Type.getType(f.desc).getSort() == Type.OBJECT) {
                    valueType = Type.getType(f.desc).getInternalName();
                }
            }
        }
        // Level 0: the methods that reset the field's state themselves.
        Map<String, JsonObject> found = new LinkedHashMap<>();
        for (ClassNode c : owner.isEmpty() ? new ArrayList<ClassNode>() : classes.values()) {
            for (MethodNode m : c.methods) {
                if (skipped(m)) {
                    continue;
                }
                String how = direct(c, m, owner, field, valueType, classes);
                if (how != null) {
                    found.put(key(c.name, m), method(c, m, how, 0));
                }
            }
        }
        // The methods the invariant analysis named (cleaner methods, return-value modifiers) come first.
        if (req.has("extra") && req.get("extra").isJsonArray()) {
            for (com.google.gson.JsonElement e : req.getAsJsonArray("extra")) {
                named(e.getAsString(), classes, found);
            }
        }
        // Callers, up to depth levels further.
        Set<String> level = new LinkedHashSet<>(found.keySet());
        for (int d = 1; d <= depth && !level.isEmpty(); d++) {
            Set<String> next = new LinkedHashSet<>();
            for (ClassNode c : classes.values()) {
                for (MethodNode m : c.methods) {
                    String k = key(c.name, m);
                    if (skipped(m) || found.containsKey(k)) {
                        continue;
                    }
                    for (AbstractInsnNode in : m.instructions) {
                        if (in instanceof MethodInsnNode) {
                            MethodInsnNode mi = (MethodInsnNode) in;
                            String callee = mi.owner + "." + mi.name + mi.desc;
                            if (level.contains(callee)) {
                                found.put(k, method(c, m, "calls " + mi.owner.replace('/', '.') + "." + mi.name, d));
                                next.add(k);
                                break;
                            }
                        }
                    }
                }
            }
            level = next;
        }
        JsonObject out = new JsonObject();
        JsonArray methods = new JsonArray();
        Set<String> owners = new LinkedHashSet<>();
        for (JsonObject m : found.values()) {
            methods.add(m);
            if (!m.get("static").getAsBoolean()) {
                owners.add(m.get("owner").getAsString().replace('.', '/'));
            }
            for (com.google.gson.JsonElement p : m.getAsJsonArray("params")) {
                owners.add(p.getAsString().replace('.', '/'));
            }
        }
        out.add("methods", methods);
        JsonObject receivers = new JsonObject();
        for (String o : owners) {
            ClassNode c = classes.get(o);
            if (c != null) {
                receivers.add(o.replace('/', '.'), receivers(c, classes));
            }
        }
        out.add("receivers", receivers);
        JsonArray literals = new JsonArray();
        Set<String> seen = new HashSet<>();
        for (com.google.gson.JsonElement n : req.getAsJsonArray("literalClasses")) {
            String name = n.getAsString();
            for (ClassNode c : classes.values()) {
                if (c.name.replace('/', '.').equals(name) || c.name.replace('/', '.').startsWith(name + "$")) {
                    literals(c, name, literals, seen);
                }
            }
        }
        out.add("literals", literals);
        return out;
    }

    /** Adds a method named as {@code pkg.Class.method(type, ...)} with how {@code named by ...}. */
    private static void named(String sig, Map<String, ClassNode> classes, Map<String, JsonObject> found) {
        int paren = sig.indexOf('(');
        int dot = paren < 0 ? -1 : sig.lastIndexOf('.', paren);
        if (dot < 0 || !sig.endsWith(")")) {
            return;
        }
        ClassNode c = classes.get(sig.substring(0, dot).replace('.', '/'));
        String name = sig.substring(dot + 1, paren);
        String inner = sig.substring(paren + 1, sig.length() - 1).trim();
        List<String> params = inner.isEmpty() ? new ArrayList<>() : Arrays.asList(inner.split("\\s*,\\s*"));
        if (c == null) {
            return;
        }
        for (MethodNode m : c.methods) {
            Type[] args = Type.getArgumentTypes(m.desc);
            if (!m.name.equals(name) || args.length != params.size() || skipped(m)) {
                continue;
            }
            boolean same = true;
            for (int i = 0; i < args.length; i++) {
                String a = args[i].getClassName();
                same &= a.equals(params.get(i)) || a.endsWith("." + params.get(i));
            }
            if (same) {
                found.remove(key(c.name, m));
                JsonObject o = method(c, m, "named by the invariant analysis", 0);
                Map<String, JsonObject> rest = new LinkedHashMap<>(found);
                found.clear();
                found.put(key(c.name, m), o);
                found.putAll(rest);
            }
        }
    }

    /** Adds the classes of {@code dir}, a class directory or a jar, to {@code classes} (a missing one adds none). */
    static void load(Path dir, Map<String, ClassNode> classes) throws IOException {
        if (Files.isRegularFile(dir) && dir.toString().endsWith(".jar")) {
            try (ZipFile jar = new ZipFile(dir.toFile())) {
                List<? extends ZipEntry> entries = Collections.list(jar.entries());
                for (ZipEntry e : entries) {
                    if (e.getName().endsWith(".class") && !e.getName().startsWith("META-INF/")) {
                        try (InputStream in = jar.getInputStream(e)) {
                            read(in, classes);
                        }
                    }
                }
            }
            return;
        }
        if (!Files.isDirectory(dir)) {
            return;
        }
        List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.walk(dir)) {
            s.filter(p -> p.toString().endsWith(".class")).sorted().forEach(files::add);
        }
        for (Path p : files) {
            try (InputStream in = Files.newInputStream(p)) {
                read(in, classes);
            }
        }
    }

    private static void read(InputStream in, Map<String, ClassNode> classes) throws IOException {
        try {
            ClassNode c = new ClassNode();
            new ClassReader(in).accept(c, ClassReader.SKIP_FRAMES);
            classes.putIfAbsent(c.name, c);
        } catch (RuntimeException e) {
            // A class file ASM cannot read is not a reset-method's home.
        }
    }

    private static String key(String owner, MethodNode m) {
        return owner + "." + m.name + m.desc;
    }

    /** Constructors, initialisers, abstract, synthetic and test-framework methods are never reset candidates. */
    private static boolean skipped(MethodNode m) {
        if (m.name.startsWith("<") || (m.access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_SYNTHETIC | Opcodes.ACC_BRIDGE
                | Opcodes.ACC_NATIVE)) != 0 || m.instructions.size() == 0) {
            return true;
        }
        if (m.visibleAnnotations != null) {
            for (AnnotationNode a : m.visibleAnnotations) {
                if (a.desc.startsWith("Lorg/junit/")) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Says how a method resets the field itself: {@code putstatic}, {@code mutator NAME} on an object loaded from
     * the field, or {@code writes FIELD} of the object the field holds (an instance method of its class); null when
     * it does not.
     */
    private static String direct(ClassNode c, MethodNode m, String owner, String field, String valueType,
                                 Map<String, ClassNode> classes) {
        boolean own = valueType != null && classes.containsKey(valueType) && isSubclass(c.name, valueType, classes)
                && (m.access & Opcodes.ACC_STATIC) == 0;
        boolean mayFollow = false;
        for (AbstractInsnNode in : m.instructions) {
            if (in.getOpcode() == Opcodes.PUTSTATIC && matches((FieldInsnNode) in, owner, field)) {
                return "putstatic";
            }
            if (in.getOpcode() == Opcodes.GETSTATIC && matches((FieldInsnNode) in, owner, field)) {
                mayFollow = true;
            }
        }
        if (!mayFollow && !own) {
            return null;
        }
        Frame<SourceValue>[] frames;
        try {
            frames = new Analyzer<>(new SourceInterpreter()).analyze(c.name, m);
        } catch (AnalyzerException | RuntimeException e) {
            return null;
        }
        AbstractInsnNode[] insns = m.instructions.toArray();
        for (int i = 0; i < insns.length; i++) {
            AbstractInsnNode in = insns[i];
            Frame<SourceValue> f = frames[i];
            if (f == null) {
                continue;
            }
            if (in instanceof MethodInsnNode && in.getOpcode() != Opcodes.INVOKESTATIC) {
                MethodInsnNode mi = (MethodInsnNode) in;
                if (!mutator(mi.name)) {
                    continue;
                }
                int args = Type.getArgumentTypes(mi.desc).length;
                SourceValue receiver = f.getStack(f.getStackSize() - args - 1);
                if (mayFollow && fromField(receiver, frames, m, owner, field, FOLLOW)) {
                    return "mutator " + mi.name;
                }
                if (own && fromThis(receiver, frames, m, FOLLOW) && !receiverIsThis(receiver)) {
                    return "mutator " + mi.name + " on a field of the held object";
                }
            } else if (own && in.getOpcode() == Opcodes.PUTFIELD) {
                SourceValue target = f.getStack(f.getStackSize() - 2);
                if (fromThis(target, frames, m, 0)) {
                    return "writes " + ((FieldInsnNode) in).name + " of the held object";
                }
            }
        }
        return null;
    }

    private static boolean matches(FieldInsnNode fi, String owner, String field) {
        return fi.owner.equals(owner) && fi.name.equals(field);
    }

    private static boolean isSubclass(String c, String of, Map<String, ClassNode> classes) {
        for (int i = 0; c != null && i < 16; i++) {
            if (c.equals(of)) {
                return true;
            }
            ClassNode n = classes.get(c);
            c = n == null ? null : n.superName;
        }
        return false;
    }

    private static boolean mutator(String name) {
        for (String m : MUTATORS) {
            if (m.endsWith("*") ? name.startsWith(m.substring(0, m.length() - 1)) : name.equals(m)) {
                return true;
            }
        }
        return false;
    }

    /** Reports whether a value may come from the static field, through locals, casts, field reads and calls on it. */
    private static boolean fromField(SourceValue v, Frame<SourceValue>[] frames, MethodNode m, String owner,
                                     String field, int budget) {
        for (AbstractInsnNode src : v.insns) {
            if (src.getOpcode() == Opcodes.GETSTATIC && matches((FieldInsnNode) src, owner, field)) {
                return true;
            }
            if (budget > 0) {
                for (SourceValue up : upstream(src, frames, m)) {
                    if (fromField(up, frames, m, owner, field, budget - 1)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Reports whether a value may be {@code this} or come from it through field reads, casts, getters, locals. */
    private static boolean fromThis(SourceValue v, Frame<SourceValue>[] frames, MethodNode m, int budget) {
        for (AbstractInsnNode src : v.insns) {
            if (src.getOpcode() == Opcodes.ALOAD && ((VarInsnNode) src).var == 0) {
                return true;
            }
            if (budget > 0) {
                for (SourceValue up : upstream(src, frames, m)) {
                    if (fromThis(up, frames, m, budget - 1)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static boolean receiverIsThis(SourceValue v) {
        for (AbstractInsnNode src : v.insns) {
            if (!(src.getOpcode() == Opcodes.ALOAD && ((VarInsnNode) src).var == 0)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The values an instruction's result is derived from in the sense that matters here: a local load's stores, a
     * store's value, a cast's operand, a field read's object, a call's receiver.
     */
    private static List<SourceValue> upstream(AbstractInsnNode src, Frame<SourceValue>[] frames, MethodNode m) {
        List<SourceValue> out = new ArrayList<>();
        int i = m.instructions.indexOf(src);
        Frame<SourceValue> f = frames[i];
        if (f == null) {
            return out;
        }
        switch (src.getOpcode()) {
            case Opcodes.ALOAD:
                if (((VarInsnNode) src).var == 0 && (m.access & Opcodes.ACC_STATIC) == 0) {
                    return out; // this
                }
                break;
            case Opcodes.GETFIELD:
                out.add(f.getStack(f.getStackSize() - 1));
                return out;
            case Opcodes.INVOKEVIRTUAL:
            case Opcodes.INVOKEINTERFACE:
                int args = Type.getArgumentTypes(((MethodInsnNode) src).desc).length;
                out.add(f.getStack(f.getStackSize() - args - 1));
                return out;
            default:
                break;
        }
        SourceValue copied = Values.copied(src, frames, m);
        if (copied != null) {
            out.add(copied);
        }
        return out;
    }

    private static JsonObject method(ClassNode c, MethodNode m, String how, int depth) {
        JsonObject o = new JsonObject();
        o.addProperty("owner", c.name.replace('/', '.'));
        o.addProperty("name", m.name);
        o.addProperty("desc", m.desc);
        o.addProperty("static", (m.access & Opcodes.ACC_STATIC) != 0);
        o.addProperty("access", access(m.access));
        o.addProperty("ownerPublic", (c.access & Opcodes.ACC_PUBLIC) != 0);
        JsonArray params = new JsonArray();
        for (Type t : Type.getArgumentTypes(m.desc)) {
            params.add(t.getClassName());
        }
        o.add("params", params);
        o.addProperty("how", how);
        o.addProperty("depth", depth);
        return o;
    }

    private static String access(int a) {
        if ((a & Opcodes.ACC_PUBLIC) != 0) {
            return "public";
        }
        if ((a & Opcodes.ACC_PRIVATE) != 0) {
            return "private";
        }
        return (a & Opcodes.ACC_PROTECTED) != 0 ? "protected" : "package";
    }

    /**
     * Ways to obtain an instance of a class: its no-argument constructor, static no-argument methods and static
     * fields of the class that return (hold) one.
     */
    private static JsonArray receivers(ClassNode c, Map<String, ClassNode> classes) {
        JsonArray out = new JsonArray();
        String desc = "L" + c.name + ";";
        boolean isAbstract = (c.access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_INTERFACE)) != 0;
        for (MethodNode m : c.methods) {
            boolean isStatic = (m.access & Opcodes.ACC_STATIC) != 0;
            if (isStatic && m.desc.equals("()" + desc) && !m.name.startsWith("<") && (m.access & Opcodes.ACC_SYNTHETIC) == 0) {
                out.add(receiver("static-method", m.name, access(m.access)));
            } else if (!isAbstract && m.name.equals("<init>") && m.desc.equals("()V")) {
                out.add(receiver("new", "", access(m.access)));
            }
        }
        for (FieldNode f : c.fields) {
            if ((f.access & Opcodes.ACC_STATIC) != 0 && f.desc.equals(desc)) {
                out.add(receiver("static-field", f.name, access(f.access)));
            }
        }
        return out;
    }

    private static JsonObject receiver(String kind, String name, String access) {
        JsonObject o = new JsonObject();
        o.addProperty("kind", kind);
        o.addProperty("name", name);
        o.addProperty("access", access);
        return o;
    }

    /** Adds a class's string and integer constants (LDC, BIPUSH, SIPUSH, constant fields). */
    private static void literals(ClassNode c, String from, JsonArray out, Set<String> seen) {
        for (FieldNode f : c.fields) {
            if (f.value != null) {
                literal(f.value, from, out, seen);
            }
        }
        for (MethodNode m : c.methods) {
            for (AbstractInsnNode in : m.instructions) {
                if (in instanceof LdcInsnNode) {
                    literal(((LdcInsnNode) in).cst, from, out, seen);
                } else if (in.getOpcode() == Opcodes.BIPUSH || in.getOpcode() == Opcodes.SIPUSH) {
                    literal(((IntInsnNode) in).operand, from, out, seen);
                }
            }
        }
    }

    private static void literal(Object v, String from, JsonArray out, Set<String> seen) {
        String type;
        if (v instanceof String) {
            type = "string";
        } else if (v instanceof Integer || v instanceof Long) {
            type = v instanceof Long ? "long" : "int";
        } else {
            return;
        }
        if (out.size() >= LITERALS || !seen.add(type + ":" + v)) {
            return;
        }
        JsonObject o = new JsonObject();
        o.addProperty("type", type);
        o.addProperty("value", String.valueOf(v));
        o.addProperty("from", from);
        out.add(o);
    }
}
