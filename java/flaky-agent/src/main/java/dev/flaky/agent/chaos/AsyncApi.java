package dev.flaky.agent.chaos;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Timer;
import java.util.TimerTask;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * ASYNC_DELAY's wrappers: work that project code hands to another thread (executors, completable futures, new
 * threads, timers) starts {@code chaos.async.delay} milliseconds late, which thread scheduling always allows. Only
 * the first {@code chaos.async.limit} submissions per call site and JVM are delayed (a machine slow for a while, not
 * forever: a server that hands every connection to a new thread is slowed a few times, not at every request); later
 * ones start as they would. The submitting call site is reported when delayed work is submitted. The waits of project code (sleeps and timed waits)
 * are wrapped too, and reported when they return or give up while delayed work is still pending: those are the
 * waits that assumed the work was done. Public because project classes call it.
 */
public final class AsyncApi {
    private static long delayMs;
    private static int limit;
    /** Delayed tasks submitted and not yet finished (their first run, for periodic ones). */
    private static final AtomicInteger PENDING = new AtomicInteger();

    private AsyncApi() {
    }

    static void configure(ChaosConfig c) {
        delayMs = c.asyncDelayMs;
        limit = c.asyncLimit;
    }

    /** Whether this submission at {@code site} is delayed: within the per-site limit (every one when it is 0). */
    private static boolean delays(int site) {
        return limit == 0 || Sites.countInJvm(site) <= limit;
    }

    // ---- the delay ----

