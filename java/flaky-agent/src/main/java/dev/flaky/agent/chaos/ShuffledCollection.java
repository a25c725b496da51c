package dev.flaky.agent.chaos;

import java.util.AbstractCollection;
import java.util.Collection;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A live view of a collection whose iteration (and everything built on it: toArray, toString, forEach, streams)
 * follows the shuffled order of a snapshot taken when iteration starts, permuted by the token of its owner (see
 * {@link Shuffler}); writes, including {@code Iterator.remove}, go through to the real collection.
 */
class ShuffledCollection<E> extends AbstractCollection<E> {
    final Collection<E> real;
    /** Whose token permutes the iteration: the collection itself, or the map it is a view of. */
    private final Object owner;
    /** The call site that made the view (-1 for none), for the owner's token when it has none yet. */
    private final int site;

    ShuffledCollection(Collection<E> real, Object owner, int site) {
        this.real = real;
        this.owner = owner;
        this.site = site;
    }

    /** The real elements in the owner's shuffled order. */
    private Object[] shuffled() {
        return Shuffler.permute(real.toArray(), Shuffler.token(owner, site));
    }

    @Override
    public Iterator<E> iterator() {
        @SuppressWarnings("unchecked")
        final E[] order = (E[]) shuffled();
        return new Iterator<E>() {
            private int next;
            private boolean removable;

            @Override
            public boolean hasNext() {
                return next < order.length;
            }

            @Override
            public E next() {
                if (next >= order.length) {
                    throw new NoSuchElementException();
                }
                removable = true;
                return order[next++];
            }

            @Override
            public void remove() {
                if (!removable) {
                    throw new IllegalStateException();
                }
                removable = false;
                real.remove(order[next - 1]);
            }
        };
    }

    @Override
    public Object[] toArray() {
        return shuffled();
    }

    @Override
    public int size() {
        return real.size();
    }

    @Override
    public boolean isEmpty() {
        return real.isEmpty();
    }

    @Override
    public boolean contains(Object o) {
        return real.contains(o);
    }

    @Override
    public boolean add(E e) {
        return real.add(e);
    }

    @Override
    public boolean remove(Object o) {
        return real.remove(o);
    }

    @Override
    public void clear() {
        real.clear();
    }
}
