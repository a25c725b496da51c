package testfixture.construction;

/** A test class's superclass with a field initialiser. */
public class Base {
    protected final String base = Log.add("base field");
}
