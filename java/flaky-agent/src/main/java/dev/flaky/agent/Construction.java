package dev.flaky.agent;

import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * Makes the constructors of test classes announce themselves: a class the runner names as the next test's
 * ({@link Channel#upcoming}) is retransformed, once, so that each of its constructors first calls
 * {@link Channel#constructing} with the class's name, before its superclass's constructor and its field
 * initialisers run. Test frameworks build the test instance before they report the test started (JUnit 4.12,
 * Jupiter) or long before (JUnit 3 suites); this lets the test-boundary hooks run before that. A class whose loader
 * does not resolve the agent's {@link Channel}, or that cannot be retransformed, is left alone: its hooks run at
 * {@code test-start} as before.
 */
final class Construction implements ClassFileTransformer {
    private static final String HOOK_OWNER = Type.getInternalName(Channel.class);
    private static final String HOOK_NAME = "constructing";
    private static final String HOOK_DESC = "(Ljava/lang/String;)V";

    private static volatile Construction active;

    private final Instrumentation inst;
    /** Classes whose constructors call the hook (or are being rewritten to). Guarded by itself. */
    private final Set<Class<?>> rewritten = Collections.newSetFromMap(new WeakHashMap<Class<?>, Boolean>());

    private Construction(Instrumentation inst) {
        this.inst = inst;
    }

    /** Installs the transformer when the JVM can retransform classes. */
    static void install(Instrumentation inst) {
        if (!inst.isRetransformClassesSupported()) {
            return;
        }
        Construction c = new Construction(inst);
        inst.addTransformer(c, true);
        active = c;
    }

    /** Makes {@code type}'s constructors call {@link Channel#constructing}, unless they already do or cannot. */
    static void watch(Class<?> type) {
        Construction c = active;
        if (c == null || type.isInterface() || type.isArray() || type.isPrimitive() || !sees(type)) {
            return;
        }
        synchronized (c.rewritten) {
            if (!c.rewritten.add(type)) {
                return;
            }
        }
        try {
            c.inst.retransformClasses(type);
        } catch (Throwable t) {
            synchronized (c.rewritten) {
                c.rewritten.remove(type);
            }
        }
    }

    /** Reports whether {@code type}'s loader resolves the hook's class to the agent's. */
    private static boolean sees(Class<?> type) {
        ClassLoader loader = type.getClassLoader();
        if (loader == null) {
            return false;
        }
        try {
            return Class.forName(Channel.class.getName(), false, loader) == Channel.class;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    @Override
    public byte[] transform(ClassLoader loader, String internalName, Class<?> redefined, ProtectionDomain domain,
            byte[] classFile) {
        if (redefined == null) {
            return null;
        }
        synchronized (rewritten) {
            if (!rewritten.contains(redefined)) {
                return null;
            }
        }
        try {
            return rewrite(classFile);
        } catch (Throwable t) {
            return null;
        }
    }

    /** Adds {@code Channel.constructing(name)} at the start of every constructor of the class. */
    static byte[] rewrite(byte[] classFile) {
        ClassReader reader = new ClassReader(classFile);
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        final String name = reader.getClassName().replace('/', '.');
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String method, String descriptor, String signature,
                    String[] exceptions) {
                MethodVisitor mv = super.visitMethod(access, method, descriptor, signature, exceptions);
                if (!"<init>".equals(method)) {
                    return mv;
                }
                return new MethodVisitor(Opcodes.ASM9, mv) {
                    @Override
                    public void visitCode() {
                        super.visitCode();
                        // Before the superclass's constructor: only a constant and a static call, which the
                        // verifier allows while this is uninitialised.
                        super.visitLdcInsn(name);
                        super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOK_OWNER, HOOK_NAME, HOOK_DESC, false);
                    }
                };
            }
        }, 0);
        return writer.toByteArray();
    }
}
