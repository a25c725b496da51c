package dev.flaky.agent.state;

import dev.flaky.agent.HookTransformer;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;

import java.security.ProtectionDomain;

/**
 * Makes every selected class call {@link Capture#initialised} when its static initialiser completes (a class without
 * one gets one), so that the capture knows which classes are initialised (reading a static field of a class that is
 * not would initialise it) and what state each starts from. Interfaces, whose fields are constants, are left alone.
 */
final class InitTransformer extends HookTransformer {
    private static final String HOOK_OWNER = Type.getInternalName(Capture.class);
    private static final String HOOK_DESC = "(Ljava/lang/Class;)V";

    private final StateConfig config;

    InitTransformer(StateConfig config) {
        super(Capture.class);
        this.config = config;
    }

    @Override
    protected boolean selects(ClassLoader loader, String name, ProtectionDomain domain) {
        return loader != Types.platformLoader() && config.selects(name);
    }

    @Override
    protected byte[] instrument(byte[] classFile) {
        return rewrite(classFile);
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
}
