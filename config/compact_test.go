package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAutoCompact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file    string
		want    float64
		wantErr string
	}{
		{`{}`, DefaultAutoCompact, ""},
		{`{"auto_compact": false}`, 0, ""},
		{`{"auto_compact": true}`, DefaultAutoCompact, ""},
		{`{"auto_compact": 0.5}`, 0.5, ""},
		{`{"auto_compact": 1.5}`, 0, "auto_compact must be false, true or a share"},
		{`{"auto_compact": "soon"}`, 0, "auto_compact must be false, true or a share"},
		{`{"agents": {"a": {"model": "m"}}}`, DefaultAutoCompact, ""},
	}
	for _, tt := range tests {
		p := filepath.Join(t.TempDir(), "config.json")
		if err := os.WriteFile(p, []byte(tt.file), 0o600); err != nil {
			t.Fatal(err)
		}
		c := Defaults()
		err := c.Load(p, true)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: error %v, want %q", tt.file, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if got := c.CompactShare(); got != tt.want {
			t.Errorf("%s: share %v, want %v", tt.file, got, tt.want)
		}
	}
}
