package dev.flaky.agent.chaos;

import org.junit.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

public class SeededTest {
    @Test
    public void remembersMarkedInstancesByIdentityAcrossRehashes() {
        List<Random> seeded = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            Random r = new Random(i);
            Seeded.mark(r);
            seeded.add(r);
        }
        for (Random r : seeded) {
            assertTrue(Seeded.contains(r));
        }
        assertFalse(Seeded.contains(new Random()));
    }
}
