package state

import (
	"encoding/json"
	"testing"

	"github.com/flakyhq/flaky/internal/engine/agent"
)

func root(kind, name, tree string) agent.StateRoot {
	return agent.StateRoot{Kind: kind, Root: name, FP: tree, Tree: json.RawMessage(tree)}
}

func TestDiff(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want []Change
	}{
		{"counter", `0`, `1`, []Change{{"", "0", "1"}}},
		{"map entry changed", `{"@class":"java.util.HashMap","@entries":[["BTC",100],["ETH",10]]}`, `{"@class":"java.util.HashMap","@entries":[["BTC",90],["ETH",10]]}`,
			[]Change{{"['BTC']", "100", "90"}}},
		{"map entry added", `{"@class":"java.util.HashMap","@entries":[]}`, `{"@class":"java.util.HashMap","@entries":[["url","db"]]}`,
			[]Change{{"['url']", absentText, `"db"`}}},
		{"list in a singleton", `{"@class":"p.Bus","events":{"@class":"java.util.ArrayList","@items":[]}}`, `{"@class":"p.Bus","events":{"@class":"java.util.ArrayList","@items":["a"]}}`,
			[]Change{{".events[0]", absentText, `"a"`}}},
		{"null field left out by the frame", `{"@class":"p.Session"}`, `{"@class":"p.Session","user":"alice"}`,
			[]Change{{".user", "null", `"alice"`}}},
		{"cut map", `{"@class":"java.util.HashMap","@size":3,"@entries":[{"@cut":"nodes"}]}`, `{"@class":"java.util.HashMap","@size":4,"@entries":[{"@cut":"nodes"}]}`,
			[]Change{{"", "HashMap(3 elements, cut)", "HashMap(4 elements, cut)"}}},
		{"set grows", `{"@class":"java.util.HashSet","@items":["a"]}`, `{"@class":"java.util.HashSet","@items":["a","b"]}`,
			[]Change{{"", `["a"]`, `["a", "b"]`}}},
		{"other class", `{"@class":"p.A"}`, `{"@class":"p.B"}`, []Change{{"", "A{}", "B{}"}}},
		{"enum and value", `{"@enum":"p.Color","@value":"RED"}`, `{"@class":"java.lang.Long","@value":"5"}`, []Change{{"", "Color.RED", "5"}}},
		{"string builder", `{"@class":"p.H","pending":{"@class":"java.lang.StringBuilder","@value":""}}`, `{"@class":"p.H","pending":{"@class":"java.lang.StringBuilder","@value":"trailing"}}`,
			[]Change{{".pending", `""`, `"trailing"`}}},
		{"equal", `{"@class":"p.A","x":1}`, `{"x":1,"@class":"p.A"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Root{Tree: json.RawMessage(tt.a), FP: "a"}
			b := Root{Tree: json.RawMessage(tt.b), FP: "b"}
			got, _ := Diff(a, b, 10)
			if len(got) != len(tt.want) {
				t.Fatalf("Diff = %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("change %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestAtUsesLaterInitValuesForUninitialisedClasses(t *testing.T) {
	events := []agent.State{
		{Point: "init", Index: -1, Roots: []agent.StateRoot{root(StaticField, "p.A.x", "1")}, Last: true},
		{Point: "before", Index: 0, Roots: []agent.StateRoot{root(JDKDefault, "TimeZone.default", `"UTC"`), root(SystemProperty, "mode", `"debug"`)}, Last: true},
		{Point: "init", Index: -1, Roots: []agent.StateRoot{root(StaticField, "p.B.y", "7")}, Last: true},
		{Point: "init", Index: -1, Roots: []agent.StateRoot{root(StaticField, "p.A.x", "99")}, Last: true},
	}
	s, ok := At(events, Before(0))
	if !ok {
		t.Fatal("no capture before 0")
	}
	if got := string(s[Key{StaticField, "p.A.x"}].Tree); got != "1" {
		t.Errorf("p.A.x = %s, want 1 (its value at the capture)", got)
	}
	if got := string(s[Key{StaticField, "p.B.y"}].Tree); got != "7" {
		t.Errorf("p.B.y = %s, want 7 (its value after its initialiser)", got)
	}
	if _, ok := At(events, Before(1)); ok {
		t.Error("found a capture before 1")
	}
	if v, ok := s.value(Key{SystemProperty, "other"}); !ok || !v.Initial {
		t.Errorf("an uncaptured property is %+v, %v; want its start value", v, ok)
	}
	if _, ok := s.value(Key{StaticField, "p.C.z"}); ok {
		t.Error("an uncaptured static field is known")
	}
}

func TestPollutersCompareWithStateAfterInitialisation(t *testing.T) {
	events := []agent.State{
		{Point: "before", Index: 0, Test: "T#a", Roots: []agent.StateRoot{root(JDKDefault, "Locale.default", `"en"`)}, Last: true},
		// T#a loads class L, whose initialiser fills its map: no pollution.
		{Point: "init", Index: -1, Test: "T#a", Roots: []agent.StateRoot{root(StaticField, "p.L.map", `{"@class":"java.util.HashMap","@entries":[["k",1]]}`)}, Last: true},
		{Point: "after", Index: 0, Test: "T#a", Last: true},
		{Point: "before", Index: 1, Test: "T#b", Last: true},
		{Point: "after", Index: 1, Test: "T#b", Roots: []agent.StateRoot{
			root(StaticField, "p.L.map", `{"@class":"java.util.HashMap","@entries":[["k",2]]}`),
			root(SystemProperty, "mode", `"debug"`),
		}, Last: true},
		{Point: "before", Index: 2, Test: "T#c", Last: true},
		{Point: "after", Index: 2, Test: "T#c", Roots: []agent.StateRoot{{Kind: SystemProperty, Root: "mode", Absent: true}}, Last: true},
	}
	got := Polluters(events)
	if len(got) != 2 || got[0].Test != "T#b" || got[1].Test != "T#c" {
		t.Fatalf("Polluters = %+v, want T#b and T#c", got)
	}
	b := got[0].Roots
	if len(b) != 2 || b[0].Root != "p.L.map" || b[0].Changes[0] != (Change{"['k']", "1", "2"}) || b[1].Root != "mode" {
		t.Errorf("T#b changed %+v", b)
	}
	if c := got[1].Roots; len(c) != 1 || c[0].Changes[0].B != "<as at JVM start>" {
		t.Errorf("T#c changed %+v", c)
	}
}
