package dev.flaky.editor.bytecode;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.IntInsnNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TypeInsnNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.Frame;
import org.objectweb.asm.tree.analysis.SourceInterpreter;
import org.objectweb.asm.tree.analysis.SourceValue;

import java.io.IOException;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds, in the module's class directories, the call sites that bind a server or datagram socket to a port that is
 * not provably ephemeral: {@code new ServerSocket(port)}, {@code ServerSocketFactory.createServerSocket(port)},
 * {@code new DatagramSocket(port)}, and {@code bind}/{@code create} with a socket address on the JDK's server
 * sockets, datagram sockets, channels and {@code com.sun.net.httpserver}. A port is ephemeral when ASM's source
 * analysis traces it to the constant 0 (through locals, and for an address to {@code new InetSocketAddress(..., 0)})
 * or the address to {@code null}; any other port (a field, a parameter, a computation) is reported as unknown. Two
 * JVMs that run such code at once can clash over the port, so the Go side runs a module with such sites in one JVM
 * at a time where it could split a run. It only reports.
 */
public final class BindSites {
    private BindSites() {
    }

    /** Classes whose constructors or factory methods take the port as their first argument. */
    private static final Set<String> PORT_FIRST = new HashSet<>(Arrays.asList("java/net/ServerSocket",
            "java/net/DatagramSocket", "java/net/MulticastSocket", "javax/net/ServerSocketFactory",
            "javax/net/ssl/SSLServerSocketFactory"));
    /** Classes and interfaces whose {@code bind} (or {@code create}) takes the address as its first argument. */
    private static final Set<String> ADDRESS_FIRST = new HashSet<>(Arrays.asList("java/net/ServerSocket",
            "javax/net/ssl/SSLServerSocket", "java/net/DatagramSocket", "java/net/MulticastSocket",
            "java/nio/channels/ServerSocketChannel", "java/nio/channels/AsynchronousServerSocketChannel",
            "java/nio/channels/DatagramChannel", "java/nio/channels/NetworkChannel",
            "com/sun/net/httpserver/HttpServer", "com/sun/net/httpserver/HttpsServer"));
    private static final String SOCKET_ADDRESS = "Ljava/net/SocketAddress;";
    private static final String INET_SOCKET_ADDRESS = "java/net/InetSocketAddress";
    /** How many locals, casts and copies a value is followed through. */
    private static final int FOLLOW = 8;
    /** A port that cannot be traced to a constant. */
    private static final int UNKNOWN = -1;
    /** What the first argument of a call is (see {@link #firstArgument}). */
    private static final int NONE = 0, PORT = 1, ADDRESS = 2;

    /**
     * Runs the finder.
     *
     * @param req {@code {dirs: [class directories or jars]}}
     * @return {@code {sites: [{class, method, line, call, port}]}}, port -1 when it is not a constant
     * @throws IOException when a class directory cannot be read
     */
    public static JsonObject find(JsonObject req) throws IOException {
        Map<String, ClassNode> classes = new LinkedHashMap<>();
        for (JsonElement d : req.getAsJsonArray("dirs")) {
            ResetFinder.load(Paths.get(d.getAsString()), classes);
        }
        JsonArray sites = new JsonArray();
        for (ClassNode c : classes.values()) {
            scan(c, sites);
        }
        JsonObject out = new JsonObject();
        out.add("sites", sites);
        return out;
    }

    private static void scan(ClassNode c, JsonArray sites) {
        for (MethodNode m : c.methods) {
            List<MethodInsnNode> calls = new ArrayList<>();
            for (AbstractInsnNode insn : m.instructions) {
                if (insn instanceof MethodInsnNode && firstArgument((MethodInsnNode) insn) != NONE) {
                    calls.add((MethodInsnNode) insn);
                }
            }
            if (calls.isEmpty()) {
                continue;
            }
            Frame<SourceValue>[] frames;
            try {
                frames = new Analyzer<>(new SourceInterpreter()).analyze(c.name, m);
            } catch (AnalyzerException e) {
                frames = null;
            }
            for (MethodInsnNode call : calls) {
                int port = frames == null ? UNKNOWN : port(m, frames, call);
                if (port == 0) {
                    continue;
                }
                JsonObject site = new JsonObject();
                site.addProperty("class", c.name.replace('/', '.'));
                site.addProperty("method", m.name);
                site.addProperty("line", line(call));
                site.addProperty("call", call.owner.replace('/', '.') + "#" + call.name);
                site.addProperty("port", port);
                sites.add(site);
            }
        }
    }

    /** Returns what the first argument of {@code call} is when it binds (PORT or ADDRESS), NONE when it does not. */
    private static int firstArgument(MethodInsnNode call) {
        Type[] args = Type.getArgumentTypes(call.desc);
        if (args.length == 0) {
            return NONE;
        }
        boolean factory = call.name.equals("<init>") || call.name.equals("createServerSocket");
        if (factory && PORT_FIRST.contains(call.owner) && args[0].getSort() == Type.INT) {
            return PORT;
        }
        boolean binds = call.name.equals("bind") || call.name.equals("create") || call.name.equals("<init>");
        String first = args[0].getDescriptor();
        if (binds && ADDRESS_FIRST.contains(call.owner)
                && (first.equals(SOCKET_ADDRESS) || first.equals("L" + INET_SOCKET_ADDRESS + ";"))) {
            return ADDRESS;
        }
        return NONE;
    }

    /** The port {@code call} binds: 0 when ephemeral, the constant, or -1 when it is not known. */
    private static int port(MethodNode m, Frame<SourceValue>[] frames, MethodInsnNode call) {
        SourceValue first = argument(m, frames, call, 0);
        if (first == null) {
            return UNKNOWN;
        }
        if (firstArgument(call) == PORT) {
            return intValue(m, frames, first, FOLLOW);
        }
        return addressPort(m, frames, first, FOLLOW);
    }

