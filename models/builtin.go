package models

import (
	"regexp"
	"strconv"
	"strings"
)

// Sources (December 2026): Anthropic models overview, adaptive thinking,
// effort and tool search pages (Opus 4.1 and earlier have no tool search;
// Opus 4.7+, Mythos and Fable take adaptive thinking only; Opus/Sonnet 4.6
// take both); OpenAI model pages and reasoning guide (gpt-5 efforts
// minimal..high, gpt-5.1 none..high, gpt-5.2+ add xhigh; tool_search from
// gpt-5.4; the -chat-latest models reject encrypted reasoning); Gemini
// thinking and OpenAI-compatibility pages; DeepSeek reasoning_model guide;
// Mistral, Qwen and Llama model cards.

// builtin resolves a model id from the built-in table, falling back to the
// conservative defaults of the family whose API the provider speaks ("" when
// it serves many vendors' models).
func builtin(family, model string) Capabilities {
	c := lookupModel(family, model)
	// Tool search and deferral are features of the vendor's own API: a
	// Claude id behind the OpenAI API (or the reverse) has neither.
	if family != "" && c.Family != "" && c.Family != family {
		c.NativeSearch, c.DeferLoading, c.EncryptedReasoning = false, false, false
	}
	return c
}

func lookupModel(family, model string) Capabilities {
	m := normalize(model)
	if strings.Contains(m, "claude") {
		if c, ok := claude(m); ok {
			return c
		}
	}
	if c, ok := openAI(m); ok {
		return c
	}
	if c, ok := prefixTable(m); ok {
		return c
	}
	return fallback(family)
}

var (
	bedrockVersion = regexp.MustCompile(`-v\d+$`)
	dateSuffix     = regexp.MustCompile(`-(20\d{6}|\d{4}-\d{2}-\d{2}|\d{4})$`)
)

// normalize reduces the spellings of one model to the form the table is
// keyed by: lower case; routing prefixes ("openai/", "models/", Bedrock
// ARNs) dropped; Bedrock's "[us.|eu.|global.]anthropic." vendor prefix and
// "-v1:0" suffix, Vertex's "@20250929", Ollama's ":8b" tag dropped.
func normalize(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	if i := strings.Index(m, "@"); i >= 0 {
		m = m[:i]
	}
	if i := strings.Index(m, ":"); i >= 0 {
		m = m[:i]
	}
	for _, vendor := range []string{"anthropic.", "meta.", "mistral.", "deepseek.", "qwen.", "openai.", "google."} {
		if i := strings.Index(m, vendor); i >= 0 && strings.Count(m[:i], ".") <= 1 && !strings.Contains(m[:i], "-") {
			m = m[i+len(vendor):]
			break
		}
	}
	m = bedrockVersion.ReplaceAllString(m, "")
	return m
}

// claude reads the family and version out of both namings,
// claude-<family>-<major>[-<minor>] and claude-<major>[-<minor>]-<family>
// (dots as in OpenRouter's "claude-sonnet-4.5" read like dashes), so ids
// newer than this table resolve like the latest known generation.
func claude(m string) (Capabilities, bool) {
	i := strings.Index(m, "claude-")
	if i < 0 {
		return Capabilities{}, false
	}
	rest := strings.ReplaceAll(m[i+len("claude-"):], ".", "-")
	rest = strings.TrimSuffix(rest, "-latest")
	rest = dateSuffix.ReplaceAllString(rest, "")
	fields := strings.Split(rest, "-")
	var family string
	var ver []int
	for _, f := range fields {
		if n, err := strconv.Atoi(f); err == nil && len(f) <= 2 {
			ver = append(ver, n)
			continue
		}
		if family == "" {
			family = f
			continue
		}
		break
	}
	if family == "" {
		return Capabilities{}, false
	}
	major, minor := 0, 0
	if len(ver) > 0 {
		major = ver[0]
	}
	if len(ver) > 1 {
		minor = ver[1]
	}
	v := major*10 + minor
	c := Capabilities{
		Known: true, Family: familyAnthropic, ContextWindow: 200_000,
		Reasoning: ReasoningThinking, SchemaDialect: DialectJSONSchema,
	}
	switch family {
	case "mythos", "fable":
		// Newest tier: adaptive thinking always on, no effort "none".
		c.MaxOutput, c.ContextWindow = 128_000, 1_000_000
		c.Thinking, c.Efforts = ThinkingAdaptive, []string{"low", "medium", "high", "xhigh", "max"}
		c.NativeSearch, c.DeferLoading = true, true
		return withDefault(c), true
	case "opus", "sonnet", "haiku":
	default:
		return Capabilities{}, false
	}
	switch {
	case major == 0:
		return Capabilities{}, false
	case v < 37: // Claude 3, 3.5: no thinking, small output
		c.Reasoning, c.Thinking = ReasoningNone, ThinkingNone
		c.MaxOutput = 8192
		if v == 30 {
			c.MaxOutput = 4096
		}
	case v < 45: // 3.7, 4, 4.1: budget thinking, no tool search
		c.Thinking = ThinkingBudget
		c.MaxOutput = 64_000
		if family == "opus" {
			c.MaxOutput = 32_000
		}
	case v < 46 || family == "haiku": // 4.5: tool search, budget thinking
		c.Thinking = ThinkingBudget
		c.MaxOutput = 64_000
		c.NativeSearch, c.DeferLoading = true, true
	default: // 4.6 and later: adaptive thinking, effort levels
		c.Thinking = ThinkingAdaptive
		c.Efforts = []string{"low", "medium", "high", "max"}
		c.MaxOutput = 64_000
		if family == "opus" {
			c.MaxOutput = 128_000
		}
		if v >= 47 {
			// Opus 4.7+ and the 5 generation add "xhigh".
			c.ContextWindow = 1_000_000
			c.Efforts = []string{"low", "medium", "high", "xhigh", "max"}
		}
		c.NativeSearch, c.DeferLoading = true, true
	}
	return withDefault(c), true
}

