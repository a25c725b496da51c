package testfixture.invariants;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A project class for the invariant tracer's tests (outside dev.flaky, which is never traced). */
public final class Holder {
    int count = 3;
    List<String> names = new ArrayList<>(Arrays.asList("a", "b"));
}
