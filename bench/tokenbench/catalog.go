package tokenbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/mcp"
)

// Catalog is a named list of tools as the agent registers them from MCP:
// "<server>__<tool>" names, compact schemas, no executors.
type Catalog struct {
	Name  string
	Tools []tools.Tool
	// Generated is set on the synthetic catalog.
	Generated bool

	// targets caches pickTargets, which scans the whole catalog.
	targets []target
}

// Targets are the tools the scripted conversation discovers.
func (c *Catalog) Targets() []target {
	if c.targets == nil {
		c.targets = pickTargets(c.Tools)
	}
	return c.targets
}

// catalogEntry is one tool of a tools/list capture; ALL.json adds server.
type catalogEntry struct {
	Server      string          `json:"server"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// LoadCatalog reads a capture: a JSON array of tools (or a tools/list
// result), each with an optional server that defaults to the file's base
// name. Schemas are compacted as tools/mcp does when it lists a server.
func LoadCatalog(path string) (Catalog, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Catalog{}, fmt.Errorf("read catalog: %w", err)
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	var entries []catalogEntry
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		var list struct {
			Tools []catalogEntry `json:"tools"`
		}
		err = json.Unmarshal(t, &list)
		entries = list.Tools
	} else {
		err = json.Unmarshal(data, &entries)
	}
	if err != nil {
		return Catalog{}, fmt.Errorf("catalog %s: %w", path, err)
	}
	c := Catalog{Name: base}
	seen := map[string]bool{}
	for _, e := range entries {
		server := e.Server
		if server == "" {
			server = base
		}
		schema := json.RawMessage(`{"type":"object","properties":{}}`)
		var buf bytes.Buffer
		if s := bytes.TrimSpace(e.InputSchema); len(s) > 0 && s[0] == '{' && json.Compact(&buf, s) == nil {
			schema = buf.Bytes()
		}
		name := mcp.ToolName(server, e.Name)
		if seen[name] {
			return Catalog{}, fmt.Errorf("catalog %s: tool %s twice", path, name)
		}
		seen[name] = true
		c.Tools = append(c.Tools, tools.Tool{Name: name, Description: e.Description, Schema: schema, Server: server})
	}
	if len(c.Tools) == 0 {
		return Catalog{}, fmt.Errorf("catalog %s: no tools", path)
	}
	return c, nil
}

// LoadCatalogs reads every *.json of dir, ALL.json last.
func LoadCatalogs(dir string) ([]Catalog, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool {
		ai, aj := filepath.Base(files[i]) == "ALL.json", filepath.Base(files[j]) == "ALL.json"
		if ai != aj {
			return aj
		}
		return files[i] < files[j]
	})
	var out []Catalog
	for _, f := range files {
		c, err := LoadCatalog(f)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no catalogs in %s", dir)
	}
	return out, nil
}

// regions rename the servers of the generated catalog's copies.
var regions = []string{"eu", "us", "ap", "sa", "af", "me", "ca", "oc", "an", "ar"}

// Generate derives an n-tool catalog from base, as if the same servers ran
// in several deployments: copy 0 is base itself, copy k renames every
// server to "<server>-<region>" and perturbs each description with a tag
// naming the deployment ("(deployment eu, replica zq0312)"). The tag is
// also the one word of the tool no other tool contains, which the
// benchmark's scripted searches use.
func Generate(name string, base []tools.Tool, n int) Catalog {
	c := Catalog{Name: name, Generated: true}
	for i := 0; i < n; i++ {
		t := base[i%len(base)]
		if k := i / len(base); k > 0 {
			region := regions[(k-1)%len(regions)]
			if k > len(regions) {
				region += fmt.Sprint(k)
			}
			server := t.Server + "-" + region
			orig := strings.TrimPrefix(t.Name, mcp.ServerPrefix(t.Server)+"__")
			t.Name = mcp.ToolName(server, orig)
			t.Server = server
			t.Description = fmt.Sprintf("%s (deployment %s, replica zq%04d)", t.Description, region, i)
		}
		c.Tools = append(c.Tools, t)
	}
	return c
}
