package sample.state;

/** An interface, whose fields are constants (left alone by the init hook). */
public interface Named {
    String DEFAULT = "none";

    String name();
}
