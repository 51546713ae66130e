package search

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// catalogEntry accepts the spellings tool catalogs use: MCP's inputSchema,
// Anthropic's input_schema, and the server fields of benchmark files.
type catalogEntry struct {
	ID                 string          `json:"id"`
	Name               string          `json:"name"`
	Description        string          `json:"description"`
	InputSchema        json.RawMessage `json:"input_schema"`
	InputSchemaMCP     json.RawMessage `json:"inputSchema"`
	Parameters         json.RawMessage `json:"parameters"`
	Server             string          `json:"server"`
	ServerDescription  string          `json:"server_description"`
	ServerDescription2 string          `json:"serverDescription"`
	ServerTitle        string          `json:"server_title"`
	// Function is OpenAI's {"type": "function", "function": {name,
	// description, parameters}} wrapping.
	Function *struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// unwrapped folds an OpenAI function wrapping into the entry.
func (e catalogEntry) unwrapped() catalogEntry {
	if f := e.Function; f != nil && e.Name == "" {
		e.Name, e.Description, e.Parameters = f.Name, f.Description, f.Parameters
	}
	return e
}

func (e catalogEntry) doc() Doc {
	d := Doc{ID: e.ID, Name: e.Name, Description: e.Description, Server: e.Server, ServerDescription: e.ServerDescription}
	for _, s := range []json.RawMessage{e.InputSchema, e.InputSchemaMCP, e.Parameters} {
		if len(s) > 0 && !bytes.Equal(bytes.TrimSpace(s), []byte("null")) {
			d.Schema = s
			break
		}
	}
	if d.ServerDescription == "" {
		d.ServerDescription = e.ServerDescription2
	}
	if e.ServerTitle != "" {
		d.ServerDescription = strings.TrimSpace(e.ServerTitle + "\n" + d.ServerDescription)
	}
	return d
}

// LoadCatalogFile reads a tool catalog: a JSON array or JSONL of
// {id?, name, description, input_schema | inputSchema | parameters, server?}
// (or OpenAI's {"type": "function", "function": {...}}), or an MCP
// tools/list result {"tools": [...]}. When no tool names a server, the
// file's base name is the server of all. A missing schema is fine; a tool
// without a name, or the same server and name twice, is an error naming the
// entry.
func LoadCatalogFile(path string) ([]Doc, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read catalog: %w", err)
	}
	docs, err := ParseCatalog(data, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", path, err)
	}
	return docs, nil
}

// ParseCatalog parses catalog data (see LoadCatalogFile); defaultServer is
// the server of a tools/list result's tools.
func ParseCatalog(data []byte, defaultServer string) ([]Doc, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("empty catalog")
	}
	var entries []catalogEntry
	switch trimmed[0] {
	case '[':
		if err := json.Unmarshal(trimmed, &entries); err != nil {
			return nil, fmt.Errorf("parse JSON array: %w", err)
		}
	case '{':
		var list struct {
			Tools *[]catalogEntry `json:"tools"`
		}
		if json.Unmarshal(trimmed, &list) == nil && list.Tools != nil {
			entries = *list.Tools
			for i := range entries {
				if entries[i].Server == "" {
					entries[i].Server = defaultServer
				}
			}
			break
		}
		var err error
		if entries, err = parseJSONL(trimmed); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("not a JSON array, JSONL or tools/list result")
	}
	// A catalog that names no server at all is one server's tools/list (the
	// files in shared/catalogs are bare arrays): the file names the server.
	if !slices.ContainsFunc(entries, func(e catalogEntry) bool { return e.Server != "" }) {
		for i := range entries {
			entries[i].Server = defaultServer
		}
	}
	docs := make([]Doc, 0, len(entries))
	seen := map[[2]string]int{}
	for i, e := range entries {
		e = e.unwrapped()
		if strings.TrimSpace(e.Name) == "" {
			return nil, fmt.Errorf("tool %d has no name", i+1)
		}
		k := [2]string{e.Server, e.Name}
		if e.ID != "" {
			k = [2]string{"\x00id", e.ID}
		}
		if j, dup := seen[k]; dup {
			return nil, fmt.Errorf("tool %d (%s) repeats tool %d: names must be unique per server", i+1, e.Name, j)
		}
		seen[k] = i + 1
		docs = append(docs, e.doc())
	}
	return docs, nil
}

func parseJSONL(data []byte) ([]catalogEntry, error) {
	var out []catalogEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var e catalogEntry
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read JSONL: %w", err)
	}
	return out, nil
}
