package tokens

import "testing"

func TestCountUsesO200k(t *testing.T) {
	// Known o200k_base counts.
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"hello world", 2},
		{"", 0},
	} {
		if got := Count(tc.in); got != tc.want {
			t.Errorf("Count(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
	if _, err := encoding(); err != nil {
		t.Fatalf("offline o200k_base did not load: %v", err)
	}
}

func TestToolCountsTheDefinition(t *testing.T) {
	small := Tool("a", "b", []byte(`{}`))
	big := Tool("create_issue", "Create a new issue in a GitHub repository with a title and a body.", []byte(`{"type":"object","properties":{"title":{"type":"string"}}}`))
	if small <= 0 || big <= small {
		t.Errorf("small=%d big=%d", small, big)
	}
}

func TestEstimateContext(t *testing.T) {
	big := Def{Name: "big", Description: string(make([]byte, 0)) + "a long description of a tool that does many things with many words", Schema: []byte(`{"type":"object","properties":{"a":{"type":"string","description":"the first argument of the tool"}}}`)}
	var many []Def
	for i := 0; i < 50; i++ {
		many = append(many, big)
	}
	off := EstimateContext(nil, many, "off")
	native := EstimateContext(nil, many, "native")
	if off.Context != off.Eager || off.Saved != 0 {
		t.Errorf("off = %+v", off)
	}
	if native.Eager != off.Eager || native.Context >= off.Context/5 || native.Saved != native.Eager-native.Context {
		t.Errorf("native = %+v (eager %d)", native, off.Eager)
	}
	if e := EstimateContext([]Def{big}, nil, "native"); e.Saved != 0 || e.Context != e.Eager {
		t.Errorf("nothing deferred = %+v", e)
	}
}

func TestSearchToolCost(t *testing.T) {
	n := 0
	for _, d := range searchToolDefs {
		n += Tool(d.Name, d.Description, d.Schema)
	}
	if n != searchToolCost {
		t.Fatalf("searchToolCost = %d, the definitions count %d: update the constant", searchToolCost, n)
	}
	if (Def{Name: "x", Tokens: 7}).count() != 7 {
		t.Fatal("a known count is not used")
	}
}
