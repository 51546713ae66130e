package config

import (
	"encoding/json"
	"fmt"
)

// AutoCompact is the auto_compact setting: a share in (0, 1], true for the
// default share, or false (Off).
type AutoCompact struct {
	Share float64
	Off   bool
}

// DefaultAutoCompact is the share of the context window a request may fill
// before the conversation is compacted.
const DefaultAutoCompact = 0.8

// UnmarshalJSON reads false, true or a number in (0, 1].
func (a *AutoCompact) UnmarshalJSON(b []byte) error {
	var on bool
	if json.Unmarshal(b, &on) == nil {
		*a = AutoCompact{Off: !on}
		if on {
			a.Share = DefaultAutoCompact
		}
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil || f <= 0 || f > 1 {
		return fmt.Errorf("auto_compact must be false, true or a share of the context window between 0 and 1, got %s", b)
	}
	*a = AutoCompact{Share: f}
	return nil
}

// MarshalJSON writes the setting back the way it is read.
func (a AutoCompact) MarshalJSON() ([]byte, error) {
	if a.Off {
		return []byte("false"), nil
	}
	return json.Marshal(a.Share)
}

// CompactShare is the auto-compaction share in effect: 0 when off.
func (c *Config) CompactShare() float64 {
	switch {
	case c.AutoCompact == nil:
		return DefaultAutoCompact
	case c.AutoCompact.Off:
		return 0
	case c.AutoCompact.Share > 0:
		return c.AutoCompact.Share
	}
	return DefaultAutoCompact
}