    /** Sleeps the delay; inside a ForkJoinPool as a managed blocker, so the pool can compensate. */
    private static void pause() {
        if (delayMs <= 0) {
            return;
        }
        try {
            ForkJoinPool.managedBlock(new ForkJoinPool.ManagedBlocker() {
                private boolean done;

                @Override
                public boolean block() throws InterruptedException {
                    Pauses.millis(delayMs);
                    done = true;
                    return true;
                }

                @Override
                public boolean isReleasable() {
                    return done;
                }
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void submitted(int site) {
        Sites.hit(site);
        if (Explain.on) {
            Explain.log(site, "starts at once", "starts after " + delayMs + " ms");
        }
    }

    /** Wraps {@code r} to start after the delay (counted as pending until it ends). */
    public static Runnable delayed(Runnable r, int site) {
        if (r == null || !delays(site)) {
            return r;
        }
        submitted(site);
        PENDING.incrementAndGet();
        return () -> {
            try {
                pause();
                r.run();
            } finally {
                PENDING.decrementAndGet();
            }
        };
    }

    private static <T> Callable<T> delayedCallable(Callable<T> c, int site) {
        if (c == null || !delays(site)) {
            return c;
        }
        submitted(site);
        PENDING.incrementAndGet();
        return () -> {
            try {
                pause();
                return c.call();
            } finally {
                PENDING.decrementAndGet();
            }
        };
    }

    /** Counts {@code r} as pending until its first run ends, without delaying it (its scheduler delays it). */
    private static Runnable counted(Runnable r) {
        if (r == null) {
            return null;
        }
        PENDING.incrementAndGet();
        AtomicBoolean first = new AtomicBoolean(true);
        return () -> {
            try {
                r.run();
            } finally {
                if (first.compareAndSet(true, false)) {
                    PENDING.decrementAndGet();
                }
            }
        };
    }

    private static <T> Callable<T> counted(Callable<T> c) {
        if (c == null) {
            return null;
        }
        PENDING.incrementAndGet();
        return () -> {
            try {
                return c.call();
            } finally {
                PENDING.decrementAndGet();
            }
        };
    }

    private static long later(long delay, TimeUnit unit, int site) {
        submitted(site);
        long nanos = Math.max(0, unit.toNanos(delay));
        long extra = TimeUnit.MILLISECONDS.toNanos(delayMs);
        return nanos > Long.MAX_VALUE - extra ? Long.MAX_VALUE : nanos + extra;
    }

    /** A timer's delay, later by the delay when this submission at {@code site} is delayed. */
    private static long laterMillis(long delay, int site) {
        if (!delays(site)) {
            return delay;
        }
        submitted(site);
        return delay > Long.MAX_VALUE - delayMs ? Long.MAX_VALUE : delay + delayMs;
    }

    // ---- submissions ----

    /** {@code Executor.execute(Runnable)}. */
    public static void execute(Executor e, Runnable r, int site) {
        e.execute(delayed(r, site));
    }

    /** {@code ExecutorService.submit(Runnable)}. */
    public static Future<?> submit(ExecutorService e, Runnable r, int site) {
        return e.submit(delayed(r, site));
    }

    /** {@code ExecutorService.submit(Callable)}. */
    public static Future<?> submit(ExecutorService e, Callable<?> c, int site) {
        return e.submit(delayedCallable(c, site));
    }

    /** {@code ExecutorService.submit(Runnable, T)}. */
    public static Future<?> submit(ExecutorService e, Runnable r, Object result, int site) {
        return e.submit(delayed(r, site), result);
    }

    private static <T> List<Callable<T>> delayedAll(Collection<? extends Callable<T>> tasks, int site) {
        List<Callable<T>> out = new ArrayList<>(tasks.size());
        for (Callable<T> c : tasks) {
            out.add(delayedCallable(c, site));
        }
        return out;
    }

    /** {@code ExecutorService.invokeAll(Collection)}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static List invokeAll(ExecutorService e, Collection tasks, int site) throws InterruptedException {
        return e.invokeAll(delayedAll(tasks, site));
    }

    /** {@code ExecutorService.invokeAll(Collection, long, TimeUnit)}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static List invokeAll(ExecutorService e, Collection tasks, long timeout, TimeUnit unit, int site)
            throws InterruptedException {
        return e.invokeAll(delayedAll(tasks, site), timeout, unit);
    }

    /** {@code ScheduledExecutorService.schedule(Runnable, long, TimeUnit)}: the delay on top of its own. */
    public static ScheduledFuture<?> schedule(ScheduledExecutorService e, Runnable r, long delay, TimeUnit unit,
            int site) {
        if (!delays(site)) {
            return e.schedule(r, delay, unit);
        }
        return e.schedule(counted(r), later(delay, unit, site), TimeUnit.NANOSECONDS);
    }

    /** {@code ScheduledExecutorService.schedule(Callable, long, TimeUnit)}. */
    public static ScheduledFuture<?> schedule(ScheduledExecutorService e, Callable<?> c, long delay, TimeUnit unit,
            int site) {
        if (!delays(site)) {
            return e.schedule(c, delay, unit);
        }
        return e.schedule(counted(c), later(delay, unit, site), TimeUnit.NANOSECONDS);
    }

    /** {@code ScheduledExecutorService.scheduleAtFixedRate}: the first run later. */
    public static ScheduledFuture<?> scheduleAtFixedRate(ScheduledExecutorService e, Runnable r, long delay,
            long period, TimeUnit unit, int site) {
        if (!delays(site)) {
            return e.scheduleAtFixedRate(r, delay, period, unit);
        }
        return e.scheduleAtFixedRate(counted(r), later(delay, unit, site), unit.toNanos(period),
                TimeUnit.NANOSECONDS);
    }

    /** {@code ScheduledExecutorService.scheduleWithFixedDelay}: the first run later. */
    public static ScheduledFuture<?> scheduleWithFixedDelay(ScheduledExecutorService e, Runnable r, long delay,
            long period, TimeUnit unit, int site) {
        if (!delays(site)) {
            return e.scheduleWithFixedDelay(r, delay, period, unit);
        }
        return e.scheduleWithFixedDelay(counted(r), later(delay, unit, site), unit.toNanos(period),
                TimeUnit.NANOSECONDS);
    }

    /** {@code CompletableFuture.runAsync(Runnable)}. */
    public static CompletableFuture<Void> runAsync(Runnable r, int site) {
        return CompletableFuture.runAsync(delayed(r, site));
    }

    /** {@code CompletableFuture.runAsync(Runnable, Executor)}. */
    public static CompletableFuture<Void> runAsync(Runnable r, Executor e, int site) {
        return CompletableFuture.runAsync(delayed(r, site), e);
    }

    /** {@code CompletableFuture.supplyAsync(Supplier)}. */
    public static CompletableFuture<?> supplyAsync(Supplier<?> s, int site) {
        return CompletableFuture.supplyAsync(delayedSupplier(s, site));
    }

    /** {@code CompletableFuture.supplyAsync(Supplier, Executor)}. */
    public static CompletableFuture<?> supplyAsync(Supplier<?> s, Executor e, int site) {
        return CompletableFuture.supplyAsync(delayedSupplier(s, site), e);
    }

    /** {@code CompletableFuture.thenRunAsync(Runnable)}. */
    public static CompletableFuture<?> thenRunAsync(CompletableFuture<?> f, Runnable r, int site) {
        return f.thenRunAsync(delayed(r, site));
    }

    /** {@code CompletableFuture.thenApplyAsync(Function)}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static CompletableFuture<?> thenApplyAsync(CompletableFuture f, Function fn, int site) {
        Supplier<Object> gate = delayedSupplier(() -> null, site);
        return f.thenApplyAsync(x -> {
            gate.get();
            return fn.apply(x);
        });
    }

    /** {@code CompletableFuture.thenAcceptAsync(Consumer)}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static CompletableFuture<?> thenAcceptAsync(CompletableFuture f, Consumer c, int site) {
        Supplier<Object> gate = delayedSupplier(() -> null, site);
        return f.thenAcceptAsync(x -> {
            gate.get();
            c.accept(x);
        });
    }

    private static <T> Supplier<T> delayedSupplier(Supplier<T> s, int site) {
        if (s == null || !delays(site)) {
            return s;
        }
        submitted(site);
        PENDING.incrementAndGet();
        return () -> {
            try {
                pause();
                return s.get();
            } finally {
                PENDING.decrementAndGet();
            }
        };
    }

    /** {@code ForkJoinPool.execute(ForkJoinTask)}: the pool runs a task that waits the delay, then the task. */
    public static void forkJoinExecute(ForkJoinPool pool, ForkJoinTask<?> task, int site) {
        pool.execute(ForkJoinTask.adapt(delayed(task::invoke, site)));
    }

    /** {@code ForkJoinPool.submit(ForkJoinTask)}: as {@link #forkJoinExecute}; returns the task itself. */
    public static ForkJoinTask<?> forkJoinSubmit(ForkJoinPool pool, ForkJoinTask<?> task, int site) {
        forkJoinExecute(pool, task, site);
        return task;
    }

    /** {@code Timer.schedule(TimerTask, long)}: the delay on top of its own. */
    public static void timerSchedule(Timer t, TimerTask task, long delay, int site) {
        t.schedule(task, laterMillis(delay, site));
    }

    /** {@code Timer.schedule(TimerTask, long, long)}: the first run later. */
    public static void timerSchedule(Timer t, TimerTask task, long delay, long period, int site) {
        t.schedule(task, laterMillis(delay, site), period);
    }

    /** {@code Timer.scheduleAtFixedRate(TimerTask, long, long)}: the first run later. */
    public static void timerScheduleAtFixedRate(Timer t, TimerTask task, long delay, long period, int site) {
        t.scheduleAtFixedRate(task, laterMillis(delay, site), period);
    }

    /** {@code Timer.schedule(TimerTask, Date)}: later than the date. */
    public static void timerSchedule(Timer t, TimerTask task, Date time, int site) {
        t.schedule(task, time == null ? null : new Date(laterMillis(time.getTime(), site)));
    }

    // ---- the waits ----

    /** Reports a wait that ended while delayed work was still pending: it gave up on that work. */
    private static void gaveUp(int site) {
        int pending = PENDING.get();
        if (pending > 0) {
            Sites.hit(site);
            if (Explain.on) {
                Explain.log(site, "the work it waits for is done", pending + " delayed task(s) still pending");
            }
        }
    }

    /** {@code Thread.sleep(long)}, unchanged. */
    public static void sleep(long millis, int site) throws InterruptedException {
        Thread.sleep(millis);
        gaveUp(site);
    }

    /** {@code TimeUnit.sleep(long)}, unchanged. */
    public static void sleepUnit(TimeUnit unit, long timeout, int site) throws InterruptedException {
        unit.sleep(timeout);
        gaveUp(site);
    }

    /** {@code CountDownLatch.await(long, TimeUnit)}, unchanged. */
    public static boolean await(CountDownLatch latch, long timeout, TimeUnit unit, int site)
            throws InterruptedException {
        boolean done = latch.await(timeout, unit);
        if (!done) {
            gaveUp(site);
        }
        return done;
    }

    /** {@code Future.get(long, TimeUnit)}, unchanged. */
    public static Object get(Future<?> future, long timeout, TimeUnit unit, int site)
            throws InterruptedException, ExecutionException, TimeoutException {
        try {
            return future.get(timeout, unit);
        } catch (TimeoutException e) {
            gaveUp(site);
            throw e;
        }
    }

    /** {@code Thread.join(long)}, unchanged. */
    public static void join(Thread t, long millis, int site) throws InterruptedException {
        t.join(millis);
        if (t.isAlive()) {
            gaveUp(site);
        }
    }

    /** {@code Semaphore.tryAcquire(long, TimeUnit)}, unchanged. */
    public static boolean tryAcquire(Semaphore s, long timeout, TimeUnit unit, int site) throws InterruptedException {
        boolean got = s.tryAcquire(timeout, unit);
        if (!got) {
            gaveUp(site);
        }
        return got;
    }

    /** {@code BlockingQueue.poll(long, TimeUnit)}, unchanged. */
    public static Object poll(BlockingQueue<?> q, long timeout, TimeUnit unit, int site) throws InterruptedException {
        Object o = q.poll(timeout, unit);
        if (o == null) {
            gaveUp(site);
        }
        return o;
    }

    /** {@code Condition.await(long, TimeUnit)}, unchanged. */
    public static boolean conditionAwait(Condition c, long timeout, TimeUnit unit, int site)
            throws InterruptedException {
        boolean signalled = c.await(timeout, unit);
        if (!signalled) {
            gaveUp(site);
        }
        return signalled;
    }

    /** {@code ExecutorService.awaitTermination(long, TimeUnit)}, unchanged. */
    public static boolean awaitTermination(ExecutorService e, long timeout, TimeUnit unit, int site)
            throws InterruptedException {
        boolean done = e.awaitTermination(timeout, unit);
        if (!done) {
            gaveUp(site);
        }
        return done;
    }
}
