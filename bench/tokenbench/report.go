package tokenbench

import (
	"fmt"
	"io"
	"strings"
)

// Method explains how the figures are made; the markdown report starts
// with it.
const Method = `Method:
- Each row is a real agent.Session driving the real adapter against its fake server (providers/*test) through a scripted
  10-turn conversation: turns 2, 4, 6, 8 and 10 each discover one deferred tool (a search that finds exactly that tool,
  then a call of it), the other turns are plain text. Every catalog tool is deferred; no other tools are active.
  Models: anthropic claude-sonnet-4-5, openai-responses gpt-5.4 (both with native tool search), openai-chat gpt-4.1.
  Off sends the same tools eagerly; Chat Completions has no native search, so native resolves to client there.
- Request bodies are taken from the fake's request log, byte for byte as the adapter sent them.
- Tokens are o200k_base counts (tiktoken, offline) via tools/tokens: an estimate, since Claude and other models tokenize
  differently; the ratios are what matter. Bodies over 256 KB after turn 1 are counted as tools array + rest (within a
  token or two of the whole).
- "sent" counts the whole body. "context" counts what enters the model's context: the body without the tool definitions
  sent with defer_loading:true (both APIs keep those out of context until a search loads them), plus, for Anthropic, the
  definitions that tool_reference blocks in the history load (the API expands each into the full definition). OpenAI
  search results carry their definitions inline, so they are in the body already. Provider-side prompts the APIs may add
  for their search tools are not visible and not counted.
- "tool defs" is the tools array alone, as sent / as in context. "vs eager" is turn-1 context over the same adapter's
  turn-1 context with search off; "saved" is the difference in tokens. "status bar" is tokens.EstimateContext(nil,
  catalog, resolved mode).Saved, the figure the TUI shows: definitions' neutral JSON, minus a generic search tool.
- "stable": the request's tools array and every other top-level field are byte-identical to the previous request's, and
  so is every message the previous request had. Counted over requests 2..n. "markers aside" ignores cache_control
  breakpoints, which mark where to cache and are not prompt content (the Anthropic adapter moves its message breakpoint
  to the newest message each request, as Anthropic documents for multi-turn caching). "first diff" is the smallest byte
  offset at which two consecutive bodies differ.
- "fake cache read" is the fakes' own usage figures (bytes/4 models, not real billing): Responses and Chat count the
  byte prefix shared with the previous request as cached; the Anthropic fake counts the previous request's size.`

