package dev.flaky.surefire;

import dev.flaky.runner.Failure;
import dev.flaky.runner.OrderEntry;
import dev.flaky.runner.RunnerListener;
import dev.flaky.runner.TestRunner;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Runs an order through the runner on a worker thread while the calling thread watches it: when the run makes no
 * progress (no class or test event) for the test timeout, the running test (or, in class fixtures, the next one) is
 * cut, as the flaky driver cuts one in the JVMs it launches. Its thread is interrupted; when the test then ends it is
 * reported as {@code timeout}, whatever it ended with, and the order goes on. A test that does not end within a grace
 * period after the interrupt is reported as {@code timeout} at once, its thread is abandoned (its later events are
 * ignored; the fork's end does not wait for it) and the rest of the order runs through a fresh runner in a new
 * thread, so a stuck test never hangs the fork.
 */
final class TimedRun {
    /** The outcome of a test cut at the timeout, as the driver reports one. */
    static final String TIMEOUT = "timeout";
    /** Upper bound of the grace period a cut test gets to end after the interrupt. */
    private static final long MAX_GRACE_MS = 10_000;

    /** The time a run is watched by: the system's, or a unit test's that moves only when the test says. */
    interface Clock {
        /** The time now, as {@code System.nanoTime()}. */
        long nanoTime();

        /** Waits on {@code monitor}, whose lock the caller holds, until notified or {@code nanos} have passed. */
        void timedWait(Object monitor, long nanos) throws InterruptedException;
    }

    /** The system's clock. */
    static final Clock SYSTEM = new Clock() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public void timedWait(Object monitor, long nanos) throws InterruptedException {
            TimeUnit.NANOSECONDS.timedWait(monitor, nanos);
        }
    };

    private final Clock clock;
    private final long timeoutNanos;
    private final long graceNanos;
    private final String timeoutText;
    private final Function<RunnerListener, TestRunner> runners;
    private final RunnerListener out;

    // Guarded by this.
    private Segment current;
    private long progress;
    private final Set<Integer> ended = new HashSet<>();
    private String runningTest;
    private int runningIndex = -1;
    private long runningSince;
    private String openClass;
    private Cut cut;

    /**
     * @param timeoutMs the test timeout, positive
     * @param runners   makes a runner reporting to the given listener (one per thread the order runs in)
     * @param out       receives the events of the order, with cut tests ending as {@code timeout}
     */
    TimedRun(long timeoutMs, Function<RunnerListener, TestRunner> runners, RunnerListener out) {
        this(timeoutMs, runners, out, SYSTEM);
    }

    /** A run watched by {@code clock} (the system's in the provider); see the other constructor. */
    TimedRun(long timeoutMs, Function<RunnerListener, TestRunner> runners, RunnerListener out, Clock clock) {
        this.clock = clock;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        this.graceNanos = TimeUnit.MILLISECONDS.toNanos(Math.min(timeoutMs, MAX_GRACE_MS));
        this.timeoutText = TestTimeout.format(timeoutMs);
        this.runners = runners;
        this.out = out;
    }

    /**
     * Runs {@code order}, returning when all of it ran or was cut. Errors the runner throws are rethrown; when the
     * calling thread is interrupted, the worker is too and the calling thread's interrupt status is set again.
     */
    void run(List<OrderEntry> order) {
        List<OrderEntry> rest = order;
        while (!rest.isEmpty()) {
            Segment s = start(rest);
            try {
                rest = await(s);
            } catch (InterruptedException e) {
                s.thread.interrupt();
                Thread.currentThread().interrupt();
                return;
            }
            if (s.thrown instanceof RuntimeException) {
                throw (RuntimeException) s.thrown;
            }
            if (s.thrown instanceof Error) {
                throw (Error) s.thrown;
            }
        }
    }

    private synchronized Segment start(List<OrderEntry> order) {
        Segment s = new Segment(order);
        current = s;
        progress = clock.nanoTime();
        runningTest = null;
        openClass = null;
        cut = null;
        s.thread.start();
        return s;
    }

    /** Watches segment {@code s} until it is done (returns nothing left) or abandoned (returns the rest of it). */
    private synchronized List<OrderEntry> await(Segment s) throws InterruptedException {
        while (!s.done) {
            long now = clock.nanoTime();
            long until;
            if (cut == null) {
                until = progress + timeoutNanos;
                if (now - until >= 0) {
                    cut = new Cut(now, victim(s));
                    s.thread.interrupt();
                    continue;
                }
            } else {
                until = cut.at + graceNanos;
                if (now - until >= 0) {
                    return abandon(s);
                }
            }
            clock.timedWait(this, until - now);
        }
        return new ArrayList<>();
    }

    /** The test a timeout that strikes now cuts: the running one, else the next of the order (class fixtures). */
    private Victim victim(Segment s) {
        StackTraceElement[] stack = s.thread.getStackTrace();
        if (runningTest != null) {
            return new Victim(runningTest, runningIndex, true, runningSince, failure(runningTest, null, stack));
        }
        for (OrderEntry e : s.order) {
            if (!ended.contains(e.index)) {
                return new Victim(e.id, e.index, false, 0, failure(e.id, e.className, stack));
            }
        }
        out.log("warn", "the tests made no progress for " + timeoutText + " after the last test of the order (class "
                + "fixtures or a shutdown step?); interrupted them (-D" + TestTimeout.PROPERTY + ")");
        return null;
    }

    /** The failure of a cut test; {@code fixtureClass} names the class whose fixtures timed out, else null. */
    private Failure failure(String test, String fixtureClass, StackTraceElement[] stack) {
        String message = "timed out after " + timeoutText + " without progress (test timeout, -D" + TestTimeout.PROPERTY
                + ")";
        if (fixtureClass != null) {
            message = "in the class fixtures of " + fixtureClass + ": " + message;
        }
        return Failure.of(new TestTimedOutException(message, upToTest(stack, test)), testClass(test));
    }

    /** Returns {@code stack} down to the last frame of the test's class, where the test waits; all of it without one. */
    private static StackTraceElement[] upToTest(StackTraceElement[] stack, String test) {
        int hash = test.indexOf('#');
        String className = hash < 0 ? test : test.substring(0, hash);
        int dollar = className.indexOf('$');
        String topLevel = dollar < 0 ? className : className.substring(0, dollar);
        for (int i = stack.length - 1; i >= 0; i--) {
            String frame = stack[i].getClassName();
            if (frame.equals(topLevel) || frame.startsWith(topLevel + "$")) {
                return Arrays.copyOf(stack, i + 1);
            }
        }
        return stack;
    }

    private static Class<?> testClass(String test) {
        int hash = test.indexOf('#');
        try {
            return Class.forName(hash < 0 ? test : test.substring(0, hash), false,
                    Thread.currentThread().getContextClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return Object.class;
        }
    }

    /**
     * Gives up on segment {@code s}, whose cut test ignored the interrupt: reports the test as {@code timeout}, closes
     * its class and returns the entries of the segment after it that have not ended.
     */
    private List<OrderEntry> abandon(Segment s) {
        current = null;
        Victim v = cut.victim;
        List<OrderEntry> rest = new ArrayList<>();
        boolean after = v == null;
        for (OrderEntry e : s.order) {
            if (after && !ended.contains(e.index)) {
                rest.add(e);
            }
            after = after || e.index == v.index;
        }
        if (v != null) {
            String note = "; the test did not stop when interrupted, so its thread was left running and the rest of "
                    + "the order went on in a new thread";
            long ms = v.started ? TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - v.since) : 0;
            StackTraceElement[] where = v.failure.throwable().getStackTrace();
            ended.add(v.index);
            out.testEnd(v.test, v.index, TIMEOUT, ms,
                    Failure.of(new TestTimedOutException(v.failure.message() + note, where), testClass(v.test)));
            out.log("warn", v.test + " timed out after " + timeoutText + note
                    + (rest.isEmpty() ? "" : " (" + rest.size() + " tests left)"));
        } else {
            out.log("warn", "the steps after the order's last test did not stop when interrupted; their thread was "
                    + "left running");
        }
        if (openClass != null) {
            out.classEnd(openClass);
        }
        return rest;
    }

    /** One thread running part of the order with its own runner. */
    private final class Segment implements RunnerListener, Runnable {
        final List<OrderEntry> order;
        final Thread thread;
        // Guarded by TimedRun.this.
        boolean done;
        boolean started;
        Throwable thrown;

        Segment(List<OrderEntry> order) {
            this.order = order;
            this.thread = new Thread(this, "flaky-tests");
            // The thread inherits the caller's context class loader, through which the runner finds the tests.
        }

        @Override
        public void run() {
            TestRunner runner = runners.apply(this);
            synchronized (TimedRun.this) {
                started = true;
            }
            try {
                runner.run(order);
            } catch (Throwable t) {
                synchronized (TimedRun.this) {
                    thrown = t;
                }
            } finally {
                runner.flush();
                synchronized (TimedRun.this) {
                    done = true;
                    TimedRun.this.notifyAll();
                }
            }
        }

        /** Whether this segment's events count: it is the current one (not abandoned). */
        private boolean live() {
            if (current != this) {
                return false;
            }
            progress = clock.nanoTime();
            if (cut != null && cut.victim == null) {
                cut = null; // the steps after the last test went on after all
            }
            TimedRun.this.notifyAll();
            return true;
        }

        @Override
        public void classStart(String className) {
            synchronized (TimedRun.this) {
                if (live()) {
                    openClass = className;
                    out.classStart(className);
                }
            }
        }

        @Override
        public void classEnd(String className) {
            synchronized (TimedRun.this) {
                if (live()) {
                    openClass = null;
                    out.classEnd(className);
                }
            }
        }

        @Override
        public void testStart(String test, int index) {
            synchronized (TimedRun.this) {
                if (live()) {
                    runningTest = test;
                    runningIndex = index;
                    runningSince = clock.nanoTime();
                    out.testStart(test, index);
                }
            }
        }

        @Override
        public void testEnd(String test, int index, String outcome, long timeMs, Failure failure) {
            synchronized (TimedRun.this) {
                if (!live()) {
                    return;
                }
                if (test.equals(runningTest)) {
                    runningTest = null;
                }
                ended.add(index);
                if (cut != null && cut.victim != null && cut.victim.index == index) {
                    outcome = TIMEOUT;
                    failure = cut.victim.failure;
                    cut = null;
                    if (Thread.currentThread() == thread) {
                        Thread.interrupted(); // the interrupt was for the cut test only
                    }
                }
                out.testEnd(test, index, outcome, timeMs, failure);
            }
        }

        @Override
        public void classError(String className, Failure failure) {
            synchronized (TimedRun.this) {
                if (live()) {
                    out.classError(className, failure);
                }
            }
        }

        @Override
        public void log(String level, String message) {
            synchronized (TimedRun.this) {
                // What a new runner logs while it starts, the fork's first runner has logged already.
                if (started && current == this) {
                    out.log(level, message);
                }
            }
        }
    }

    /** The test a timeout cut. */
    private static final class Victim {
        final String test;
        final int index;
        final boolean started;
        final long since;
        final Failure failure;

        Victim(String test, int index, boolean started, long since, Failure failure) {
            this.test = test;
            this.index = index;
            this.started = started;
            this.since = since;
            this.failure = failure;
        }
    }

    /** A timeout that struck at {@code at} (nanoTime) and cut {@code victim} (null after the order's last test). */
    private static final class Cut {
        final long at;
        final Victim victim;

        Cut(long at, Victim victim) {
            this.at = at;
            this.victim = victim;
        }
    }
}
