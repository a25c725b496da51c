package dev.flaky.runner;

import java.util.List;

/**
 * The driver's {@code handoff} command for one order (see agent/PROTOCOL.md): which class run the runner has begun,
 * where it has promised to stop, and the choice of that stop. A class run (see {@link OrderFile#classRuns}) begins
 * when the runner starts on it ({@link Events#beginRun}) or sends its first event: the first {@code class-start} of
 * it (later ones of the same run are scopes the framework split it into, not boundaries) or a {@code test-start} or
 * {@code test-end} of one of its entries (a run whose class cannot be loaded sends no {@code class-start}). Choosing a
 * stop and beginning a run take one lock, so no run at or after an answered stop ever begins.
 */
final class Handoff {
    /** Per class run, the index of its first entry. */
    private final int[] starts;
    /** Per class run, the index of its last entry. */
    private final int[] lasts;
    /** Per class run, its class's name. */
    private final String[] classes;
    /** Per entry, its class run. */
    private final int[] runOf;

    // Guarded by this.
    /** The class run most recently begun, -1 before the first. */
    private int current = -1;
    /** The highest entry index of a {@code test-start} or {@code test-end} so far, -1 before the first. */
    private int highest = -1;
    /** The committed stop: no class run starting at or after it begins. The order's size while none is. */
    private int stop;

    /** Tracks {@code order}, whose entries are indexed from 0 in order. */
    Handoff(List<OrderEntry> order) {
        List<List<OrderEntry>> runs = OrderFile.classRuns(order);
        starts = new int[runs.size()];
        lasts = new int[runs.size()];
        classes = new String[runs.size()];
        runOf = new int[order.size()];
        int next = 0;
        for (int r = 0; r < runs.size(); r++) {
            List<OrderEntry> run = runs.get(r);
            starts[r] = next;
            lasts[r] = next + run.size() - 1;
            classes[r] = run.get(0).className;
            for (int i = 0; i < run.size(); i++) {
                runOf[next++] = r;
            }
        }
        stop = order.size();
    }

    /**
     * Answers a {@code handoff} command for entry {@code index}: chooses where to stop (see {@link #choose}) and
     * commits it. Returns that entry's index, or -1 when no class run is left to hand off.
     */
    synchronized int handoff(int index) {
        int at = choose(starts, current < 0 ? -1 : starts[current], stop, index);
        if (at >= 0) {
            stop = at;
        }
        return at;
    }

    /**
     * Chooses a stop among {@code starts} (the first entry of each class run, ascending; the first run's, 0, is never
     * one): the candidates lie after {@code begun} (the start of the run most recently begun, -1 for none) and before
     * {@code stop} (the stop committed so far). Returns the smallest candidate at or after {@code index}, else the
     * largest candidate, or -1 when there is none.
     */
    static int choose(int[] starts, int begun, int stop, int index) {
        int largest = -1;
        for (int r = 1; r < starts.length; r++) {
            int s = starts[r];
            if (s <= begun || s >= stop) {
                continue;
            }
            if (s >= index) {
                return s;
            }
            largest = s;
        }
        return largest;
    }

    /**
     * Called before a {@code class-start} of {@code className}: reports whether it may be sent, false when it begins
     * a class run at or after the stop. It belongs to the first class run of that class, from the current one on,
     * that has not finished (no entry after it has had an event yet); when that is the current run it is one more
     * scope of it.
     */
    synchronized boolean classStart(String className) {
        for (int r = Math.max(current, 0); r < classes.length; r++) {
            if (classes[r].equals(className) && lasts[r] >= highest) {
                return begin(r);
            }
        }
        // Not a class of the order's runs ahead: no boundary.
        return true;
    }

    /**
     * Called before a {@code test-start} or {@code test-end} of entry {@code index}: reports whether it may be sent,
     * false when the entry's class run is one not yet begun at or after the stop.
     */
    synchronized boolean entry(int index) {
        if (index < 0 || index >= runOf.length) {
            return true;
        }
        if (!begin(runOf[index])) {
            return false;
        }
        highest = Math.max(highest, index);
        return true;
    }

    /**
     * Called before the runner starts on the class run whose entries begin at {@code index} (before any of its code
     * runs): reports whether it may, false when the run is at or after the stop.
     */
    synchronized boolean beginRun(int index) {
        return index < 0 || index >= runOf.length || begin(runOf[index]);
    }

    /** Begins class run {@code r} unless it has begun already or starts at or after the stop (then false). */
    private boolean begin(int r) {
        if (r <= current) {
            return true;
        }
        if (starts[r] >= stop) {
            return false;
        }
        current = r;
        return true;
    }

    /** The first entry of the class run most recently begun, -1 before the first (the protocol's CUR). */
    synchronized int begun() {
        return current < 0 ? -1 : starts[current];
    }

    /** The committed stop, the order's size while none is. */
    synchronized int stop() {
        return stop;
    }
}
