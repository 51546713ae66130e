package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTokensCommand(t *testing.T) {
	if _, err := os.Stat("../../shared/catalogs/server-puppeteer.json"); err != nil {
		t.Skipf("needs ../shared/catalogs (the shared data beside the repository root, as in CI): put shared/ at ../shared to run this (%v)", err)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	var stdout strings.Builder
	err := run([]string{"tokens", "--json", "--catalog", "../../shared/catalogs/server-puppeteer.json", "--out", out}, &stdout)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Results []struct{ Adapter, Mode string }
	}
	if err := json.Unmarshal([]byte(stdout.String()), &rep); err != nil || len(rep.Results) != 9 {
		t.Fatalf("JSON report: %v, %d results", err, len(rep.Results))
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != stdout.String() {
		t.Errorf("--out file differs from stdout (%v)", err)
	}
	if err := run([]string{"nope"}, &stdout); err == nil {
		t.Error("unknown benchmark accepted")
	}
}
