package chaos

import (
	"os"
	"regexp"
	"slices"
	"testing"
)

// javaStrategy is the agent's strategy enum, the table Strategies must match.
const javaStrategy = "../../../java/flaky-agent/src/main/java/dev/flaky/agent/chaos/Strategy.java"

// javaConstant is one enum constant line, `NAME("GROUP"),`.
var javaConstant = regexp.MustCompile(`(?m)^\s*([A-Z_]+)\("([A-Z_]+)"\)[,;]`)

// TestStrategiesMatchJava checks that Strategies and the agent's Strategy
// enum name the same strategies, in the same order, in the same groups: the
// driver passes these ids to the agent, which rejects those it does not know.
func TestStrategiesMatchJava(t *testing.T) {
	src, err := os.ReadFile(javaStrategy)
	if err != nil {
		t.Fatal(err)
	}
	var java []Strategy
	for _, m := range javaConstant.FindAllStringSubmatch(string(src), -1) {
		java = append(java, Strategy{ID: m[1], Group: m[2]})
	}
	var goSide []Strategy
	for _, s := range Strategies {
		goSide = append(goSide, Strategy{ID: s.ID, Group: s.Group}) // OutsideSpec is the driver's alone
	}
	if !slices.Equal(java, goSide) {
		t.Errorf("strategy tables differ:\nJava (Strategy.java): %v\nGo (Strategies):      %v", java, goSide)
	}
}
