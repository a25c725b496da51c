package dev.flaky.agent.state;

import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Makes every selected class call {@link Capture#initialised} when its static initialiser completes (a class without
 * one gets one), so that the capture knows which classes are initialised (reading a static field of a class that is
 * not would initialise it) and what state each starts from. Interfaces, whose fields are constants, are left alone.
 */
final class InitTransformer implements ClassFileTransformer {
    private static final String HOOK_OWNER = Type.getInternalName(Capture.class);
    private static final String HOOK_DESC = "(Ljava/lang/Class;)V";

    private final StateConfig config;
    private final Map<ClassLoader, Boolean> seesHook = new WeakHashMap<>();

    InitTransformer(StateConfig config) {
        this.config = config;
    }

    @Override
    public byte[] transform(ClassLoader loader, String internalName, Class<?> redefined, ProtectionDomain domain,
            byte[] classFile) {
        if (loader == null || internalName == null || redefined != null || loader == Types.platformLoader()) {
            return null;
        }
        if (!config.selects(internalName.replace('/', '.')) || !seesHook(loader)) {
            return null;
        }
        try {
            return rewrite(classFile);
        } catch (Throwable t) {
            return null;
        }
    }

    /** Adds the hook call before each return of {@code <clinit>}, or a {@code <clinit>} that only calls it. */
    static byte[] rewrite(byte[] classFile) {
        ClassReader reader = new ClassReader(classFile);
        if ((reader.getAccess() & (Opcodes.ACC_INTERFACE | Opcodes.ACC_MODULE)) != 0) {
            return null;
        }
        int version = readVersion(classFile);
        if (version < Opcodes.V1_5) {
            return null;
        }
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        final String owner = reader.getClassName();
        final boolean[] hasInit = {false};
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                    String[] exceptions) {
                MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
                if (!"<clinit>".equals(name)) {
                    return mv;
                }
                hasInit[0] = true;
                return new MethodVisitor(Opcodes.ASM9, mv) {
                    @Override
                    public void visitInsn(int opcode) {
                        if (opcode == Opcodes.RETURN) {
                            hook(this, owner);
                        }
                        super.visitInsn(opcode);
                    }
                };
            }

            @Override
            public void visitEnd() {
                if (!hasInit[0]) {
                    MethodVisitor mv = super.visitMethod(Opcodes.ACC_STATIC, "<clinit>", "()V", null, null);
                    mv.visitCode();
                    hook(mv, owner);
                    mv.visitInsn(Opcodes.RETURN);
                    mv.visitMaxs(1, 0);
                    mv.visitEnd();
                }
                super.visitEnd();
            }
        }, 0);
        return writer.toByteArray();
    }

    private static void hook(MethodVisitor mv, String owner) {
        mv.visitLdcInsn(Type.getObjectType(owner));
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, HOOK_OWNER, "initialised", HOOK_DESC, false);
    }

    private static int readVersion(byte[] classFile) {
        return ((classFile[6] & 0xff) << 8) | (classFile[7] & 0xff);
    }

    /** Reports whether classes of {@code loader} resolve {@link Capture} to the agent's class. */
    private boolean seesHook(ClassLoader loader) {
        synchronized (seesHook) {
            Boolean known = seesHook.get(loader);
            if (known == null) {
                try {
                    known = Class.forName(Capture.class.getName(), false, loader) == Capture.class;
                } catch (ClassNotFoundException | LinkageError e) {
                    known = false;
                }
                seesHook.put(loader, known);
            }
            return known;
        }
    }
}
