package dev.flaky.runner.warm;

import org.junit.Test;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import static org.junit.Assert.assertEquals;

public class WarmTest {
    /**
     * The queue of a reference that a holder thread keeps until the first wait between collections, which lasts until
     * the holder has ended: the next collection finds the object unreachable, however slow the machine.
     */
    private static final class HeldUntilTheFirstWait extends ReferenceQueue<Object> {
        final CountDownLatch waited = new CountDownLatch(1);
        volatile Thread holder;

        @Override
        public Reference<?> remove(long timeout) throws InterruptedException {
            waited.countDown();
            holder.join();
            return super.remove(timeout);
        }
    }

    @Test
    public void waitsForAReferenceAThreadStillHoldsForAMoment() throws Exception {
        HeldUntilTheFirstWait queue = new HeldUntilTheFirstWait();
        List<WeakReference<Object>> refs = new ArrayList<>();
        CountDownLatch held = new CountDownLatch(1);
        queue.holder = holder(refs, queue, held, queue.waited);
        queue.holder.start();
        try {
            held.await();
            // The first collection finds the holder's object reachable; it is dropped while the bound still runs.
            assertEquals(0, Warm.stillReachable(refs, queue, 5000));
        } finally {
            queue.waited.countDown();
            queue.holder.join();
        }
    }

    @Test
    public void countsWhatStaysReachableForTheWholeBound() throws Exception {
        ReferenceQueue<Object> queue = new ReferenceQueue<>();
        Object kept = new Object();
        List<WeakReference<Object>> refs = new ArrayList<>();
        refs.add(new WeakReference<>(kept, queue));
        refs.add(new WeakReference<>(new Object(), queue));
        long start = System.nanoTime();
        assertEquals(1, Warm.stillReachable(refs, queue, 200));
        long tookMillis = (System.nanoTime() - start) / 1_000_000L;
        assertEquals("returns at the bound", true, tookMillis >= 200);
        assertEquals(kept, refs.get(0).get());
    }

    @Test
    public void aThreadThatEndsShortlyAfterItsOrderIsNotLeftRunning() throws Exception {
        CountDownLatch orderEnded = new CountDownLatch(1);
        Thread tester = Thread.currentThread();
        Thread exiting = new Thread(() -> {
            try {
                orderEnded.await();
                // Ends once the tester waits for it: still running when the order ended, ending during the wait.
                while (tester.getState() != Thread.State.TIMED_WAITING) {
                    Thread.sleep(1);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "exiting");
        exiting.start();
        orderEnded.countDown();
        assertEquals(true, exiting.isAlive());
        // A bound far beyond the thread's exit, which starts once the wait has: only a wait that does not wait fails.
        assertEquals(Collections.emptyList(), JdkState.stillAlive(Collections.singletonList(exiting), 60_000));
    }

    @Test
    public void aThreadStillRunningAfterTheBoundIsLeftRunning() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Thread running = new Thread(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "running");
        running.start();
        try {
            assertEquals(Collections.singletonList(running), JdkState.stillAlive(Collections.singletonList(running), 100));
        } finally {
            release.countDown();
            running.join();
        }
    }

    /** A thread that registers a reference to an object of its own, counts held down, and drops it at release. */
    private static Thread holder(List<WeakReference<Object>> refs, ReferenceQueue<Object> queue, CountDownLatch held,
            CountDownLatch release) {
        return new Thread(() -> {
            Object mine = new Object();
            refs.add(new WeakReference<>(mine, queue));
            held.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            mine.hashCode();
        });
    }
}
