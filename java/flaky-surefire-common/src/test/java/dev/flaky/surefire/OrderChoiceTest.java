package dev.flaky.surefire;

import org.junit.Test;

import java.nio.file.Paths;
import java.util.Properties;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

public class OrderChoiceTest {
    private static Properties props(String... pairs) {
        Properties p = new Properties();
        p.setProperty("user.dir", "/work");
        for (int i = 0; i < pairs.length; i += 2) {
            p.setProperty(pairs[i], pairs[i + 1]);
        }
        return p;
    }

    @Test
    public void readsTheChoiceFromSystemProperties() {
        assertEquals(OrderChoice.DEFAULT, OrderChoice.from(props()).kind);
        assertEquals(OrderChoice.DEFAULT, OrderChoice.from(props("flaky.order", " ", "flaky.shuffle", "")).kind);

        OrderChoice file = OrderChoice.from(props("flaky.order", "o/../order.txt", "basedir", "/mod"));
        assertEquals(OrderChoice.FILE, file.kind);
        assertEquals(Paths.get("/mod/order.txt"), file.file);
        assertEquals(Paths.get("/work/order.txt"), OrderChoice.from(props("flaky.order", "order.txt")).file);
        assertEquals(Paths.get("/abs/o.txt"), OrderChoice.from(props("flaky.order", "/abs/o.txt")).file);

        OrderChoice shuffle = OrderChoice.from(props("flaky.shuffle", "-7"));
        assertEquals(OrderChoice.SHUFFLE, shuffle.kind);
        assertEquals(-7L, shuffle.seed);
    }

    @Test
    public void rejectsBothPropertiesAndABadSeed() {
        assertThrows(IllegalArgumentException.class,
                () -> OrderChoice.from(props("flaky.order", "o.txt", "flaky.shuffle", "1")));
        assertThrows(IllegalArgumentException.class, () -> OrderChoice.from(props("flaky.shuffle", "seven")));
    }
}
