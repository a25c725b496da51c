package dev.flaky.agent.chaos;

import java.util.Set;

/** A {@link ShuffledCollection} over a set: equal to and hashing like the real set. */
final class ShuffledSet<E> extends ShuffledCollection<E> implements Set<E> {
    ShuffledSet(Set<E> real, Object owner, int site) {
        super(real, owner, site);
    }

    @Override
    public boolean equals(Object o) {
        return o == this || real.equals(o);
    }

    @Override
    public int hashCode() {
        return real.hashCode();
    }
}