var gptVersion = regexp.MustCompile(`^gpt-(\d+)(?:\.(\d+))?(.*)$`)

// openAI covers gpt-5.x (parsed, so later versions resolve), the o-series,
// gpt-4.1, gpt-4o and gpt-oss.
func openAI(m string) (Capabilities, bool) {
	c := Capabilities{Known: true, Family: familyOpenAI, SchemaDialect: DialectJSONSchema,
		Reasoning: ReasoningNone, Thinking: ThinkingNone}
	if sm := gptVersion.FindStringSubmatch(m); sm != nil {
		major, _ := strconv.Atoi(sm[1])
		minor := 0
		if sm[2] != "" {
			minor, _ = strconv.Atoi(sm[2])
		}
		rest := sm[3]
		if major < 5 {
			return Capabilities{}, false // gpt-4o, gpt-4.1 etc. come from the prefix table
		}
		if strings.Contains(rest, "-chat") {
			// gpt-5-chat-latest, gpt-5.1-chat-latest: the ChatGPT models.
			// No reasoning items; "Encrypted content is not supported with this model".
			c.ContextWindow, c.MaxOutput = 128_000, 16_384
			return withDefault(c), true
		}
		c.Reasoning, c.Thinking, c.EncryptedReasoning = ReasoningEffort, ThinkingEffort, true
		c.ContextWindow, c.MaxOutput = 400_000, 128_000
		switch {
		case major == 5 && minor == 0:
			c.Efforts = []string{"minimal", "low", "medium", "high"}
		case major == 5 && minor == 1:
			c.Efforts = []string{"none", "low", "medium", "high"}
		default:
			c.Efforts = []string{"none", "low", "medium", "high", "xhigh"}
		}
		if strings.Contains(rest, "-codex") {
			c.Efforts = []string{"low", "medium", "high"}
			if major > 5 || minor >= 1 {
				c.Efforts = append(c.Efforts, "xhigh")
			}
		}
		if strings.Contains(rest, "-pro") {
			c.Efforts = []string{"high"}
			if major > 5 || minor >= 2 {
				c.Efforts = []string{"medium", "high", "xhigh"}
			}
		}
		if major > 5 || minor >= 4 {
			c.NativeSearch, c.DeferLoading = true, true
			c.ContextWindow = 1_050_000
			if strings.Contains(rest, "-mini") || strings.Contains(rest, "-nano") {
				c.ContextWindow = 400_000
			}
		}
		return withDefault(c), true
	}
	switch {
	case m == "o1-mini" || strings.HasPrefix(m, "o1-mini-") || strings.HasPrefix(m, "o1-preview"):
		c.Reasoning, c.EncryptedReasoning = ReasoningEffort, true
		c.Thinking = ThinkingAlways
		c.ContextWindow, c.MaxOutput = 128_000, 65_536
	case m == "o1" || strings.HasPrefix(m, "o1-") || m == "o3" || strings.HasPrefix(m, "o3-") ||
		m == "o4-mini" || strings.HasPrefix(m, "o4-mini-"):
		c.Reasoning, c.Thinking, c.EncryptedReasoning = ReasoningEffort, ThinkingEffort, true
		c.Efforts = []string{"low", "medium", "high"}
		c.ContextWindow, c.MaxOutput = 200_000, 100_000
		if strings.Contains(m, "-pro") {
			c.Efforts = []string{"high"}
		}
	case strings.HasPrefix(m, "codex-mini"):
		c.Reasoning, c.Thinking, c.EncryptedReasoning = ReasoningEffort, ThinkingEffort, true
		c.Efforts = []string{"low", "medium", "high"}
		c.ContextWindow, c.MaxOutput = 200_000, 100_000
	case strings.HasPrefix(m, "gpt-oss"):
		// Open weights, served by Chat Completions servers: reasoning text
		// comes back as reasoning_content, effort as reasoning_effort.
		c.Reasoning, c.Thinking = ReasoningContent, ThinkingEffort
		c.Efforts = []string{"low", "medium", "high"}
		c.ContextWindow, c.MaxOutput = 131_072, 32_768
	default:
		return Capabilities{}, false
	}
	return withDefault(c), true
}

