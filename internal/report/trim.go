package report

import (
	"fmt"
	"slices"
)

// Bounds of what the pages (HTML, Markdown, SARIF) show of a report; report.json
// keeps everything.
const (
	MaxShownFindings   = 1000     // findings per module
	MaxShownEvidence   = 20       // runs per finding
	MaxShownText       = 16 << 10 // bytes of a message
	MaxShownOrderTests = 1000     // tests of a failing or passing order
)

// Trim returns a copy of r for the pages, within the bounds above, whose
// Cut says what it leaves out; r is not changed.
func Trim(r *Report) *Report {
	t := *r
	t.Cut = slices.Clone(r.Cut)
	t.Findings = slices.Clone(r.Findings)
	if n := len(t.Findings); n > MaxShownFindings {
		t.Findings = t.Findings[:MaxShownFindings]
		t.Cut = append(t.Cut, fmt.Sprintf("the pages show the first %d of %d findings; report.json has them all", MaxShownFindings, n))
	}
	texts, runs, orders := 0, 0, 0
	cutText := func(s *string) {
		if len(*s) > MaxShownText {
			n := MaxShownText
			for n > 0 && (*s)[n]&0xC0 == 0x80 { // not inside a UTF-8 sequence
				n--
			}
			*s = (*s)[:n] + fmt.Sprintf("… [%d bytes cut]", len(*s)-n)
			texts++
		}
	}
	cutOrder := func(o *[]string) {
		if len(*o) > MaxShownOrderTests {
			*o = (*o)[:MaxShownOrderTests:MaxShownOrderTests]
			orders++
		}
	}
	for i := range t.Findings {
		f := &t.Findings[i]
		cutText(&f.Message)
		cutOrder(&f.FailingOrder)
		cutOrder(&f.PassingOrder)
		f.Evidence = slices.Clone(f.Evidence)
		if len(f.Evidence) > MaxShownEvidence {
			runs += len(f.Evidence) - MaxShownEvidence
			f.Evidence = f.Evidence[:MaxShownEvidence]
		}
		for j := range f.Evidence {
			cutText(&f.Evidence[j].Message)
		}
	}
	if texts > 0 {
		t.Cut = append(t.Cut, fmt.Sprintf("%d messages longer than %d KiB are cut", texts, MaxShownText>>10))
	}
	if runs > 0 {
		t.Cut = append(t.Cut, fmt.Sprintf("%d runs beyond the first %d of a finding are not shown", runs, MaxShownEvidence))
	}
	if orders > 0 {
		t.Cut = append(t.Cut, fmt.Sprintf("%d orders longer than %d tests are shown in part", orders, MaxShownOrderTests))
	}
	return &t
}
