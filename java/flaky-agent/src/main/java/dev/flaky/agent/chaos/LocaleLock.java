package dev.flaky.agent.chaos;

import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;
import net.bytebuddy.utility.OpenedClassReader;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.security.ProtectionDomain;
import java.util.Locale;

/**
 * LOCALE changes the callee: the JVM's default locale (every category) becomes the configured one, and
 * {@code java.util.Locale}'s static {@code setDefault} methods are retransformed into no-ops, so
 * {@code Locale.getDefault()} and {@code getDefault(Category)} return the configured locale for the rest of the
 * run, to project and JDK code alike ({@code String.toUpperCase()} included), and at no cost per call. The
 * transformer stays registered, so a later retransformation of Locale (by another agent) keeps the change.
 */
final class LocaleLock implements ClassFileTransformer {
    private static final String LOCALE = "java/util/Locale";

    private LocaleLock() {
    }

    static void install(Locale locale, Instrumentation inst) {
        Locale.setDefault(locale);
        inst.addTransformer(new LocaleLock(), true);
        try {
            inst.retransformClasses(Locale.class);
        } catch (UnmodifiableClassException | RuntimeException e) {
            CallSiteTransformer.warn("chaos: cannot lock the default locale, a program may still change it: " + e);
        }
    }

    @Override
    public byte[] transform(ClassLoader loader, String internalName, Class<?> redefined, ProtectionDomain domain,
            byte[] classFile) {
        if (loader != null || !LOCALE.equals(internalName)) {
            return null;
        }
        ClassReader reader = new ClassReader(classFile);
        ClassWriter writer = new ClassWriter(reader, 0);
        reader.accept(new ClassVisitor(OpenedClassReader.ASM_API, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                    String[] exceptions) {
                MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
                boolean setter = "setDefault".equals(name) && (access & Opcodes.ACC_STATIC) != 0;
                return setter ? new EmptyBody(mv, descriptor) : mv;
            }
        }, 0);
        return writer.toByteArray();
    }

    /** Keeps a method's declaration and annotations but replaces its code by a plain {@code return}. */
    private static final class EmptyBody extends MethodVisitor {
        private final MethodVisitor target;
        private final int argumentSlots;
        private boolean ended;

        EmptyBody(MethodVisitor target, String descriptor) {
            // Only the events before the code reach the target; the code is replaced in visitCode.
            super(OpenedClassReader.ASM_API, null);
            this.target = target;
            this.argumentSlots = Type.getArgumentsAndReturnSizes(descriptor) >> 2;
        }

        @Override
        public void visitParameter(String name, int access) {
            target.visitParameter(name, access);
        }

        @Override
        public net.bytebuddy.jar.asm.AnnotationVisitor visitAnnotation(String descriptor, boolean visible) {
            return target.visitAnnotation(descriptor, visible);
        }

        @Override
        public void visitCode() {
            target.visitCode();
            target.visitInsn(Opcodes.RETURN);
            // Static: the argument slots hold exactly the arguments (the size includes no "this").
            target.visitMaxs(0, argumentSlots - 1);
            target.visitEnd();
            ended = true;
        }

        @Override
        public void visitEnd() {
            if (!ended) {
                target.visitEnd();
            }
        }
    }
}
