package dev.flaky.agent.chaos;

/**
 * The sleeps of the chaos wrappers (a sleep lengthened or shortened, a delayed start, a slow connect or name
 * resolution) all go through {@link #sleeper}, {@code Thread.sleep(long, int)} in the agent; a unit test sets one
 * that records the pauses the wrappers decided on, so it asserts on them rather than on how long they took.
 */
final class Pauses {
    /** Sleeps {@code millis} milliseconds and {@code nanos} nanoseconds, as {@code Thread.sleep(long, int)} does. */
    interface Sleeper {
        /** Sleeps; see {@link Sleeper}. */
        void sleep(long millis, int nanos) throws InterruptedException;
    }

    /** How the wrappers sleep: {@code Thread.sleep(long, int)}; a test's recorder while it runs. */
    static volatile Sleeper sleeper = Thread::sleep;

    private Pauses() {
    }

    /** Sleeps {@code millis} milliseconds ({@code Thread.sleep(long)}). */
    static void millis(long millis) throws InterruptedException {
        sleeper.sleep(millis, 0);
    }

    /** Sleeps {@code nanos} nanoseconds, nothing when it is not positive ({@code TimeUnit.NANOSECONDS.sleep}). */
    static void nanos(long nanos) throws InterruptedException {
        if (nanos > 0) {
            sleeper.sleep(nanos / 1_000_000L, (int) (nanos % 1_000_000L));
        }
    }
}
