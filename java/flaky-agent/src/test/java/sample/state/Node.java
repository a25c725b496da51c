package sample.state;

import java.util.ArrayList;
import java.util.List;

/** A project-like class for the state walker's tests (classes under dev.flaky are the agent's own, never walked). */
public final class Node {
    public String name;
    public Node next;
    public List<Object> events = new ArrayList<>();
    public int count;
}
