package dev.flaky.agent;

import java.util.Map;

/** Finds the stack of the thread that called {@code System.exit} while the JVM runs its shutdown hooks. */
final class ExitStack {
    private static final int MAX_FRAMES = 256;

    private ExitStack() {
    }

    /**
     * Returns the stack of the thread blocked in {@code Runtime.exit}/{@code Shutdown.exit}, starting at that exit
     * frame and preceded by a line naming the thread, or "" when no thread is exiting (for example when the last
     * non-daemon thread ended).
     */
    static String find() {
        for (Map.Entry<Thread, StackTraceElement[]> entry : Thread.getAllStackTraces().entrySet()) {
            StackTraceElement[] frames = entry.getValue();
            int start = exitFrame(frames);
            if (start >= 0) {
                return format(entry.getKey(), frames, start);
            }
        }
        return "";
    }

    /** Returns the index of the outermost exit frame (the one called by application code), or -1. */
    private static int exitFrame(StackTraceElement[] frames) {
        int found = -1;
        for (int i = 0; i < frames.length; i++) {
            String cls = frames[i].getClassName();
            if ("exit".equals(frames[i].getMethodName())
                    && ("java.lang.Runtime".equals(cls) || "java.lang.Shutdown".equals(cls))) {
                found = i;
            }
        }
        return found;
    }

    private static String format(Thread thread, StackTraceElement[] frames, int start) {
        StringBuilder b = new StringBuilder("Thread \"").append(thread.getName()).append("\" called exit\n");
        int end = Math.min(frames.length, start + MAX_FRAMES);
        for (int i = start; i < end; i++) {
            b.append("\tat ").append(frames[i]).append('\n');
        }
        if (end < frames.length) {
            b.append("\t... ").append(frames.length - end).append(" more\n");
        }
        return b.toString();
    }
}
