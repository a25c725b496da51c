package dev.flaky.agent.chaos;

import dev.flaky.agent.Channel;
import dev.flaky.boot.IterationHook;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.utility.OpenedClassReader;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;

/**
 * {@code chaos.iteration.scope=all} (NonDex parity): retransforms the JDK's own hash iteration so that
 * {@code HashMap}, {@code HashSet} and {@code ConcurrentHashMap} iterate in another order for every caller, the
 * JDK's and libraries' included (a JSON serialiser walking a map). Each bucket read of HashMap's iterators, forEach
 * loops and spliterators and of ConcurrentHashMap's traverser goes through {@link IterationHook}, which the agent
 * loads through the bootstrap class loader. When an iteration over entries in two or more buckets begins during a
 * test, the first project frame on the stack is reported as the call site.
 */
final class IterationAll implements ClassFileTransformer {
    private static final String HOOK = "dev/flaky/boot/IterationHook";
    /** Per rewritten JDK class, the methods whose table reads go through the hook. */
    private static final Map<String, List<String>> METHODS = new HashMap<>();
    private static final String CHM_TRAVERSER = "java/util/concurrent/ConcurrentHashMap$Traverser";
    /** Stack walks per test at most: the first iterations of each test are the ones reported. */
    private static final int WALKS_PER_TEST = 20_000;

    static {
        List<String> loops = Arrays.asList("forEach", "tryAdvance", "forEachRemaining");
        METHODS.put("java/util/HashMap$HashIterator", Arrays.asList("<init>", "nextNode"));
        METHODS.put("java/util/HashMap", Arrays.asList("forEach"));
        for (String view : new String[] {"KeySet", "Values", "EntrySet", "KeySpliterator", "ValueSpliterator",
            "EntrySpliterator"}) {
            METHODS.put("java/util/HashMap$" + view, loops);
        }
        METHODS.put(CHM_TRAVERSER, Arrays.asList("advance"));
    }

    private final Set<String> projectClasses;
    private int epoch = -1;
    private int walks;

    private IterationAll(Set<String> projectClasses) {
        this.projectClasses = projectClasses;
    }

    /**
     * Puts the hook on the bootstrap class path, rewrites the JDK classes (now and when they load later) and starts
     * reporting; {@code projectClasses} are the binary names of the instrumented classes, filled as they load.
     */
    static void install(Instrumentation inst, Set<String> projectClasses) throws IOException {
        inst.appendToBootstrapClassLoaderSearch(new JarFile(hookJar()));
        IterationAll transformer = new IterationAll(projectClasses);
        inst.addTransformer(transformer, true);
        List<Class<?>> loaded = new ArrayList<>();
        for (String name : METHODS.keySet()) {
            try {
                loaded.add(Class.forName(name.replace('/', '.'), false, null));
            } catch (ClassNotFoundException notLoadedOrAbsent) {
                // Rewritten when it loads, if this JDK has it.
            }
        }
        try {
            inst.retransformClasses(loaded.toArray(new Class<?>[0]));
        } catch (Exception | LinkageError e) {
            inst.removeTransformer(transformer);
            throw new IOException("cannot rewrite the JDK's hash iteration: " + e, e);
        }
        IterationHook.observer = transformer::observe;
    }

    /** Writes a jar holding the hook class (copied from the agent jar) into a temporary file. */
    private static File hookJar() throws IOException {
        File jar = File.createTempFile("flaky-boot", ".jar");
        jar.deleteOnExit();
        try (InputStream in = IterationAll.class.getClassLoader().getResourceAsStream(HOOK + ".class");
             JarOutputStream out = new JarOutputStream(new FileOutputStream(jar))) {
            if (in == null) {
                throw new IOException(HOOK + ".class is missing from the agent jar");
            }
            out.putNextEntry(new JarEntry(HOOK + ".class"));
            byte[] buf = new byte[8192];
            for (int n; (n = in.read(buf)) > 0; ) {
                out.write(buf, 0, n);
            }
            out.closeEntry();
        }
        return jar;
    }

