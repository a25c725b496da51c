package launcher

import (
	"slices"
	"testing"
)

func TestFastStart(t *testing.T) {
	cases := []struct {
		args, want []string
	}{
		{nil, []string{fastStartArg}},
		{[]string{"-Xmx1g"}, []string{"-Xmx1g", fastStartArg}},
		{[]string{"-XX:TieredStopAtLevel=4"}, []string{"-XX:TieredStopAtLevel=4"}},
		{[]string{"-XX:-TieredCompilation"}, []string{"-XX:-TieredCompilation"}},
	}
	for _, c := range cases {
		env := Env{JVMArgs: c.args}
		if got := FastStart(env).JVMArgs; !slices.Equal(got, c.want) {
			t.Errorf("FastStart(%v) = %v, want %v", c.args, got, c.want)
		}
		if len(c.args) > 0 && len(env.JVMArgs) != len(c.args) {
			t.Errorf("FastStart changed its argument")
		}
	}
}
