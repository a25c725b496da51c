package od

// tally counts a test's outcomes in one order.
type tally struct{ pass, fail int }

func (t tally) runs() int    { return t.pass + t.fail }
func (t tally) mixed() bool  { return t.pass > 0 && t.fail > 0 }
func (t tally) passes() bool { return t.pass > 0 && t.fail == 0 }
func (t tally) fails() bool  { return t.fail > 0 && t.pass == 0 }

// verdict is what the rules make of a candidate's confirmation runs.
type verdict int

const (
	undecided         verdict = iota // too few runs to tell
	stable                           // the same outcome everywhere
	victim                           // passes alone, fails after some tests
	brittle                          // fails alone, passes after some tests
	nonIdempotent                    // its outcome changes when rerun in the same JVM
	notOrderDependent                // flips in the same order: NOD, never OD
)

// classifyOD decides an order-dependence candidate from k or more runs of
// it alone and pre or more runs after its failing prefix and after its
// passing prefix. A test whose outcome differs between runs of the same
// order is NOD whatever else was seen; otherwise both prefixes must have
// reproduced, and its outcome alone says victim (passes) or brittle (fails).
func classifyOD(alone, failing, passing tally, k, pre int) verdict {
	switch {
	case alone.mixed() || failing.mixed() || passing.mixed():
		return notOrderDependent
	case alone.runs() < k || failing.runs() < pre || passing.runs() < pre:
		return undecided
	case !failing.fails() || !passing.passes():
		return stable
	case alone.passes():
		return victim
	default:
		return brittle
	}
}

// classifyNIO decides from k or more runs of a test alone and of its second
// run right after itself in one JVM whether its outcome is non-idempotent.
func classifyNIO(first, second tally, k int) verdict {
	switch {
	case first.mixed() || second.mixed():
		return notOrderDependent
	case first.runs() < k || second.runs() < k:
		return undecided
	case first.passes() != second.passes():
		return nonIdempotent
	default:
		return stable
	}
}