// entry is one prefix of the table; the longest matching prefix wins.
type entry struct {
	prefix string
	c      Capabilities
}

func known(family string, ctx, out int) Capabilities {
	return Capabilities{Known: true, Family: family, ContextWindow: ctx, MaxOutput: out,
		Reasoning: ReasoningNone, Thinking: ThinkingNone, SchemaDialect: DialectJSONSchema}
}

func with(c Capabilities, f func(*Capabilities)) Capabilities { f(&c); return c }

func gemini(ctx, out int, f func(*Capabilities)) Capabilities {
	c := known(familyGoogle, ctx, out)
	c.SchemaDialect = DialectGemini
	if f != nil {
		f(&c)
	}
	return c
}

var table = []entry{
	// OpenAI, pre-reasoning.
	{"gpt-4.1", known(familyOpenAI, 1_047_576, 32_768)},
	{"gpt-4o", known(familyOpenAI, 128_000, 16_384)},
	{"chatgpt-4o", known(familyOpenAI, 128_000, 16_384)},
	{"gpt-4-turbo", known(familyOpenAI, 128_000, 4096)},
	{"gpt-4", known(familyOpenAI, 8192, 8192)},
	{"gpt-3.5-turbo", known(familyOpenAI, 16_385, 4096)},

	// Google Gemini. 2.5: thinking budget (Pro cannot turn it off);
	// 3: thinking levels and images in function responses; both need
	// thought signatures replayed.
	{"gemini-3", gemini(1_048_576, 65_536, func(c *Capabilities) {
		c.Reasoning, c.Thinking, c.Efforts = ReasoningGemini, ThinkingLevel, []string{"low", "high"}
		c.ToolResultMedia = true
	})},
	{"gemini-3-flash", gemini(1_048_576, 65_536, func(c *Capabilities) {
		c.Reasoning, c.Thinking, c.Efforts = ReasoningGemini, ThinkingLevel, []string{"minimal", "low", "medium", "high"}
		c.ToolResultMedia = true
	})},
	{"gemini-2.5-pro", gemini(1_048_576, 65_536, func(c *Capabilities) {
		c.Reasoning, c.Thinking, c.Efforts = ReasoningGemini, ThinkingBudget, []string{"low", "medium", "high"}
	})},
	{"gemini-2.5-flash", gemini(1_048_576, 65_536, func(c *Capabilities) {
		c.Reasoning, c.Thinking, c.Efforts = ReasoningGemini, ThinkingBudget, []string{"none", "low", "medium", "high"}
	})},
	{"gemini-2.0", gemini(1_048_576, 8192, nil)},
	{"gemini-1.5-pro", gemini(2_097_152, 8192, nil)},
	{"gemini-1.5", gemini(1_048_576, 8192, nil)},
	{"gemini", gemini(1_048_576, 8192, nil)},
	{"gemma", known(familyGoogle, 128_000, 8192)},

	// DeepSeek. deepseek-reasoner always thinks and needs reasoning_content
	// back on every assistant tool-call turn.
	{"deepseek-chat", known("deepseek", 128_000, 8192)},
	{"deepseek-reasoner", with(known("deepseek", 128_000, 65_536), func(c *Capabilities) {
		c.Reasoning, c.Thinking = ReasoningContent, ThinkingAlways
	})},
	{"deepseek-r1", with(known("deepseek", 128_000, 32_768), func(c *Capabilities) {
		c.Reasoning, c.Thinking = ReasoningContent, ThinkingAlways
	})},
	{"deepseek-v3", known("deepseek", 128_000, 8192)},
	// V4 (flash, pro): 1M context, thinking mode returning reasoning_content,
	// which tool-call turns must carry back.
	{"deepseek-v4", with(known("deepseek", 1_000_000, 384_000), func(c *Capabilities) {
		c.Reasoning = ReasoningContent
	})},
	{"deepseek-coder", known("deepseek", 128_000, 8192)},
	{"deepseek", known("deepseek", 128_000, 8192)},

	// Mistral (the API has no separate output cap; the share of the
	// context below is what its SDK examples use).
	{"mistral-large", known("mistral", 128_000, 32_768)},
	{"mistral-medium", known("mistral", 128_000, 32_768)},
	{"mistral-small", known("mistral", 128_000, 32_768)},
	{"ministral", known("mistral", 128_000, 32_768)},
	{"codestral", known("mistral", 256_000, 32_768)},
	{"devstral", known("mistral", 128_000, 32_768)},
	{"pixtral", known("mistral", 128_000, 32_768)},
	{"open-mistral-nemo", known("mistral", 128_000, 32_768)},
	{"magistral", with(known("mistral", 128_000, 40_000), func(c *Capabilities) {
		c.Reasoning, c.Thinking = ReasoningContent, ThinkingAlways
	})},
	{"mistral", known("mistral", 32_768, 8192)},

	// Qwen: Qwen3 thinks by default and returns reasoning_content on
	// vLLM/SGLang/DashScope; qwq always thinks.
	{"qwen3", with(known("qwen", 40_960, 8192), func(c *Capabilities) { c.Reasoning = ReasoningContent })},
	{"qwen3-coder", known("qwen", 262_144, 65_536)},
	{"qwen3-max", known("qwen", 262_144, 32_768)},
	{"qwen-max", known("qwen", 32_768, 8192)},
	{"qwen-plus", known("qwen", 131_072, 16_384)},
	{"qwen-turbo", known("qwen", 1_000_000, 16_384)},
	{"qwen2.5-coder", known("qwen", 32_768, 8192)},
	{"qwen2.5", known("qwen", 32_768, 8192)},
	{"qwq", with(known("qwen", 131_072, 32_768), func(c *Capabilities) {
		c.Reasoning, c.Thinking = ReasoningContent, ThinkingAlways
	})},
	{"qwen", known("qwen", 32_768, 8192)},

	// Meta Llama ("llama3" alone is the 8k-context Llama 3).
	{"llama3", known("meta", 8192, 4096)},
	{"llama3.", known("meta", 128_000, 8192)},
	{"llama3-", known("meta", 128_000, 8192)},
	{"llama-3", known("meta", 128_000, 8192)},
	{"llama-3.3-70b-versatile", known("meta", 131_072, 32_768)},
	{"llama4", known("meta", 128_000, 8192)},
	{"llama-4", known("meta", 128_000, 8192)},
	{"llama", known("meta", 128_000, 8192)},
}

