package dev.flaky.editor.bytecode;

import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.VarInsnNode;
import org.objectweb.asm.tree.analysis.Frame;
import org.objectweb.asm.tree.analysis.SourceValue;

/** Following a value back through ASM's source analysis ({@code SourceInterpreter} frames). */
final class Values {
    private Values() {
    }

    /**
     * The value {@code insn} passes on unchanged: a local load's local (whose sources are its stores), a store's,
     * a cast's or a DUP's operand; null for any other instruction, and where the code is unreachable.
     */
    static SourceValue copied(AbstractInsnNode insn, Frame<SourceValue>[] frames, MethodNode m) {
        Frame<SourceValue> f = frames[m.instructions.indexOf(insn)];
        if (f == null) {
            return null;
        }
        switch (insn.getOpcode()) {
            case Opcodes.ILOAD:
            case Opcodes.ALOAD:
                return f.getLocal(((VarInsnNode) insn).var);
            case Opcodes.ISTORE:
            case Opcodes.ASTORE:
            case Opcodes.CHECKCAST:
            case Opcodes.DUP:
                return f.getStackSize() == 0 ? null : f.getStack(f.getStackSize() - 1);
            default:
                return null;
        }
    }
}
