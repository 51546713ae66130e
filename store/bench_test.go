//go:build unix

package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
)

// benchMessage is message i of a realistic tool-using conversation: a user
// prompt, an assistant answer with a tool call and its raw blocks (~1.5 KB),
// a tool result.
func benchMessage(i int) agent.Message {
	switch i % 3 {
	case 0:
		return agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart(fmt.Sprintf("Request %d: ", i) + strings.Repeat("please look into this ", 10))}}
	case 1:
		text := strings.Repeat("Here is what I found and what I will do next. ", 8)
		input := fmt.Sprintf(`{"path":"/src/file%d.go","pattern":"func main"}`, i)
		raw, _ := json.Marshal([]map[string]any{
			{"type": "text", "text": text},
			{"type": "tool_use", "id": fmt.Sprintf("toolu_%06d", i), "name": "grep", "input": json.RawMessage(input)},
		})
		raw = append(raw, []byte(strings.Repeat(" ", 0))...)
		return agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{
			agent.TextPart(text),
			agent.ToolCallPart(agent.ToolCall{ID: fmt.Sprintf("toolu_%06d", i), Name: "grep", Input: json.RawMessage(input)}),
			agent.RawPart("anthropic", "messages", raw),
		}}
	}
	return agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{
		CallID: fmt.Sprintf("toolu_%06d", i-1), Name: "grep", Text: strings.Repeat("src/file.go:12: func main() {}\n", 12)})}}
}