// Markdown writes the report as markdown tables.
func Markdown(w io.Writer, rep *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Token economics of deferral (`%s`)\n\n", rep.Command)
	b.WriteString("## Targets\n\n| target | met | figures |\n|---|---|---|\n")
	for _, c := range rep.Targets {
		met := "yes"
		if !c.Met {
			met = "**NO**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", c.Target, met, esc(strings.TrimSuffix(c.Detail, "; ")))
	}
	if fs := Findings(rep); len(fs) > 0 {
		b.WriteString("\n## Findings\n\n")
		for _, f := range fs {
			b.WriteString("- " + f + "\n")
		}
	}
	b.WriteString("\n## Turn 1, all catalogs (context tokens; % of eager)\n\n")
	b.WriteString("| catalog | tools | defs (o200k) |")
	for _, a := range adaptersIn(rep) {
		fmt.Fprintf(&b, " %s off | native | client |", a)
	}
	b.WriteString("\n|---|---:|---:|")
	for range adaptersIn(rep) {
		b.WriteString("---:|---:|---:|")
	}
	b.WriteString("\n")
	for _, ci := range rep.Catalogs {
		fmt.Fprintf(&b, "| %s | %d | %s |", ci.Name, ci.Tools, num(ci.DefTokens))
		for _, a := range adaptersIn(rep) {
			for _, m := range Modes {
				r := find(rep, ci.Name, a, string(m))
				switch {
				case r == nil:
					b.WriteString(" |")
				case m == "off":
					fmt.Fprintf(&b, " %s |", num(r.T1ContextTokens))
				default:
					fmt.Fprintf(&b, " %s (%.1f%%) |", num(r.T1ContextTokens), 100*r.ShareOfEager)
				}
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n" + Method + "\n")
	for _, ci := range rep.Catalogs {
		kind := ""
		if ci.Generated {
			kind = ", generated from ALL by renaming servers and tagging descriptions"
		}
		fmt.Fprintf(&b, "\n## %s (%d tools, %s tokens of definitions%s)\n\n", ci.Name, ci.Tools, num(ci.DefTokens), kind)
		fmt.Fprintf(&b, "Discovered: %s.\n\n", strings.Join(ci.Targets, ", "))
		b.WriteString("| adapter | mode | req | T1 sent tok (bytes) | T1 context tok | T1 tool defs sent / in context | vs eager | saved | status bar saved | stable | stable, markers aside | first diff (min byte) | 10-turn context tok | fake input / cache read |\n")
		b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, r := range rep.Results {
			if r.Catalog != ci.Name {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %s (%s B) | %s | %s / %s | %.1f%% | %s | %s | %s | %s | %d | %s | %s / %s |\n",
				r.Adapter, modeLabel(r), len(r.Requests), num(r.T1SentTokens), num(r.T1Bytes), num(r.T1ContextTokens),
				num(r.T1ToolsSentTokens), num(r.T1ToolsContextTokens), 100*r.ShareOfEager, num(r.SavedTokens), num(r.Estimate.Saved),
				pct(r.StableStrict, r.Compared), pct(r.StableMarkers, r.Compared), r.FirstDiffMin,
				num(r.ConvContextTokens), num(r.Usage.InputTokens+r.Usage.CacheWriteTokens), num(r.Usage.CacheReadTokens))
		}
		for _, r := range rep.Results {
			if r.Catalog == ci.Name && r.Unstable != "" {
				fmt.Fprintf(&b, "\n- %s %s: %s", r.Adapter, modeLabel(r), esc(r.Unstable))
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nRun time: %s.\n", rep.Duration.Round(100_000_000))
	_, err := io.WriteString(w, b.String())
	return err
}

// Findings explain what the figures show: why a target is missed, what
// the strict byte comparison catches, how the status bar's estimate
// compares.
func Findings(rep *Report) []string {
	var out []string
	for _, ci := range rep.Catalogs {
		if ci.Name != "ALL" && !ci.Generated {
			continue
		}
		for _, r := range rep.Results {
			if r.Catalog != ci.Name || r.Mode == "off" || r.ShareOfEager <= MaxShare {
				continue
			}
			if r.T1VisibleDeferred == 0 {
				out = append(out, fmt.Sprintf("%s %s %s: turn-1 context is %.1f%% of eager, above the 5%% target.", ci.Name, r.Adapter, modeLabel(r), 100*r.ShareOfEager))
				continue
			}
			fixed := r.T1ContextTokens - r.T1VisibleDeferred + ci.NamespaceTokens
			out = append(out, fmt.Sprintf("**%s %s %s misses the 5%% target: %.1f%% of eager.** %s of its %s turn-1 context tokens are the names "+
				"and descriptions of the %d deferred functions, which OpenAI keeps in context (\"For individual deferred functions, the model still "+
				"sees the function name and description, so in practice tool search mainly defers the parameter schemas\", "+
				"developers.openai.com/api/docs/guides/tools-tool-search). The adapter sends every deferred tool as a top-level "+
				"`{\"type\":\"function\",...,\"defer_loading\":true}` (providers/openairesponses/tools.go, renderTools); with one "+
				"`{\"type\":\"namespace\"}` per MCP server (%d here), only the namespaces' names and descriptions would show: about %s "+
				"tokens, so turn-1 context ≈ %s (%.1f%% of eager).",
				ci.Name, r.Adapter, modeLabel(r), 100*r.ShareOfEager, num(r.T1VisibleDeferred), num(r.T1ContextTokens), ci.Tools,
				len(ci.Servers), num(ci.NamespaceTokens), num(fixed), 100*float64(fixed)/float64(r.EagerContextTokens)))
		}
	}
	for _, r := range rep.Results {
		if r.StableStrict < r.Compared && r.StableMarkers == r.Compared {
			out = append(out, fmt.Sprintf("%s bodies are not byte-identical before the new messages on any request: the adapter puts "+
				"`cache_control` on the last block of the last user message and drops it there when a newer message takes it "+
				"(first seen in %s %s, %s). That is Anthropic's documented multi-turn caching pattern: the marker is not prompt content, "+
				"the cached prefix is unchanged. Every other byte before the new messages, and the tools array, is identical on every request.",
				r.Adapter, r.Catalog, modeLabel(r), strings.TrimPrefix(r.Unstable, "cache markers only; first at ")))
			break
		}
	}
	for _, r := range rep.Results {
		if r.StableMarkers < r.Compared {
			out = append(out, fmt.Sprintf("**Prefix broken:** %s %s %s: %s", r.Catalog, r.Adapter, modeLabel(r), r.Unstable))
		}
	}
	for _, r := range rep.Results {
		if r.Catalog != "ALL" || r.Mode != "native" {
			continue
		}
		out = append(out, fmt.Sprintf("Status bar vs measured, ALL, %s %s: tokens.EstimateContext says %s saved, the wire shows %s.",
			r.Adapter, modeLabel(r), num(r.Estimate.Saved), num(r.SavedTokens)))
	}
	out = append(out, "The fakes' usage figures are models, not the APIs': responsestest counts as cached the byte prefix a body shares "+
		"with the previous one, and the Responses adapter writes `input` before `tools`, so the fake credits almost nothing to "+
		"the stable tools array (OpenAI caches the rendered prompt, tools first, whatever the JSON order); the Anthropic fake "+
		"reports the previous request's size as cache read. Chat's fake models the prompt as tools then messages.")
	return out
}

func adaptersIn(rep *Report) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range rep.Results {
		if !seen[r.Adapter] {
			seen[r.Adapter] = true
			out = append(out, r.Adapter)
		}
	}
	return out
}

func find(rep *Report, cat, adapter, mode string) *Result {
	for i, r := range rep.Results {
		if r.Catalog == cat && r.Adapter == adapter && string(r.Mode) == mode {
			return &rep.Results[i]
		}
	}
	return nil
}

func pct(n, of int) string {
	if of == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%% (%d/%d)", 100*float64(n)/float64(of), n, of)
}

// num groups thousands: 65381 -> 65,381.
func num(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

func esc(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
