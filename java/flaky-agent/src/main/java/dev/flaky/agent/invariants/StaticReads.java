package dev.flaky.agent.invariants;

import dev.flaky.agent.chaos.ClassSelection;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The static fields of other traced classes that a method reads directly ({@code GETSTATIC} in its own code, as a
 * test reading {@code Config.enabled} without calling a method of {@code Config} does): they become variables of
 * the method's program points, named {@code pkg.Class.field} like the declaring class's own statics. Enum constants
 * and compile-time constants are left out. Reading such a field at the method's entry initialises its class if the
 * method has not yet done so (as its own {@code GETSTATIC} would a little later).
 */
final class StaticReads {
    private final ClassSelection selection;
    /** Per class, {@code name+descriptor} of each method to the owner/name pairs its GETSTATICs read. */
    private final Map<Class<?>, Map<String, Set<String>>> byClass = new HashMap<>();

    StaticReads(ClassSelection selection) {
        this.selection = selection;
    }

    /**
     * The static fields {@code method} (name and descriptor) of {@code type} reads directly, without those of
     * {@code type} itself, constants and fields of classes outside the selection.
     */
    List<Field> of(Class<?> type, String method) {
        Map<String, Set<String>> methods = byClass.get(type);
        if (methods == null) {
            methods = scan(type);
            byClass.put(type, methods);
        }
        Set<String> reads = methods.get(method);
        if (reads == null) {
            return Collections.emptyList();
        }
        List<Field> out = new ArrayList<>();
        for (String read : reads) {
            int slash = read.indexOf(' ');
            Field f = resolve(type.getClassLoader(), read.substring(0, slash).replace('/', '.'), read.substring(slash + 1));
            if (f != null && f.getDeclaringClass() != type) {
                out.add(f);
            }
        }
        return out;
    }

    private Field resolve(ClassLoader loader, String owner, String name) {
        try {
            for (Class<?> c = Class.forName(owner, false, loader); c != null; c = c.getSuperclass()) {
                Field f;
                try {
                    f = c.getDeclaredField(name);
                } catch (NoSuchFieldException e) {
                    continue;
                }
                int m = f.getModifiers();
                if (!Modifier.isStatic(m) || f.isSynthetic() || f.isEnumConstant() || !selection.selects(c.getName(), c.getProtectionDomain())
                        || Modifier.isFinal(m) && (f.getType().isPrimitive() || f.getType() == String.class)) {
                    return null;
                }
                f.setAccessible(true);
                return f;
            }
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            // Unresolvable or inaccessible: left out.
        }
        return null;
    }

    /** Reads the class file of {@code type} and collects each method's GETSTATICs of other classes. */
    private static Map<String, Set<String>> scan(final Class<?> type) {
        final Map<String, Set<String>> out = new HashMap<>();
        ClassLoader loader = type.getClassLoader();
        if (loader == null) {
            return out;
        }
        final String self = type.getName().replace('.', '/');
        byte[] bytes;
        try (InputStream in = loader.getResourceAsStream(self + ".class")) {
            if (in == null) {
                return out;
            }
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            byte[] chunk = new byte[8192];
            for (int n; (n = in.read(chunk)) > 0; ) {
                buf.write(chunk, 0, n);
            }
            bytes = buf.toByteArray();
        } catch (IOException e) {
            return out;
        }
        try {
            new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9) {
                @Override
                public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                        String[] exceptions) {
                    final String key = name + descriptor;
                    return new MethodVisitor(Opcodes.ASM9) {
                        @Override
                        public void visitFieldInsn(int opcode, String owner, String field, String desc) {
                            if (opcode != Opcodes.GETSTATIC || owner.equals(self)) {
                                return;
                            }
                            Set<String> reads = out.get(key);
                            if (reads == null) {
                                reads = new LinkedHashSet<>();
                                out.put(key, reads);
                            }
                            reads.add(owner + " " + field);
                        }
                    };
                }
            }, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        } catch (RuntimeException e) {
            // A class file ASM cannot read: no direct reads.
        }
        return out;
    }
}