// BenchmarkResume10k measures a resume: open the database, open a session
// of 10,000 messages and load its history. Target: under 300 ms.
func BenchmarkResume10k(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "agent.db")
	d, err := Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	s, err := d.Create(ctx, SessionMeta{Workdir: "/w", Provider: "anthropic", Model: "m"})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 10_000; i++ {
		if err := s.AppendMessage(ctx, benchMessage(i)); err != nil {
			b.Fatal(err)
		}
	}
	id := s.ID()
	s.Close()
	d.Close()
	// CPU time per resume as well: wall time on a loaded machine says
	// more about the neighbours than about the code.
	cpu0 := cpuTime()
	n := 0
	for b.Loop() {
		n++
		d, err := Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		s, err := d.OpenSession(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		msgs, err := s.LoadRepaired(ctx)
		if err != nil || len(msgs) != 10_000 {
			b.Fatalf("loaded %d messages: %v", len(msgs), err)
		}
		s.Close()
		d.Close()
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(n), "cpu-ms/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkAppend measures committing one completed message. Target: p50
// under 2 ms.
func BenchmarkAppend(b *testing.B) {
	ctx := context.Background()
	d, _ := openTest(b)
	s, err := d.Create(ctx, SessionMeta{Workdir: "/w", Provider: "anthropic", Model: "m"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var times []time.Duration
	i := 0
	for b.Loop() {
		m := benchMessage(i)
		start := time.Now()
		if err := s.AppendMessage(ctx, m); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
		i++
	}
	sort.Slice(times, func(a, c int) bool { return times[a] < times[c] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkSavePartial measures one streaming checkpoint of a growing answer.
func BenchmarkSavePartial(b *testing.B) {
	ctx := context.Background()
	d, _ := openTest(b)
	s, err := d.Create(ctx, SessionMeta{Workdir: "/w"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	text := ""
	for b.Loop() {
		text += "a few more streamed words "
		if len(text) > 8000 {
			text = ""
		}
		if err := s.SavePartial(ctx, agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart(text)}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSizePer1000 reports the database size per 1,000 messages of
// the benchmark conversation, after a checkpoint.
func BenchmarkSizePer1000(b *testing.B) {
	ctx := context.Background()
	var size int64
	for b.Loop() {
		path := filepath.Join(b.TempDir(), "agent.db")
		d, err := Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		s, err := d.Create(ctx, SessionMeta{Workdir: "/w"})
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < 1000; i++ {
			if err := s.AppendMessage(ctx, benchMessage(i)); err != nil {
				b.Fatal(err)
			}
		}
		s.Close()
		if _, err := d.sql.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			b.Fatal(err)
		}
		d.Close()
		st, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		size = st.Size()
	}
	b.ReportMetric(float64(size)/1024, "KiB/1000msgs")
}

// BenchmarkLearnedUses100k measures what a start reads for tool search to
// learn from: the newest 100,000 (request, tool) pairs of 150,000 recorded.
func BenchmarkLearnedUses100k(b *testing.B) {
	d := learnedStore(b)
	cpu0 := cpuTime()
	n := 0
	for b.Loop() {
		uses, err := d.LearnedUses(ctx0, "", 100_000)
		if err != nil || len(uses) != 100_000 {
			b.Fatalf("read %d uses: %v", len(uses), err)
		}
		n++
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(n), "cpu-µs/op")
}

// BenchmarkLearnedAnalysed100k is LearnedUses100k as a start reads them:
// the requests' terms instead of their text (LearnedAnalysed).
func BenchmarkLearnedAnalysed100k(b *testing.B) {
	d := learnedStore(b, WithRequestAnalyser(fakeAnalyser("v1")))
	cpu0 := cpuTime()
	n := 0
	for b.Loop() {
		set, err := d.LearnedAnalysed(ctx0, "", 100_000)
		if err != nil || len(set.Uses) != 100_000 || set.Stale != 0 {
			b.Fatalf("read %d uses, %d stale: %v", len(set.Uses), set.Stale, err)
		}
		n++
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(n), "cpu-µs/op")
}

var ctx0 = context.Background()

// learnedStore is a store of 150,000 recorded calls.
func learnedStore(b *testing.B, opts ...Option) *DB {
	d, err := Open(ctx0, filepath.Join(b.TempDir(), "agent.db"), opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close() })
	t0 := time.Now()
	batch := make([]ToolUse, 0, 1000)
	for i := range 150_000 {
		batch = append(batch, ToolUse{
			At: t0.Add(time.Duration(i) * time.Second), Session: "s", Kind: UseCalled, Search: "client",
			Query: fmt.Sprintf("find the %d open issues of the repository and summarise the newest ones", i),
			Tool:  fmt.Sprintf("tool_%d", i%5000), Server: fmt.Sprintf("server_%d", i%40),
		})
		if len(batch) == cap(batch) {
			if err := d.RecordToolUses(ctx0, batch...); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return d
}

// BenchmarkOpenNew is a first run's Open: a new database file made and
// opened (go test ./store -run X -bench OpenNew -benchtime 50x). cpu-µs/op
// is the process's CPU time (rusage) in Open alone: Close, whose
// checkpoint a run leaves to the next one (CloseForExit), is not counted.
func BenchmarkOpenNew(b *testing.B) {
	dir := b.TempDir()
	var cpu time.Duration
	n := 0
	for i := 0; b.Loop(); i++ {
		c0 := cpuTime()
		d, err := Open(context.Background(), filepath.Join(dir, fmt.Sprint(i), "agent.db"))
		cpu += cpuTime() - c0
		n++
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		d.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Microseconds())/float64(n), "cpu-µs/op")
}

// BenchmarkSaveCatalogsFirstRun is a first run's catalog write: the
// eleven lists of 282 tools in one SaveCatalogs on a new database
// (go test ./store -run X -bench SaveCatalogsFirstRun -benchtime 100x
// -benchmem). cpu-µs/op is the process's CPU time (rusage) in SaveCatalogs
// alone. built: each list given as bytes made afresh for the write, as
// tools/mcp encoded them before; streamed: each written through
// tools.CatalogEntry.WriteTools, as tools/mcp does now.
func BenchmarkSaveCatalogsFirstRun(b *testing.B) {
	for _, mode := range []string{"built", "streamed"} {
		b.Run(mode, func(b *testing.B) {
			ctx := context.Background()
			dir := b.TempDir()
			lists := firstRunCatalogs()
			var cpu time.Duration
			n := 0
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				d, err := Open(ctx, filepath.Join(dir, fmt.Sprint(i), "agent.db"))
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				c0 := cpuTime()
				es := streamed(lists, 0, 4096)
				if mode == "built" {
					es = slices.Clone(lists)
					for j := range es {
						es[j].Tools = bytes.Clone(es[j].Tools)
					}
				}
				err = d.SaveCatalogs(ctx, es)
				cpu += cpuTime() - c0
				n++
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				d.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(cpu.Microseconds())/float64(n), "cpu-µs/op")
		})
	}
}

// BenchmarkOpenExisting is a later run's Open: the database is there, at
// the latest version, with a session in it.
func BenchmarkOpenExisting(b *testing.B) {
	path := filepath.Join(b.TempDir(), "agent.db")
	d, err := Open(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	create(b, d, "/w").Close()
	d.Close()
	for b.Loop() {
		d, err := Open(context.Background(), path)
		if err != nil {
			b.Fatal(err)
		}
		d.Close()
	}
}

// BenchmarkLoadCatalogsWarm is a later run's catalog read: the eleven
// lists SaveCatalogsFirstRun writes, each loaded as a start loads them
// (go test ./store -run X -bench LoadCatalogsWarm -benchtime 200x).
func BenchmarkLoadCatalogsWarm(b *testing.B) {
	ctx := context.Background()
	d, err := Open(ctx, filepath.Join(b.TempDir(), "agent.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	es := firstRunCatalogs()
	if err := d.SaveCatalogs(ctx, es); err != nil {
		b.Fatal(err)
	}
	cpu0 := cpuTime()
	n := 0
	for b.Loop() {
		for _, e := range es {
			got, err := d.LoadCatalog(ctx, e.Server, e.ConfigHash)
			if err != nil || len(got.Tools) != len(e.Tools) {
				b.Fatalf("%s: %d bytes: %v", e.Server, len(got.Tools), err)
			}
		}
		n++
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(n), "cpu-µs/op")
}
