package dev.flaky.agent.dataflow;

import dev.flaky.agent.chaos.ClassSelection;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * Instruments project classes (those loaded from a class directory, not a jar; never {@code dev.flaky.*} or generated
 * ones) so that every access to shared state calls {@link Dataflow}: static field reads and writes, field reads and
 * writes of objects, array element loads and stores (not stores into long and double arrays), call sites of
 * {@code java.util} collections and maps (with up to two one-slot arguments), and
 * {@code System.getProperty}/{@code setProperty}/{@code clearProperty}. Static initialisers are left alone: what
 * they write is the class's initial state, not a test's.
 */
final class FlowTransformer implements ClassFileTransformer {
    private static final String HOOK = Type.getInternalName(Dataflow.class);
    private static final Set<String> MUTATORS = new HashSet<>(Arrays.asList("add", "addAll", "put", "putAll",
            "remove", "removeAll", "retainAll", "clear", "set", "offer", "poll", "push", "pop", "putIfAbsent",
            "compute", "computeIfAbsent", "computeIfPresent", "merge", "replace", "replaceAll", "addFirst", "addLast",
            "removeFirst", "removeLast", "offerFirst", "offerLast", "pollFirst", "pollLast", "sort", "removeIf",
            "addElement", "removeElement", "insertElementAt", "setElementAt", "removeAllElements", "take"));
    private static final Set<String> PROPERTY_METHODS = new HashSet<>(Arrays.asList(
            "getProperty(Ljava/lang/String;)Ljava/lang/String;",
            "getProperty(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;",
            "setProperty(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;",
            "clearProperty(Ljava/lang/String;)Ljava/lang/String;"));

    private final Map<ClassLoader, Boolean> seesHook = new WeakHashMap<>();

    @Override
    public byte[] transform(ClassLoader loader, String internalName, Class<?> redefined, ProtectionDomain domain,
            byte[] classFile) {
        if (loader == null || internalName == null || redefined != null) {
            return null;
        }
        String name = internalName.replace('/', '.');
        if (name.startsWith("dev.flaky.") || name.contains("$$") || name.contains("$MockitoMock$")
                || name.contains("$ByteBuddy$") || !ClassSelection.fromDirectory(name, domain) || !seesHook(loader)) {
            return null;
        }
        try {
            return rewrite(classFile);
        } catch (Throwable t) {
            return null;
        }
    }

