package app

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/agent-dev/agent/tools/search"
)

// SearchIndex is the index agent tools search uses: over the catalog file,
// or the tools of the MCP servers (searched as a session would, with what
// earlier sessions taught), having learned the history file's uses first.
// The servers' start-up warnings go to warn.
func SearchIndex(ctx context.Context, s Settings, catalog, history, version string, warn func(string)) (*search.Index, error) {
	// What earlier sessions taught, and the synonym tables, are read while
	// the servers list their tools: 100,000 stored pairs take about 0.1 s,
	// the tables as long, which the user would otherwise wait for after
	// the servers.
	var stored []search.Use
	var analysis *search.Analysis
	read := make(chan struct{})
	go func() {
		defer close(read)
		if catalog == "" {
			stored, analysis = LearnedUses(ctx, s)
		}
		// The first search reads the synonym tables; the servers take
		// longer to start than that.
		search.Warm(search.DefaultConfig().Stemmer)
	}()
	docs, err := searchDocs(ctx, s, catalog, version, warn)
	<-read
	if err != nil {
		return nil, err
	}
	var uses []search.Use
	if history != "" {
		if uses, err = LoadHistoryFile(history); err != nil {
			return nil, fileFlagError("history", history, `a history file (JSONL of {"query": ..., "tool": ...})`, err)
		}
	}
	uses = append(stored, uses...)
	return search.NewLearnedAnalysed(docs, search.DefaultConfig(), uses, analysis), nil
}

// searchDocs loads the catalog file, or the tools of the MCP servers.
func searchDocs(ctx context.Context, s Settings, catalog, version string, warn func(string)) ([]search.Doc, error) {
	if catalog != "" {
		docs, err := search.LoadCatalogFile(catalog)
		if err != nil {
			return nil, fileFlagError("catalog", catalog, "a catalog file (a JSON array or JSONL of tools, or a tools/list result)", err)
		}
		return docs, nil
	}
	ts, warnings, err := MCPTools(ctx, s, version)
	if err != nil {
		return nil, fmt.Errorf("load MCP tools: %w", err)
	}
	for _, w := range warnings {
		warn(w.Error())
	}
	switch {
	case len(ts) == 0 && len(warnings) > 0:
		// Servers were configured or named, and none listed a tool: the
		// warnings above say why; "name servers with --mcp" would tell a
		// user who did just that to do it again.
		return nil, fmt.Errorf("no MCP tools to search: no server listed its tools (the warning above says why); fix that, or give --catalog FILE")
	case len(ts) == 0:
		return nil, Usagef("no MCP tools to search: name servers with --mcp NAME or give --catalog FILE")
	}
	return search.FromTools(ts), nil
}

// fileFlagError is the usage error of a file flag whose file could not be
// read: one line naming the flag, the path, what failed and what to give.
// Go's "read catalog: open /x: no such file or directory" named neither the
// flag nor what the file should be. Errors that are not about opening or
// reading the file (a bad line) are returned as they are.
func fileFlagError(flag, path, what string, err error) error {
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return usage(err)
	}
	return &UsageError{fmt.Errorf("--%s %s: %w: give %s", flag, path, pe.Err, what)}
}

type queryLine struct {
	ID    json.RawMessage `json:"id"`
	Query string          `json:"query"`
}

type answerLine struct {
	ID      json.RawMessage `json:"id"`
	Results []string        `json:"results"`
	Error   string          `json:"error,omitempty"`
}

// AnswerQueries runs every query of a JSONL file. A query the engine
// refuses (empty, bad regex) is answered with no results and its error, so
// one bad line does not lose a whole evaluation run.
func AnswerQueries(ix *search.Index, opts search.Options, path string, out io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return fileFlagError("queries", path, `a queries file (JSONL of {"id": ..., "query": ...})`, err)
	}
	defer f.Close()
	bw := bufio.NewWriter(out)
	enc := json.NewEncoder(bw)
	err = eachLine(f, path, func(line int, b []byte) error {
		var q queryLine
		if err := json.Unmarshal(b, &q); err != nil {
			return &UsageError{Err: fmt.Errorf("queries %s line %d: %w", path, line, err)}
		}
		if len(q.ID) == 0 {
			q.ID = json.RawMessage(fmt.Sprint(line))
		}
		a := answerLine{ID: q.ID, Results: []string{}}
		hits, err := ix.Search(q.Query, opts)
		if err != nil {
			a.Error = err.Error()
		}
		for _, h := range hits {
			a.Results = append(a.Results, search.Doc{ID: h.ID, Name: h.Name}.Key())
		}
		if err := enc.Encode(a); err != nil {
			return fmt.Errorf("write answers: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// eachLine calls fn with each line of r (the file name) that is not blank,
// numbered from 1, and stops at its first error. Lines may be up to 16 MB.
func eachLine(r io.Reader, name string, fn func(line int, b []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		if err := fn(line, sc.Bytes()); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	return nil
}

// LoadHistoryFile reads JSONL {"query", "tool": id or name} lines.
func LoadHistoryFile(path string) ([]search.Use, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	defer f.Close()
	var out []search.Use
	err = eachLine(f, path, func(line int, b []byte) error {
		var u search.Use
		if err := json.Unmarshal(b, &u); err != nil {
			return fmt.Errorf("history %s line %d: %w", path, line, err)
		}
		if strings.TrimSpace(u.Query) == "" || strings.TrimSpace(u.Tool) == "" {
			return fmt.Errorf(`history %s line %d: want {"query": ..., "tool": ...}`, path, line)
		}
		out = append(out, u)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
