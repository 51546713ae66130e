package toolcache

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestCache(t *testing.T) {
	var c Cache[string]
	builds := 0
	build := func() (string, error) { builds++; return "v", nil }
	for i := 0; i < 3; i++ {
		if v, err := c.Get(Key{Version: 7, Extra: "native"}, build); v != "v" || err != nil {
			t.Fatal(v, err)
		}
	}
	if builds != 1 {
		t.Fatalf("%d builds for one key", builds)
	}
	c.Get(Key{Version: 7, Extra: "client"}, build)
	c.Get(Key{Version: 8, Extra: "client"}, build)
	c.Get(Key{}, build)
	c.Get(Key{}, build)
	if builds != 5 {
		t.Fatalf("%d builds, want a build per new key and for every version 0", builds)
	}
	if _, err := c.Get(Key{Version: 9}, func() (string, error) { return "", errors.New("x") }); err == nil {
		t.Fatal("error lost")
	}
	if v, _ := c.Get(Key{Version: 8, Extra: "client"}, build); v != "v" || builds != 5 {
		t.Fatalf("a failed build or version 0 replaced the cached key: builds %d", builds)
	}
}

func TestSplice(t *testing.T) {
	body, _ := json.Marshal(struct {
		Msg   string          `json:"msg"`
		Tools json.RawMessage `json:"tools"`
		S     bool            `json:"stream"`
	}{"say \"tools\"", Placeholder, true})
	got, err := Splice(body, []byte(`[{"name":"a"}]`))
	if err != nil || string(got) != `{"msg":"say \"tools\"","tools":[{"name":"a"}],"stream":true}` {
		t.Fatalf("%s %v", got, err)
	}
	if _, err := Splice([]byte(`{}`), nil); err == nil {
		t.Fatal("missing placeholder accepted")
	}
}
