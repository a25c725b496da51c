package fixture.evolve;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class MathTest {
    private static void check(int want, int got) {
        assertEquals(want, got);
    }

    @Test
    public void adds() {
        check(5, Calculator.add(2, 3));
    }

    @Test
    public void multiplies() {
        check(6, Calculator.multiply(2, 3));
    }
}
