// Package toolcache lets an adapter render a conversation's tools array
// once per catalog version instead of once per request: Cache keeps the
// last rendering keyed by agent.Request.ToolsVersion and whatever else it
// depends on, and Placeholder/Splice put the cached bytes into a request
// body without the JSON encoder validating and copying them again.
package toolcache

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"
)

// Key names one rendering: the request's ToolsVersion (0: never cached)
// and everything else the rendering depends on (mode, model, provider
// tools...), as a string.
type Key struct {
	Version uint64
	Extra   string
}

// Cache holds the last rendering. The zero value is ready; it is safe for
// concurrent use.
type Cache[V any] struct {
	mu  sync.Mutex
	key Key
	val V
	ok  bool
}

// Get returns the rendering for k, building it on a miss.
func (c *Cache[V]) Get(k Key, build func() (V, error)) (V, error) {
	if c == nil || k.Version == 0 {
		return build()
	}
	c.mu.Lock()
	if c.ok && c.key == k {
		v := c.val
		c.mu.Unlock()
		return v, nil
	}
	c.mu.Unlock()
	v, err := build()
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	c.key, c.val, c.ok = k, v, true
	c.mu.Unlock()
	return v, nil
}

// nonce makes the placeholder a string no request can otherwise contain.
var nonce = func() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "agent-tools-placeholder-" + hex.EncodeToString(b[:])
}()

// Placeholder is a JSON value to encode where the tools array goes.
var Placeholder = json.RawMessage(`"` + nonce + `"`)

// Parts returns body cut around the placeholder with tools between: the
// body as sent, in three parts, without copying any of them.
func Parts(body, tools []byte) ([][]byte, error) {
	i := bytes.Index(body, Placeholder)
	if i < 0 {
		return nil, errors.New("toolcache: the body has no tools placeholder")
	}
	return [][]byte{body[:i:i], tools, body[i+len(Placeholder):]}, nil
}

// Join concatenates parts into one body.
func Join(parts [][]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// Splice returns body with the placeholder replaced by tools, which must
// be valid, compact JSON (it is written as is).
func Splice(body, tools []byte) ([]byte, error) {
	parts, err := Parts(body, tools)
	if err != nil {
		return nil, err
	}
	return Join(parts), nil
}
