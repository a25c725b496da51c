package dev.flaky.agent.dataflow;

import dev.flaky.agent.HookTransformer;
import dev.flaky.agent.chaos.ClassSelection;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;

import java.security.ProtectionDomain;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * Instruments project classes (those loaded from a class directory, not a jar; never {@code dev.flaky.*} or generated
 * ones) so that every access to shared state calls {@link Dataflow}: static field reads and writes, field reads and
 * writes of objects, array element loads and stores (not stores into long and double arrays), call sites of
 * {@code java.util} collections and maps (with up to two one-slot arguments), and
 * {@code System.getProperty}/{@code setProperty}/{@code clearProperty}, calls that set the default locale or time
 * zone and those that read them (without a locale or zone argument: {@code String.format}, the {@code java.text}
 * formats, {@code Calendar.getInstance}, {@code java.time}'s {@code now()}, ...), and calls that read a file of the
 * working or temporary directory ({@code File.exists}, {@code Files.readAllBytes}, {@code new FileInputStream}, ...)
 * or create, write or delete one ({@code File.createNewFile}, {@code File.delete}, {@code Files.write},
 * {@code new FileOutputStream}, ...). Static initialisers are left alone: what they write is the class's initial
 * state, not a test's. Every other method and constructor also marks, on entry, that it and its class ran (see
 * {@link Dataflow#entered(int)}; an anonymous or local class's methods count as the method that declares it, a
 * lambda's as its enclosing method).
 */
final class FlowTransformer extends HookTransformer {
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

    /** Calls that read the default locale when they are passed no locale ({@code owner.name}). */
    private static final Set<String> LOCALE_READERS = new HashSet<>(Arrays.asList("java/util/Locale.getDefault",
            "java/lang/String.format", "java/lang/String.toUpperCase", "java/lang/String.toLowerCase",
            "java/text/NumberFormat.getInstance", "java/text/NumberFormat.getNumberInstance",
            "java/text/NumberFormat.getIntegerInstance", "java/text/NumberFormat.getCurrencyInstance",
            "java/text/NumberFormat.getPercentInstance", "java/text/DecimalFormat.<init>",
            "java/text/DecimalFormatSymbols.<init>", "java/text/SimpleDateFormat.<init>",
            "java/text/DateFormat.getInstance", "java/text/DateFormat.getDateInstance",
            "java/text/DateFormat.getTimeInstance", "java/text/DateFormat.getDateTimeInstance",
            "java/util/Calendar.getInstance", "java/util/GregorianCalendar.<init>", "java/util/Formatter.<init>",
            "java/io/PrintStream.printf", "java/io/PrintStream.format", "java/io/PrintWriter.printf",
            "java/io/PrintWriter.format", "java/time/format/DateTimeFormatter.ofPattern"));
    /** Calls that read the default time zone when they are passed no zone, time zone or clock. */
    private static final Set<String> ZONE_READERS = new HashSet<>(Arrays.asList("java/util/TimeZone.getDefault",
            "java/util/Calendar.getInstance", "java/util/GregorianCalendar.<init>", "java/util/Date.toString",
            "java/text/SimpleDateFormat.<init>", "java/text/DateFormat.getInstance",
            "java/text/DateFormat.getDateInstance", "java/text/DateFormat.getTimeInstance",
            "java/text/DateFormat.getDateTimeInstance", "java/time/ZoneId.systemDefault",
            "java/time/Clock.systemDefaultZone", "java/time/LocalDate.now", "java/time/LocalTime.now",
            "java/time/LocalDateTime.now", "java/time/ZonedDateTime.now", "java/time/OffsetDateTime.now",
            "java/time/Year.now", "java/time/YearMonth.now", "java/time/MonthDay.now"));
    /** Calls that read a file: {@code java.io.File}'s on their receiver, the others on their first argument. */
    private static final Set<String> FILE_READERS = new HashSet<>(Arrays.asList("java/io/File.exists",
            "java/io/File.isFile", "java/io/File.isDirectory", "java/io/File.length", "java/io/File.lastModified",
            "java/io/File.list", "java/io/File.listFiles", "java/io/File.canRead", "java/nio/file/Files.exists",
            "java/nio/file/Files.notExists", "java/nio/file/Files.isRegularFile", "java/nio/file/Files.isDirectory",
            "java/nio/file/Files.isReadable", "java/nio/file/Files.size", "java/nio/file/Files.readAllBytes",
            "java/nio/file/Files.readAllLines", "java/nio/file/Files.readString", "java/nio/file/Files.lines",
            "java/nio/file/Files.newBufferedReader", "java/nio/file/Files.newInputStream",
            "java/nio/file/Files.getLastModifiedTime", "java/nio/file/Files.list",
            "java/nio/file/Files.newDirectoryStream", "java/io/FileInputStream.<init>", "java/io/FileReader.<init>"));
    /** Calls that create, write or delete a file (receiver or first argument, as for FILE_READERS). */
    private static final Set<String> FILE_WRITERS = new HashSet<>(Arrays.asList("java/io/File.createNewFile",
            "java/io/File.delete", "java/io/File.mkdir", "java/io/File.mkdirs", "java/io/File.renameTo",
            "java/io/File.setLastModified", "java/nio/file/Files.write", "java/nio/file/Files.writeString",
            "java/nio/file/Files.createFile", "java/nio/file/Files.createDirectory",
            "java/nio/file/Files.createDirectories", "java/nio/file/Files.delete",
            "java/nio/file/Files.deleteIfExists", "java/nio/file/Files.newOutputStream",
            "java/nio/file/Files.newBufferedWriter", "java/nio/file/Files.setLastModifiedTime",
            "java/io/FileOutputStream.<init>", "java/io/FileWriter.<init>", "java/io/PrintWriter.<init>",
            "java/io/PrintStream.<init>"));
    /** Roots of the JDK defaults, as the state capture names them. */
    static final String LOCALE = "Locale.default", ZONE = "TimeZone.default";

    FlowTransformer() {
        super(Dataflow.class);
    }

    @Override
    protected boolean selects(ClassLoader loader, String name, ProtectionDomain domain) {
        return !name.startsWith("dev.flaky.") && !name.contains("$$") && !name.contains("$MockitoMock$")
                && !name.contains("$ByteBuddy$") && ClassSelection.fromDirectory(name, domain);
    }

    @Override
    protected byte[] instrument(byte[] classFile) {
        return rewrite(classFile);
    }

    /** Adds the hook calls to every method but {@code <clinit>}. */
    static byte[] rewrite(byte[] classFile) {
        ClassReader reader = new ClassReader(classFile);
        if ((reader.getAccess() & Opcodes.ACC_MODULE) != 0) {
            return null;
        }
        String className = reader.getClassName().replace('/', '.');
        int index = Dataflow.classIndex(className);
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            /** The EnclosingMethod attribute comes before the methods: an anonymous or local class's code is its declarer's. */
            @Override
            public void visitOuterClass(String owner, String name, String descriptor) {
                Dataflow.enclose(className, owner.replace('/', '.'), name);
                super.visitOuterClass(owner, name, descriptor);
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                    String[] exceptions) {
                MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
                if ("<clinit>".equals(name) || mv == null) {
                    return mv;
                }
                return new Hooks(mv, "<init>".equals(name), Dataflow.methodIndex(index, className, name));
            }
        }, 0);
        return writer.toByteArray();
    }

    /** Inserts the hook calls around one method's accesses; the stack is left as it was. */
    private static final class Hooks extends MethodVisitor {
        /** A constructor may touch {@code this}'s fields before the super constructor runs: those are left alone. */
        private final boolean constructor;
        /** The index of the method's key in {@link Dataflow}'s method registry. */
        private final int index;

        Hooks(MethodVisitor mv, boolean constructor, int index) {
            super(Opcodes.ASM9, mv);
            this.constructor = constructor;
            this.index = index;
        }

        /**
         * Marks on entry that the method and its class ran (legal before a constructor's super call: it uses no
         * {@code this}).
         */
        @Override
        public void visitCode() {
            super.visitCode();
            super.visitLdcInsn(index);
            hook("entered", "(I)V");
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
            String call = owner + "." + name;
            Type[] args = Type.getArgumentTypes(descriptor);
            defaults(call, args);
            file(opcode, call, args);
            if (opcode == Opcodes.INVOKESTATIC && "java/lang/System".equals(owner)
                    && PROPERTY_METHODS.contains(name + descriptor)) {
                super.visitMethodInsn(opcode, HOOK, name, descriptor, false);
                return;
            }
            if ((opcode == Opcodes.INVOKEINTERFACE || opcode == Opcodes.INVOKEVIRTUAL) && collection(owner)) {
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

        /** Calls the hooks of the JDK defaults that {@code call} sets or reads. */
        private void defaults(String call, Type[] args) {
            if ("java/util/Locale.setDefault".equals(call) || "java/util/TimeZone.setDefault".equals(call)) {
                super.visitLdcInsn(call.startsWith("java/util/Locale") ? LOCALE : ZONE);
                hook("writeDefault", "(Ljava/lang/String;)V");
                return;
            }
            if (LOCALE_READERS.contains(call) && !passes(args, "java/util/Locale")) {
                super.visitLdcInsn(LOCALE);
                hook("readDefault", "(Ljava/lang/String;)V");
            }
            if (ZONE_READERS.contains(call) && !passes(args, "java/util/TimeZone", "java/time/ZoneId", "java/time/Clock")) {
                super.visitLdcInsn(ZONE);
                hook("readDefault", "(Ljava/lang/String;)V");
            }
        }

        /**
         * Calls the file hook with a copy of the file {@code call} reads or writes: the receiver of a
         * {@code java.io.File} method, else the first argument when it is a name, file or path and at most two stack
         * slots lie above it.
         */
        private void file(int opcode, String call, Type[] args) {
            boolean read = FILE_READERS.contains(call);
            if (!read && !FILE_WRITERS.contains(call)) {
                return;
            }
            int first = opcode == Opcodes.INVOKEVIRTUAL ? -1 : 0;
            if (first == 0) {
                String type = args.length == 0 ? "" : args[0].getDescriptor();
                if (!"Ljava/lang/String;".equals(type) && !"Ljava/io/File;".equals(type)
                        && !"Ljava/nio/file/Path;".equals(type)) {
                    return;
                }
            }
            int above = 0;
            for (int i = first + 1; i < args.length; i++) {
                above += args[i].getSize();
            }
            if (above > 2) {
                return;
            }
            receiverBelow(above);
            hook(read ? "readFile" : "writeFile", "(Ljava/lang/Object;)V");
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

    /** Reports whether a call with {@code args} passes an argument of one of {@code types} (internal names). */
    private static boolean passes(Type[] args, String... types) {
        for (Type a : args) {
            for (String t : types) {
                if (a.getSort() == Type.OBJECT && a.getInternalName().equals(t)) {
                    return true;
                }
            }
        }
        return false;
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
}
