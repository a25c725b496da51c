package dev.flaky.agent.chaos;

import java.util.AbstractCollection;
import java.util.Collection;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A live view of a collection whose iteration (and everything built on it: toArray, toString, forEach, streams)
 * follows the shuffled order of a snapshot taken when iteration starts; writes, including {@code Iterator.remove},
 * go through to the real collection.
 */
class ShuffledCollection<E> extends AbstractCollection<E> {
    final Collection<E> real;

    ShuffledCollection(Collection<E> real) {
        this.real = real;
    }

    @Override
    public Iterator<E> iterator() {
        @SuppressWarnings("unchecked")
        final E[] order = (E[]) Shuffler.permute(real.toArray());
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
        return Shuffler.permute(real.toArray());
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