    /** Reports the first project frame of an iteration that the reversal changes (entries in two buckets). */
    private void observe(Object[] table) {
        int occupied = 0;
        for (int i = 0; i < table.length && occupied < 2; i++) {
            if (table[i] != null) {
                occupied++;
            }
        }
        if (occupied < 2) {
            return;
        }
        synchronized (this) {
            int e = Channel.testEpoch();
            if (e != epoch) {
                epoch = e;
                walks = 0;
            }
            if (walks++ >= WALKS_PER_TEST) {
                return;
            }
        }
        StackTraceElement[] stack = new Throwable().getStackTrace();
        boolean concurrent = false;
        for (StackTraceElement f : stack) {
            concurrent |= f.getClassName().startsWith("java.util.concurrent.ConcurrentHashMap");
            if (projectClasses.contains(f.getClassName())) {
                String api = concurrent ? "java.util.concurrent.ConcurrentHashMap#iteration"
                        : "java.util.HashMap#iteration";
                String method = CallSiteRewriter.MethodRewriter.reportedName(f.getMethodName());
                int id = Sites.register(Strategy.ITERATION_ORDER, api, f.getClassName(), method,
                        f.getFileName() == null ? "" : f.getFileName(), Math.max(0, f.getLineNumber()));
                Sites.hit(id);
                return;
            }
        }
    }

    @Override
    public byte[] transform(ClassLoader loader, String internalName, Class<?> redefined, ProtectionDomain domain,
            byte[] classFile) {
        List<String> methods = loader == null ? METHODS.get(internalName) : null;
        if (methods == null) {
            return null;
        }
        try {
            ClassReader reader = new ClassReader(classFile);
            ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
            boolean traverser = CHM_TRAVERSER.equals(internalName);
            reader.accept(new ClassVisitor(OpenedClassReader.ASM_API, writer) {
                @Override
                public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                        String[] exceptions) {
                    MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
                    if (!methods.contains(name)) {
                        return mv;
                    }
                    return traverser ? new BinReads(mv) : new BucketReads(mv);
                }
            }, 0);
            return writer.toByteArray();
        } catch (RuntimeException e) {
            CallSiteTransformer.warn("chaos: cannot rewrite " + internalName + ", its iteration stays as it is: " + e);
            return null;
        }
    }

    /** Every {@code table[i]} read ({@code AALOAD}) becomes {@code table[IterationHook.bucket(table, i)]}. */
    private static final class BucketReads extends MethodVisitor {
        BucketReads(MethodVisitor next) {
            super(OpenedClassReader.ASM_API, next);
        }

        @Override
        public void visitInsn(int opcode) {
            if (opcode == Opcodes.AALOAD) {
                // [table, i] -> [table, table, i] -> [table, bucket]
                super.visitInsn(Opcodes.DUP2);
                super.visitInsn(Opcodes.POP);
                super.visitInsn(Opcodes.SWAP);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOK, "bucket", "([Ljava/lang/Object;I)I", false);
            }
            super.visitInsn(opcode);
        }
    }

    /**
     * In ConcurrentHashMap's traverser every {@code tabAt(tab, i)} call gets {@code IterationHook.bin(tab, i,
     * baseSize)} as its index.
     */
    private static final class BinReads extends MethodVisitor {
        BinReads(MethodVisitor next) {
            super(OpenedClassReader.ASM_API, next);
        }

        @Override
        public void visitMethodInsn(int opcode, String owner, String name, String desc, boolean itf) {
            if (opcode == Opcodes.INVOKESTATIC && "tabAt".equals(name)
                    && "java/util/concurrent/ConcurrentHashMap".equals(owner)) {
                // [tab, i] -> [tab, tab, i] -> [tab, tab, i, baseSize] -> [tab, bin]
                super.visitInsn(Opcodes.DUP2);
                super.visitInsn(Opcodes.POP);
                super.visitInsn(Opcodes.SWAP);
                super.visitVarInsn(Opcodes.ALOAD, 0);
                super.visitFieldInsn(Opcodes.GETFIELD, CHM_TRAVERSER, "baseSize", "I");
                super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOK, "bin", "([Ljava/lang/Object;II)I", false);
            }
            super.visitMethodInsn(opcode, owner, name, desc, itf);
        }
    }
}