    /** Adds the hook calls to every method but {@code <clinit>}. */
    static byte[] rewrite(byte[] classFile) {
        ClassReader reader = new ClassReader(classFile);
        if ((reader.getAccess() & Opcodes.ACC_MODULE) != 0) {
            return null;
        }
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                    String[] exceptions) {
                MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
                if ("<clinit>".equals(name) || mv == null) {
                    return mv;
                }
                return new Hooks(mv, "<init>".equals(name));
            }
        }, 0);
        return writer.toByteArray();
    }

    /** Inserts the hook calls around one method's accesses; the stack is left as it was. */
    private static final class Hooks extends MethodVisitor {
        /** A constructor may touch {@code this}'s fields before the super constructor runs: those are left alone. */
        private final boolean constructor;

        Hooks(MethodVisitor mv, boolean constructor) {
            super(Opcodes.ASM9, mv);
            this.constructor = constructor;
        }

        @Override
        public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
            String root = owner.replace('/', '.') + "." + name;
            boolean reference = descriptor.startsWith("L") || descriptor.startsWith("[");
            boolean wide = "J".equals(descriptor) || "D".equals(descriptor);
            switch (opcode) {
                case Opcodes.GETSTATIC:
                    super.visitFieldInsn(opcode, owner, name, descriptor);
                    if (reference) {
                        super.visitInsn(Opcodes.DUP);
                        super.visitLdcInsn(root);
                        hook("getStatic", "(Ljava/lang/Object;Ljava/lang/String;)V");
                    } else {
                        super.visitLdcInsn(root);
                        hook("getStaticPrimitive", "(Ljava/lang/String;)V");
                    }
                    return;
                case Opcodes.PUTSTATIC:
                    if (reference) {
                        super.visitInsn(Opcodes.DUP);
                    } else {
                        super.visitInsn(Opcodes.ACONST_NULL);
                    }
                    super.visitLdcInsn(root);
                    hook("putStatic", "(Ljava/lang/Object;Ljava/lang/String;)V");
                    super.visitFieldInsn(opcode, owner, name, descriptor);
                    return;
                case Opcodes.GETFIELD:
                    super.visitInsn(Opcodes.DUP);
                    hook("readOf", "(Ljava/lang/Object;)V");
                    super.visitFieldInsn(opcode, owner, name, descriptor);
                    if (reference) {
                        super.visitInsn(Opcodes.DUP);
                        hook("derived", "(Ljava/lang/Object;)V");
                    }
                    return;
                case Opcodes.PUTFIELD:
                    if (!constructor) {
                        receiverBelow(wide ? 2 : 1);
                        hook("writeOf", "(Ljava/lang/Object;)V");
                    }
                    super.visitFieldInsn(opcode, owner, name, descriptor);
                    return;
                default:
                    super.visitFieldInsn(opcode, owner, name, descriptor);
            }
        }

        @Override
        public void visitInsn(int opcode) {
            switch (opcode) {
                case Opcodes.IALOAD: case Opcodes.LALOAD: case Opcodes.FALOAD: case Opcodes.DALOAD:
                case Opcodes.AALOAD: case Opcodes.BALOAD: case Opcodes.CALOAD: case Opcodes.SALOAD:
                    receiverBelow(1); // [array, index]
                    hook("readOf", "(Ljava/lang/Object;)V");
                    super.visitInsn(opcode);
                    if (opcode == Opcodes.AALOAD) {
                        super.visitInsn(Opcodes.DUP);
                        hook("derived", "(Ljava/lang/Object;)V");
                    }
                    return;
                case Opcodes.IASTORE: case Opcodes.FASTORE: case Opcodes.AASTORE: case Opcodes.BASTORE:
                case Opcodes.CASTORE: case Opcodes.SASTORE:
                    receiverBelow(2); // [array, index, value]
                    hook("writeOf", "(Ljava/lang/Object;)V");
                    super.visitInsn(opcode);
                    return;
                default:
                    super.visitInsn(opcode);
            }
        }

        @Override
        public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean itf) {
            if (opcode == Opcodes.INVOKESTATIC && "java/lang/System".equals(owner)
                    && PROPERTY_METHODS.contains(name + descriptor)) {
                super.visitMethodInsn(opcode, HOOK, name, descriptor, false);
                return;
            }
            if ((opcode == Opcodes.INVOKEINTERFACE || opcode == Opcodes.INVOKEVIRTUAL) && collection(owner)) {
                Type[] args = Type.getArgumentTypes(descriptor);
                int slots = 0;
                for (Type a : args) {
                    slots += a.getSize();
                }
                if (slots == args.length && args.length <= 2) {
                    receiverBelow(slots);
                    hook(MUTATORS.contains(name) ? "writeOf" : "readOf", "(Ljava/lang/Object;)V");
                    super.visitMethodInsn(opcode, owner, name, descriptor, itf);
                    Type ret = Type.getReturnType(descriptor);
                    if (ret.getSort() == Type.OBJECT || ret.getSort() == Type.ARRAY) {
                        super.visitInsn(Opcodes.DUP);
                        hook("derived", "(Ljava/lang/Object;)V");
                    }
                    return;
                }
            }
            super.visitMethodInsn(opcode, owner, name, descriptor, itf);
        }

        /** Pushes a copy of the object that lies below {@code slots} stack slots (each one-slot, or one two-slot). */
        private void receiverBelow(int slots) {
            switch (slots) {
                case 0:
                    super.visitInsn(Opcodes.DUP);
                    break;
                case 1: // [r, a] -> [r, a, r, a] -> [r, a, r]
                    super.visitInsn(Opcodes.DUP2);
                    super.visitInsn(Opcodes.POP);
                    break;
                default: // [r, a, b] or [r, ab] -> [a, b, r, a, b] -> [a, b, r] -> [r, a, b, r]
                    super.visitInsn(Opcodes.DUP2_X1);
                    super.visitInsn(Opcodes.POP2);
                    super.visitInsn(Opcodes.DUP_X2);
                    break;
            }
        }

        private void hook(String method, String descriptor) {
            super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOK, method, descriptor, false);
        }
    }

    /** Collections and maps of the JDK whose call sites count as reads and writes of their receiver. */
    private static boolean collection(String owner) {
        if (!owner.startsWith("java/util/")) {
            return false;
        }
        String simple = owner.substring(owner.lastIndexOf('/') + 1);
        return simple.endsWith("List") || simple.endsWith("Map") || simple.endsWith("Set")
                || simple.endsWith("Collection") || simple.endsWith("Queue") || simple.endsWith("Deque")
                || "Vector".equals(simple) || "Stack".equals(simple);
    }

    /** Reports whether classes of {@code loader} resolve {@link Dataflow} to the agent's class. */
    private boolean seesHook(ClassLoader loader) {
        synchronized (seesHook) {
            Boolean known = seesHook.get(loader);
            if (known == null) {
                try {
                    known = Class.forName(Dataflow.class.getName(), false, loader) == Dataflow.class;
                } catch (ClassNotFoundException | LinkageError e) {
                    known = false;
                }
                seesHook.put(loader, known);
            }
            return known;
        }
    }
}
