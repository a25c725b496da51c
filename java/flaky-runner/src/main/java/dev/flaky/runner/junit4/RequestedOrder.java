package dev.flaky.runner.junit4;

import org.junit.runner.Description;

import java.util.Comparator;
import java.util.Map;

/** Orders descriptions by the earliest requested position of a test they contain. */
final class RequestedOrder implements Comparator<Description> {
    private final Map<String, Integer> position;

    RequestedOrder(Map<String, Integer> position) {
        this.position = position;
    }

    @Override
    public int compare(Description a, Description b) {
        return Integer.compare(rank(a), rank(b));
    }

    private int rank(Description d) {
        if (d.isTest()) {
            Integer p = d.getMethodName() == null ? null : position.get(Junit4Listener.id(d));
            return p == null ? Integer.MAX_VALUE : p;
        }
        int best = Integer.MAX_VALUE;
        for (Description child : d.getChildren()) {
            best = Math.min(best, rank(child));
        }
        return best;
    }
}
