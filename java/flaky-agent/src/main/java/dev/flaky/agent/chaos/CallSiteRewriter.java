package dev.flaky.agent.chaos;

import dev.flaky.agent.chaos.Targets.Kind;
import dev.flaky.agent.chaos.Targets.Target;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.Handle;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;
import net.bytebuddy.pool.TypePool;
import net.bytebuddy.utility.OpenedClassReader;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Rewrites a project class's call sites of target APIs (see {@link Targets}): each matching invocation becomes a
 * static call to the {@link Api} wrapper with the site's id (registered in {@link Sites} with the class, method,
 * source file and the line from the LineNumberTable); {@code new Date()} becomes a factory call; method references
 * to target APIs ({@code System::nanoTime}, compiled to invokedynamic with a LambdaMetafactory method handle) get
 * their handle pointed at a private synthetic bridge method added to the class, which calls the wrapper.
 */
final class CallSiteRewriter {
    private static final String METAFACTORY = "java/lang/invoke/LambdaMetafactory";
    private static final int FLAG_SERIALIZABLE = 1;
    /** Subtype answers for {@code java.*} owners, which are the same in every class loader. */
    private static final Map<String, Boolean> JDK_SUBTYPES = new ConcurrentHashMap<>();

    private CallSiteRewriter() {
    }

    /**
     * Returns {@code classFile} with its call sites of {@code targets} rewritten, or null when it has none.
     * {@code pool} supplies the type pool that answers subtype questions about owners outside {@code java.*}
     * (asked for only when such a call site has a target's name and descriptor).
     */
    static byte[] rewrite(byte[] classFile, Targets targets, Supplier<TypePool> pool) {
        if (rewritten(classFile)) {
            return null;
        }
        ClassReader reader = new ClassReader(classFile);
        ClassWriter writer = new ClassWriter(reader, 0);
        ClassRewriter rewriter = new ClassRewriter(writer, targets, pool);
        reader.accept(rewriter, 0);
        return rewriter.changed ? writer.toByteArray() : null;
    }

    private static final byte[][] API_NAMES = {Targets.API.getBytes(StandardCharsets.UTF_8),
        Targets.TIME_API.getBytes(StandardCharsets.UTF_8), Targets.ASYNC_API.getBytes(StandardCharsets.UTF_8),
        Targets.NET_API.getBytes(StandardCharsets.UTF_8)};

    /**
     * Reports whether a class file already calls the wrappers (its constant pool names {@link Api}, {@link TimeApi},
     * {@link AsyncApi} or {@link NetApi}): bytes that were rewritten before, e.g. handed back by an agent that
     * redefines classes, are not rewritten twice.
     */
    private static boolean rewritten(byte[] classFile) {
        for (byte[] name : API_NAMES) {
            if (contains(classFile, name)) {
                return true;
            }
        }
        return false;
    }

