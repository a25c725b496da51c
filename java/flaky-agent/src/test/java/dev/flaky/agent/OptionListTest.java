package dev.flaky.agent;

import org.junit.Test;

import java.util.Arrays;
import java.util.Collections;

import static org.junit.Assert.assertEquals;

public class OptionListTest {
    @Test
    public void listsDecodeEscapedSeparators() {
        assertEquals(Arrays.asList("a,b/c+d", "100%", "x=y", "é%2"),
                OptionList.list("a%2Cb/c%2Bd+100%25+x=y+%C3%A9%2"));
    }

    @Test
    public void listsDropEmptyPartsAndTrim() {
        assertEquals(Arrays.asList("a", "b"), OptionList.list(" a ++ b +"));
        assertEquals(Collections.emptyList(), OptionList.list(null));
        assertEquals(Collections.emptyList(), OptionList.list(""));
    }

    @Test
    public void decodesOneValue() {
        for (String[] c : new String[][] {
            {"/tmp/a b/restore.json", "/tmp/a%20b/restore.json"},
            {"a+b", "a%2Bb"},
            {"a+b", "a+b"}, // a value is not a list: its '+' stays
            {"x%zz%4", "x%zz%4"}, // no two hex digits: left as it is
            {"%", "%"},
            {"日本", "%E6%97%A5%E6%9C%AC"},
            {"plain", "plain"},
        }) {
            assertEquals(c[1], c[0], OptionList.decode(c[1]));
        }
    }
}
