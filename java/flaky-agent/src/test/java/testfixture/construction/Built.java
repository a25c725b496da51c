package testfixture.construction;

/** A test class with a field initialiser and a constructor. */
public class Built extends Base {
    private final String field = Log.add("field");

    public Built() {
        Log.add("constructor");
    }
}
