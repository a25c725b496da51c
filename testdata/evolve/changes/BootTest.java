package fixture.evolve;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class BootTest {
    @Test
    public void startsSafe() {
        assertEquals("safe", Settings.mode);
    }
}