    /** The value of argument {@code index} of {@code call} in its frame; null where the code is unreachable. */
    private static SourceValue argument(MethodNode m, Frame<SourceValue>[] frames, MethodInsnNode call, int index) {
        Frame<SourceValue> f = frames[m.instructions.indexOf(call)];
        if (f == null) {
            return null;
        }
        int args = Type.getArgumentTypes(call.desc).length;
        return f.getStack(f.getStackSize() - args + index);
    }

    /** The int value {@code v} holds: a constant, or -1 when any of its sources is not one. */
    private static int intValue(MethodNode m, Frame<SourceValue>[] frames, SourceValue v, int follow) {
        if (v.insns.isEmpty() || follow == 0) {
            return UNKNOWN; // a parameter, or too far
        }
        int value = 0;
        for (AbstractInsnNode insn : v.insns) {
            int one = constant(m, frames, insn, follow);
            if (one == UNKNOWN) {
                return UNKNOWN;
            }
            if (one != 0) {
                value = one;
            }
        }
        return value;
    }

    private static int constant(MethodNode m, Frame<SourceValue>[] frames, AbstractInsnNode insn, int follow) {
        int op = insn.getOpcode();
        if (op >= Opcodes.ICONST_M1 && op <= Opcodes.ICONST_5) {
            return op == Opcodes.ICONST_M1 ? UNKNOWN : op - Opcodes.ICONST_0;
        }
        if (op == Opcodes.BIPUSH || op == Opcodes.SIPUSH) {
            return ((IntInsnNode) insn).operand;
        }
        if (op == Opcodes.LDC && ((LdcInsnNode) insn).cst instanceof Integer) {
            return (Integer) ((LdcInsnNode) insn).cst;
        }
        SourceValue from = Values.copied(insn, frames, m);
        return from == null ? UNKNOWN : intValue(m, frames, from, follow - 1);
    }

    /**
     * The port of the socket address {@code v} holds: 0 for null or an address made with port 0, the constant, or
     * -1 when any of its sources is not known.
     */
    private static int addressPort(MethodNode m, Frame<SourceValue>[] frames, SourceValue v, int follow) {
        if (v.insns.isEmpty() || follow == 0) {
            return UNKNOWN;
        }
        int value = 0;
        for (AbstractInsnNode insn : v.insns) {
            int one;
            if (insn.getOpcode() == Opcodes.ACONST_NULL) {
                one = 0;
            } else if (insn.getOpcode() == Opcodes.NEW && ((TypeInsnNode) insn).desc.equals(INET_SOCKET_ADDRESS)) {
                one = constructedPort(m, frames, insn, follow);
            } else if (insn instanceof MethodInsnNode && ((MethodInsnNode) insn).owner.equals(INET_SOCKET_ADDRESS)
                    && ((MethodInsnNode) insn).name.equals("createUnresolved")) {
                one = lastIntArgument(m, frames, (MethodInsnNode) insn, follow);
            } else {
                SourceValue from = Values.copied(insn, frames, m);
                one = from == null ? UNKNOWN : addressPort(m, frames, from, follow - 1);
            }
            if (one == UNKNOWN) {
                return UNKNOWN;
            }
            if (one != 0) {
                value = one;
            }
        }
        return value;
    }

    /** The port given to the constructor of the {@code InetSocketAddress} that {@code created} (a NEW) made. */
    private static int constructedPort(MethodNode m, Frame<SourceValue>[] frames, AbstractInsnNode created,
            int follow) {
        for (AbstractInsnNode insn : m.instructions) {
            if (!(insn instanceof MethodInsnNode)) {
                continue;
            }
            MethodInsnNode init = (MethodInsnNode) insn;
            if (init.getOpcode() != Opcodes.INVOKESPECIAL || !init.owner.equals(INET_SOCKET_ADDRESS)
                    || !init.name.equals("<init>")) {
                continue;
            }
            Frame<SourceValue> f = frames[m.instructions.indexOf(init)];
            if (f == null) {
                continue;
            }
            SourceValue receiver = f.getStack(f.getStackSize() - Type.getArgumentTypes(init.desc).length - 1);
            if (madeBy(m, frames, receiver, created)) {
                return lastIntArgument(m, frames, init, follow);
            }
        }
        return UNKNOWN;
    }

    /** Whether {@code v} is the object {@code created} made, directly or through the DUP that copied it. */
    private static boolean madeBy(MethodNode m, Frame<SourceValue>[] frames, SourceValue v, AbstractInsnNode created) {
        for (AbstractInsnNode insn : v.insns) {
            if (insn == created) {
                return true;
            }
            if (insn.getOpcode() == Opcodes.DUP) {
                SourceValue from = Values.copied(insn, frames, m);
                if (from != null && from.insns.contains(created)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The port of a call whose last argument is an int port (an InetSocketAddress constructor or factory). */
    private static int lastIntArgument(MethodNode m, Frame<SourceValue>[] frames, MethodInsnNode call, int follow) {
        Type[] args = Type.getArgumentTypes(call.desc);
        if (args.length == 0 || args[args.length - 1].getSort() != Type.INT) {
            return UNKNOWN;
        }
        SourceValue port = argument(m, frames, call, args.length - 1);
        return port == null ? UNKNOWN : intValue(m, frames, port, follow - 1);
    }

    /** The source line of {@code insn}, 0 when the class has no line numbers. */
    private static int line(AbstractInsnNode insn) {
        for (AbstractInsnNode i = insn; i != null; i = i.getPrevious()) {
            if (i instanceof LineNumberNode) {
                return ((LineNumberNode) i).line;
            }
        }
        return 0;
    }
}
