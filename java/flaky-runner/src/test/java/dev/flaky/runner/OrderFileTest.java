package dev.flaky.runner;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.Assert.assertEquals;

public class OrderFileTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void skipsBlankAndCommentLinesAndGroupsConsecutiveClasses() throws Exception {
        Path file = tmp.newFile("order").toPath();
        Files.write(file, "# comment\r\np.A#x\r\n\np.B#y[1]\np.A#z\np.A#x\n".getBytes(StandardCharsets.UTF_8));
        List<OrderEntry> entries = OrderFile.read(file);
        assertEquals(4, entries.size());
        assertEquals("p.B#y[1]", entries.get(1).id);
        assertEquals("p.B", entries.get(1).className);
        assertEquals("y[1]", entries.get(1).method);
        assertEquals(3, entries.get(3).index);

        List<List<String>> runs = new ArrayList<>();
        for (List<OrderEntry> run : OrderFile.classRuns(entries)) {
            List<String> ids = new ArrayList<>();
            for (OrderEntry e : run) {
                ids.add(e.id);
            }
            runs.add(ids);
        }
        assertEquals(Arrays.asList(Arrays.asList("p.A#x"), Arrays.asList("p.B#y[1]"), Arrays.asList("p.A#z", "p.A#x")),
                runs);
    }
}
