package dev.flaky.runner.junit4;

import org.junit.runner.Description;
import org.junit.runner.manipulation.Filter;

import java.util.Set;

/** Keeps the requested tests, and the suites that contain one. */
final class RequestedFilter extends Filter {
    private final Set<String> ids;

    RequestedFilter(Set<String> ids) {
        this.ids = ids;
    }

    @Override
    public boolean shouldRun(Description d) {
        if (d.isTest()) {
            return d.getMethodName() != null && ids.contains(Junit4Listener.id(d));
        }
        for (Description child : d.getChildren()) {
            if (shouldRun(child)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String describe() {
        return "tests of the flaky order";
    }
}
