package dev.flaky.runner.warm;

import org.junit.Test;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import static org.junit.Assert.assertEquals;

public class WarmTest {
    @Test
    public void waitsForAReferenceAThreadStillHoldsForAMoment() throws Exception {
        ReferenceQueue<Object> queue = new ReferenceQueue<>();
        List<WeakReference<Object>> refs = new ArrayList<>();
        CountDownLatch held = new CountDownLatch(1);
        Thread holder = holder(refs, queue, held);
        holder.start();
        held.await();
        // The holder keeps its object for 300 ms: one collection right now would find it reachable.
        assertEquals(0, Warm.stillReachable(refs, queue, 5000));
        holder.join();
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
        Thread exiting = new Thread(() -> {
            try {
                orderEnded.await();
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "exiting");
        exiting.start();
        orderEnded.countDown();
        assertEquals(true, exiting.isAlive());
        assertEquals(Collections.emptyList(), JdkState.stillAlive(Collections.singletonList(exiting), JdkState.JOIN_MILLIS));
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

    /** A thread that registers a reference to an object of its own, counts held down, and drops it 300 ms later. */
    private static Thread holder(List<WeakReference<Object>> refs, ReferenceQueue<Object> queue, CountDownLatch held) {
        return new Thread(() -> {
            Object mine = new Object();
            refs.add(new WeakReference<>(mine, queue));
            held.countDown();
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            mine.hashCode();
        });
    }
}