    private static boolean contains(byte[] classFile, byte[] name) {
        outer:
        for (int i = 0, last = classFile.length - name.length; i <= last; i++) {
            for (int j = 0; j < name.length; j++) {
                if (classFile[i + j] != name[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** Rewrites one class; collects the bridges for method references and adds them at the end. */
    static final class ClassRewriter extends ClassVisitor {
        private final Targets targets;
        private final Supplier<TypePool> poolSupplier;
        private final List<Bridge> bridges = new ArrayList<>();
        private TypePool pool;
        private String internalName;
        private String className;
        private String file = "";
        private boolean isInterface;
        /** Whether any call site was rewritten. */
        boolean changed;

        ClassRewriter(ClassVisitor next, Targets targets, Supplier<TypePool> pool) {
            super(OpenedClassReader.ASM_API, next);
            this.targets = targets;
            this.poolSupplier = pool;
        }

        @Override
        public void visit(int version, int access, String name, String signature, String superName,
                String[] interfaces) {
            internalName = name;
            className = name.replace('/', '.');
            isInterface = (access & Opcodes.ACC_INTERFACE) != 0;
            super.visit(version, access, name, signature, superName, interfaces);
        }

        @Override
        public void visitSource(String source, String debug) {
            file = source == null ? "" : source;
            super.visitSource(source, debug);
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                String[] exceptions) {
            MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
            if (mv == null || (access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) {
                return mv;
            }
            return new MethodRewriter(mv, this, name);
        }

        @Override
        public void visitEnd() {
            for (Bridge b : bridges) {
                b.emit(cv);
            }
            super.visitEnd();
        }

        /** Returns the target that an invocation matches, or null. */
        Target match(int opcode, String owner, String name, String desc) {
            List<Target> candidates = targets.lookup(name, desc);
            for (Target t : candidates) {
                boolean opcodeFits = "<init>".equals(name) ? opcode == Opcodes.INVOKESPECIAL
                        : t.isStatic ? opcode == Opcodes.INVOKESTATIC
                        : opcode == Opcodes.INVOKEVIRTUAL || opcode == Opcodes.INVOKEINTERFACE;
                if (opcodeFits && ownerFits(t, owner)) {
                    return t;
                }
            }
            return null;
        }

        private boolean ownerFits(Target t, String owner) {
            if (owner.equals(t.owner)) {
                return true;
            }
            if (t.ownerMatch == Targets.Owner.EXACT || owner.startsWith("[")) {
                return false;
            }
            if ("java/lang/Object".equals(t.owner)) {
                return true;
            }
            if (owner.startsWith("java/")) {
                String key = owner + ' ' + t.owner;
                Boolean known = JDK_SUBTYPES.get(key);
                if (known == null) {
                    known = isJdkSubtype(owner, t.owner);
                    JDK_SUBTYPES.put(key, known);
                }
                return known;
            }
            return t.ownerMatch == Targets.Owner.SUBTYPE && isSubtype(owner, t.owner);
        }

        /**
         * Answers for {@code java.*} owners from the JDK's own classes (only the bootstrap and platform loaders
         * define {@code java.*}, so loading one never loads a project class), the same in every class loader.
         */
        private static boolean isJdkSubtype(String owner, String api) {
            try {
                ClassLoader platform = ClassLoader.getSystemClassLoader().getParent();
                Class<?> type = Class.forName(owner.replace('/', '.'), false, platform);
                return Class.forName(api.replace('/', '.'), false, platform).isAssignableFrom(type);
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        }

        /** Answers for other owners from the class files the class's loader sees, without loading classes. */
        private boolean isSubtype(String owner, String api) {
            if (pool == null) {
                pool = poolSupplier.get();
            }
            try {
                TypePool.Resolution type = pool.describe(owner.replace('/', '.'));
                TypePool.Resolution target = pool.describe(api.replace('/', '.'));
                return type.isResolved() && target.isResolved() && type.resolve().isAssignableTo(target.resolve());
            } catch (RuntimeException unresolvable) {
                return false;
            }
        }

        /**
         * Registers the call site being rewritten (its API named after the call site's owner when in the JDK; a Groovy
         * call site after the clock read it may be).
         */
        int register(Target t, String owner, String name, String desc, String method, int line) {
            boolean jdkOwner = owner.startsWith("java/") || owner.startsWith("javax/");
            String api = (jdkOwner ? owner : t.owner).replace('/', '.') + '#' + name + '(' + params(desc) + ')';
            if (t.owner.equals(Targets.GROOVY_CALL_SITE)) {
                api = name.equals("call") ? "java.lang.System#currentTimeMillis()/nanoTime() (Groovy call site)"
                        : "java.util.Date#<init>() (Groovy call site)";
            }
            changed = true;
            return Sites.register(t.strategy, api, className, method, file, line);
        }

        /** Adds a bridge for a method reference to a target API and returns the handle that replaces it. */
        Handle bridge(Target t, Handle impl, int site) {
            String name = "flaky$chaos$" + bridges.size();
            Bridge b = new Bridge(t, impl, site, internalName, name);
            bridges.add(b);
            changed = true;
            return new Handle(Opcodes.H_INVOKESTATIC, internalName, name, b.desc, isInterface);
        }

        /**
         * Reports whether an invokedynamic is a LambdaMetafactory call with an implementation handle; serializable
         * lambdas are left alone, since deserializing them checks the handle.
         */
        static boolean isMetafactory(Handle bsm, Object[] args) {
            if (!METAFACTORY.equals(bsm.getOwner()) || args.length < 3 || !(args[1] instanceof Handle)) {
                return false;
            }
            if ("metafactory".equals(bsm.getName())) {
                return true;
            }
            return "altMetafactory".equals(bsm.getName()) && args.length > 3 && args[3] instanceof Integer
                    && ((Integer) args[3] & FLAG_SERIALIZABLE) == 0;
        }
    }

    /** Rewrites one method's code. */
    static final class MethodRewriter extends MethodVisitor {
        /** A {@code new T} whose constructor call has not been seen yet. */
        private static final class Allocation {
            final String type;
            boolean duplicated;

            Allocation(String type) {
                this.type = type;
            }
        }

        private static final int NONE = 0;
        private static final int NEW = 1;
        private static final int NEW_DUP = 2;

        private final ClassRewriter cls;
        private final String method;
        private final boolean constructor;
        private final Deque<Allocation> allocations = new ArrayDeque<>();
        private Allocation justAllocated;
        private int line;
        private boolean changed;
        /** A held-back {@code NEW} (and {@code DUP}) of a type that a factory replaces. */
        private int pending = NONE;
        private Target pendingFactory;

        MethodRewriter(MethodVisitor next, ClassRewriter cls, String name) {
            super(OpenedClassReader.ASM_API, next);
            this.cls = cls;
            this.method = reportedName(name);
            this.constructor = "<init>".equals(name);
        }

        /** javac's lambda bodies {@code lambda$name$0} are reported as the method that holds the lambda. */
        static String reportedName(String name) {
            if (name.startsWith("lambda$")) {
                int end = name.lastIndexOf('$');
                if (end > "lambda$".length()) {
                    String enclosing = name.substring("lambda$".length(), end);
                    return "new".equals(enclosing) ? "<init>" : "static".equals(enclosing) ? "<clinit>" : enclosing;
                }
            }
            return name;
        }

        /** Called before every instruction, label or frame: emits a held-back NEW that turned out not to match. */
        private void before() {
            justAllocated = null;
            if (pending != NONE) {
                super.visitTypeInsn(Opcodes.NEW, pendingFactory.owner);
                if (pending == NEW_DUP) {
                    super.visitInsn(Opcodes.DUP);
                }
                pending = NONE;
                pendingFactory = null;
            }
        }

        private void pushSite(int site) {
            super.visitLdcInsn(site);
        }

        private void callApi(Target t) {
            super.visitMethodInsn(Opcodes.INVOKESTATIC, t.api, t.wrapper, t.wrapperDesc, false);
            changed = true;
            cls.changed = true;
        }

        @Override
        public void visitLineNumber(int line, net.bytebuddy.jar.asm.Label start) {
            this.line = line;
            super.visitLineNumber(line, start);
        }

        @Override
        public void visitTypeInsn(int opcode, String type) {
            before();
            if (opcode != Opcodes.NEW) {
                super.visitTypeInsn(opcode, type);
                return;
            }
            Allocation a = new Allocation(type);
            allocations.push(a);
            Target factory = factoryFor(type);
            if (factory != null) {
                pending = NEW;
                pendingFactory = factory;
                return;
            }
            super.visitTypeInsn(opcode, type);
            justAllocated = a;
        }

        private Target factoryFor(String type) {
            for (Target t : cls.targets.lookup("<init>", "()V")) {
                if (t.kind == Kind.FACTORY && t.owner.equals(type)) {
                    return t;
                }
            }
            return null;
        }

        @Override
        public void visitInsn(int opcode) {
            if (opcode == Opcodes.DUP) {
                if (pending == NEW) {
                    pending = NEW_DUP;
                    return;
                }
                if (justAllocated != null) {
                    justAllocated.duplicated = true;
                }
            }
            before();
            super.visitInsn(opcode);
        }

        @Override
        public void visitMethodInsn(int opcode, String owner, String name, String desc, boolean itf) {
            if (pending == NEW_DUP && opcode == Opcodes.INVOKESPECIAL && "<init>".equals(name) && "()V".equals(desc)
                    && owner.equals(pendingFactory.owner)) {
                Target factory = pendingFactory;
                pending = NONE;
                pendingFactory = null;
                allocations.pop();
                pushSite(cls.register(factory, owner, name, desc, method, line));
                callApi(factory);
                return;
            }
            before();
            Allocation created = null;
            if (opcode == Opcodes.INVOKESPECIAL && "<init>".equals(name) && !allocations.isEmpty()
                    && allocations.peek().type.equals(owner)) {
                created = allocations.pop();
            }
            Target t = cls.match(opcode, owner, name, desc);
            if (t == null) {
                super.visitMethodInsn(opcode, owner, name, desc, itf);
                return;
            }
            switch (t.kind) {
                case REPLACE:
                    pushSite(cls.register(t, owner, name, desc, method, line));
                    callApi(t);
                    break;
                case REPLACE_UNREPORTED:
                    callApi(t);
                    break;
                case PROBE:
                    pushSite(cls.register(t, owner, name, desc, method, line));
                    callApi(t);
                    super.visitMethodInsn(opcode, owner, name, desc, itf);
                    break;
                case FILTER_ARG:
                    pushSite(cls.register(t, owner, name, desc, method, line));
                    callApi(t);
                    super.visitMethodInsn(opcode, owner, name, desc, itf);
                    break;
                case FILTER_SECOND_LAST:
                    super.visitInsn(Opcodes.SWAP);
                    pushSite(cls.register(t, owner, name, desc, method, line));
                    callApi(t);
                    super.visitInsn(Opcodes.SWAP);
                    super.visitMethodInsn(opcode, owner, name, desc, itf);
                    break;
                case SEEDED_CONSTRUCTOR:
                    super.visitMethodInsn(opcode, owner, name, desc, itf);
                    if (created != null && created.duplicated) {
                        super.visitInsn(Opcodes.DUP);
                        callApi(t);
                    } else if (created == null && constructor) {
                        // super(seed) or this(seed) in a subclass of Random: "this" is initialized now.
                        super.visitVarInsn(Opcodes.ALOAD, 0);
                        callApi(t);
                    }
                    break;
                default:
                    // A factory target whose NEW was not held back (e.g. not followed by DUP): leave it.
                    super.visitMethodInsn(opcode, owner, name, desc, itf);
            }
        }

        @Override
        public void visitInvokeDynamicInsn(String name, String desc, Handle bsm, Object... args) {
            before();
            if (ClassRewriter.isMetafactory(bsm, args)) {
                Handle impl = (Handle) args[1];
                int opcode = Bridge.opcode(impl.getTag());
                Target t = opcode < 0 ? null : cls.match(opcode, impl.getOwner(), impl.getName(), impl.getDesc());
                if (t != null) {
                    int site = t.kind == Kind.REPLACE_UNREPORTED || t.kind == Kind.SEEDED_CONSTRUCTOR ? -1
                            : cls.register(t, impl.getOwner(), impl.getName(), impl.getDesc(), method, line);
                    Object[] rewritten = args.clone();
                    rewritten[1] = cls.bridge(t, impl, site);
                    changed = true;
                    super.visitInvokeDynamicInsn(name, desc, bsm, rewritten);
                    return;
                }
            }
            super.visitInvokeDynamicInsn(name, desc, bsm, args);
        }

        @Override
        public void visitIntInsn(int opcode, int operand) {
            before();
            super.visitIntInsn(opcode, operand);
        }

        @Override
        public void visitVarInsn(int opcode, int varIndex) {
            before();
            super.visitVarInsn(opcode, varIndex);
        }

        @Override
        public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
            before();
            super.visitFieldInsn(opcode, owner, name, descriptor);
        }

        @Override
        public void visitJumpInsn(int opcode, net.bytebuddy.jar.asm.Label label) {
            before();
            super.visitJumpInsn(opcode, label);
        }

        @Override
        public void visitLabel(net.bytebuddy.jar.asm.Label label) {
            before();
            super.visitLabel(label);
        }

        @Override
        public void visitLdcInsn(Object value) {
            before();
            super.visitLdcInsn(value);
        }

        @Override
        public void visitIincInsn(int varIndex, int increment) {
            before();
            super.visitIincInsn(varIndex, increment);
        }

        @Override
        public void visitTableSwitchInsn(int min, int max, net.bytebuddy.jar.asm.Label dflt,
                net.bytebuddy.jar.asm.Label... labels) {
            before();
            super.visitTableSwitchInsn(min, max, dflt, labels);
        }

        @Override
        public void visitLookupSwitchInsn(net.bytebuddy.jar.asm.Label dflt, int[] keys,
                net.bytebuddy.jar.asm.Label[] labels) {
            before();
            super.visitLookupSwitchInsn(dflt, keys, labels);
        }

        @Override
        public void visitMultiANewArrayInsn(String descriptor, int numDimensions) {
            before();
            super.visitMultiANewArrayInsn(descriptor, numDimensions);
        }

        @Override
        public net.bytebuddy.jar.asm.AnnotationVisitor visitInsnAnnotation(int typeRef,
                net.bytebuddy.jar.asm.TypePath typePath, String descriptor, boolean visible) {
            before();
            return super.visitInsnAnnotation(typeRef, typePath, descriptor, visible);
        }

        @Override
        public void visitFrame(int type, int numLocal, Object[] local, int numStack, Object[] stack) {
            before();
            super.visitFrame(type, numLocal, local, numStack, stack);
        }

        @Override
        public void visitTryCatchBlock(net.bytebuddy.jar.asm.Label start, net.bytebuddy.jar.asm.Label end,
                net.bytebuddy.jar.asm.Label handler, String type) {
            before();
            super.visitTryCatchBlock(start, end, handler, type);
        }

        @Override
        public void visitMaxs(int maxStack, int maxLocals) {
            before();
            // A pushed site id or a DUP of a new instance needs at most one more slot than the original code.
            super.visitMaxs(changed ? maxStack + 2 : maxStack, maxLocals);
        }
    }

    /** A private static synthetic method that a rewritten method reference calls instead of the target API. */
    static final class Bridge {
        private final Target target;
        private final Handle impl;
        private final int site;
        private final String name;
        final String desc;

        Bridge(Target target, Handle impl, int site, String owner, String name) {
            this.target = target;
            this.impl = impl;
            this.site = site;
            this.name = name;
            String implDesc = impl.getDesc();
            switch (impl.getTag()) {
                case Opcodes.H_INVOKESTATIC:
                    desc = implDesc;
                    break;
                case Opcodes.H_NEWINVOKESPECIAL:
                    desc = implDesc.substring(0, implDesc.indexOf(')') + 1) + "L" + impl.getOwner() + ";";
                    break;
                default:
                    desc = "(L" + impl.getOwner() + ";" + implDesc.substring(1);
            }
        }

        /** The invocation opcode of a method handle kind; -1 for kinds that are never rewritten. */
        static int opcode(int tag) {
            switch (tag) {
                case Opcodes.H_INVOKESTATIC:
                    return Opcodes.INVOKESTATIC;
                case Opcodes.H_INVOKEVIRTUAL:
                    return Opcodes.INVOKEVIRTUAL;
                case Opcodes.H_INVOKEINTERFACE:
                    return Opcodes.INVOKEINTERFACE;
                case Opcodes.H_NEWINVOKESPECIAL:
                    return Opcodes.INVOKESPECIAL;
                default:
                    return -1;
            }
        }

        void emit(ClassVisitor cv) {
            MethodVisitor mv = cv.visitMethod(Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC | Opcodes.ACC_SYNTHETIC,
                    name, desc, null, null);
            mv.visitCode();
            boolean constructs = impl.getTag() == Opcodes.H_NEWINVOKESPECIAL;
            Kind kind = target.kind;
            if (kind == Kind.PROBE) {
                mv.visitLdcInsn(site);
                mv.visitMethodInsn(Opcodes.INVOKESTATIC, target.api, target.wrapper, target.wrapperDesc, false);
            }
            if (constructs && kind != Kind.FACTORY) {
                mv.visitTypeInsn(Opcodes.NEW, impl.getOwner());
                mv.visitInsn(Opcodes.DUP);
            }
            int slot = 0;
            for (Type p : Type.getArgumentTypes(desc)) {
                mv.visitVarInsn(p.getOpcode(Opcodes.ILOAD), slot);
                slot += p.getSize();
            }
            switch (kind) {
                case REPLACE:
                case FACTORY:
                    mv.visitLdcInsn(site);
                    mv.visitMethodInsn(Opcodes.INVOKESTATIC, target.api, target.wrapper, target.wrapperDesc, false);
                    break;
                case REPLACE_UNREPORTED:
                    mv.visitMethodInsn(Opcodes.INVOKESTATIC, target.api, target.wrapper, target.wrapperDesc, false);
                    break;
                case FILTER_ARG:
                    mv.visitLdcInsn(site);
                    mv.visitMethodInsn(Opcodes.INVOKESTATIC, target.api, target.wrapper, target.wrapperDesc, false);
                    invokeOriginal(mv);
                    break;
                case SEEDED_CONSTRUCTOR:
                    invokeOriginal(mv);
                    mv.visitInsn(Opcodes.DUP);
                    mv.visitMethodInsn(Opcodes.INVOKESTATIC, target.api, target.wrapper, target.wrapperDesc, false);
                    break;
                default:
                    invokeOriginal(mv);
            }
            mv.visitInsn(Type.getReturnType(desc).getOpcode(Opcodes.IRETURN));
            mv.visitMaxs(slot + 4, slot);
            mv.visitEnd();
        }

        private void invokeOriginal(MethodVisitor mv) {
            int opcode = opcode(impl.getTag());
            String owner = impl.getOwner();
            if (opcode == Opcodes.INVOKESPECIAL) {
                mv.visitMethodInsn(opcode, owner, "<init>", impl.getDesc(), false);
            } else {
                mv.visitMethodInsn(opcode, owner, impl.getName(), impl.getDesc(), impl.isInterface());
            }
        }
    }

    /** Simple names of a descriptor's parameter types, comma-separated: {@code long,TimeUnit}. */
    static String params(String desc) {
        StringBuilder b = new StringBuilder();
        for (Type t : Type.getArgumentTypes(desc)) {
            if (b.length() > 0) {
                b.append(',');
            }
            String n = t.getClassName();
            b.append(n.substring(n.lastIndexOf('.') + 1).replace('$', '.'));
        }
        return b.toString();
    }
}
