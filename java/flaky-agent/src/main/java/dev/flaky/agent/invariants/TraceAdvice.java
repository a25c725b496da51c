package dev.flaky.agent.invariants;

import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * The code ByteBuddy inlines at the entry and normal exit of every traced method: it hands the values to
 * {@link Tracer}, and carries the watched values read at the entry (or null) to the exit.
 */
final class TraceAdvice {
    private TraceAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static Object enter(@Advice.Origin Class<?> type, @Advice.Origin("#m#d") String method,
            @Advice.This(optional = true) Object self, @Advice.AllArguments Object[] args) {
        return Tracer.enter(type, method, self, args);
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.Origin Class<?> type, @Advice.Origin("#m#d") String method,
            @Advice.This(optional = true) Object self, @Advice.AllArguments Object[] args,
            @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object result, @Advice.Enter Object watched) {
        Tracer.exit(type, method, self, args, result, watched);
    }
}