func prefixTable(m string) (Capabilities, bool) {
	best := -1
	var c Capabilities
	for _, e := range table {
		if strings.HasPrefix(m, e.prefix) && len(e.prefix) > best {
			best, c = len(e.prefix), e.c
		}
	}
	if best < 0 {
		return Capabilities{}, false
	}
	if c.Efforts != nil {
		c.Efforts = append([]string(nil), c.Efforts...)
	}
	return withDefault(c), true
}

// fallback is what an unknown id gets: nothing that can draw a 400 (no
// deferral, no reasoning replay), a modest output limit; behind Gemini's API
// its schema dialect, behind Claude's its context window.
func fallback(family string) Capabilities {
	c := Capabilities{ContextWindow: 128_000, MaxOutput: 8192, DefaultMaxTokens: 4096,
		Reasoning: ReasoningNone, Thinking: ThinkingNone, SchemaDialect: DialectJSONSchema}
	switch family {
	case familyGoogle:
		c.SchemaDialect, c.Family = DialectGemini, familyGoogle
	case familyAnthropic:
		c.ContextWindow = 200_000
	}
	return c
}

// withDefault fills DefaultMaxTokens with a generous share of MaxOutput:
// all of it up to 32k, half of larger limits (capped at 64k), so one long
// tool argument (a whole file) fits while a runaway answer stays bounded.
func withDefault(c Capabilities) Capabilities {
	if c.DefaultMaxTokens == 0 {
		c.DefaultMaxTokens = defaultShare(c.MaxOutput)
	}
	return c
}

func defaultShare(maxOut int) int {
	switch {
	case maxOut <= 0:
		return 4096
	case maxOut <= 32_768:
		return maxOut
	case maxOut/2 < 32_000:
		return 32_000
	case maxOut/2 > 64_000:
		return 64_000
	}
	return maxOut / 2
}
