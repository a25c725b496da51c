package logs

import (
	"fmt"
	"slices"
	"testing"
)

// TestLogger checks where each kind of note goes: progress notes to the
// note sink, debug notes to the debug sink, both named after the stage;
// the zero Logger and nil sinks drop lines.
func TestLogger(t *testing.T) {
	var got []string
	sink := func(kind string) Sink {
		return func(stage, line string) { got = append(got, fmt.Sprintf("%s %s: %s", kind, stage, line)) }
	}
	tests := []struct {
		name      string
		log       Logger
		debugging bool
		want      []string
	}{
		{"zero", Logger{}, false, nil},
		{"both sinks", New(sink("note"), sink("debug")).Stage("orders"), true, []string{"note orders: ran 3", "debug orders: test a"}},
		{"no debug sink", New(sink("note"), nil).Stage("chaos"), false, []string{"note chaos: ran 3"}},
		{"debug dropped", New(sink("note"), sink("debug")).WithoutDebug(), false, []string{"note : ran 3"}},
		{"printf", Printf(func(format string, args ...any) { got = append(got, "printf "+fmt.Sprintf(format, args...)) }), false, []string{"printf ran 3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got = nil
			tt.log.Logf("ran %d", 3)
			tt.log.Debugf("test %s", "a")
			if !slices.Equal(got, tt.want) {
				t.Errorf("lines %q, want %q", got, tt.want)
			}
			if d := tt.log.Debugging(); d != tt.debugging {
				t.Errorf("Debugging() = %v, want %v", d, tt.debugging)
			}
		})
	}
}
