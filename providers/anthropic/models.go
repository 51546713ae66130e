package anthropic

import "strings"

// nativeSearchModel reports whether model supports the tool search tool:
// Haiku 4.5, Sonnet 4.5, Opus 4.5 and every later version of any family
// (4.6, 4.7, 4.8, 5.x, Fable/Mythos 5, ...). Claude 3 models, Opus 4.1 and
// Sonnet/Opus 4 do not. Snapshot suffixes (-20250929), "-latest", and the
// Bedrock/Vertex spellings ("anthropic.claude-sonnet-4-5-20250929-v1:0",
// "claude-sonnet-4-5@20250929") resolve like the alias they pin.
func nativeSearchModel(model string) bool {
	m := strings.ToLower(model)
	i := strings.Index(m, "claude-")
	if i < 0 {
		return false
	}
	fields := strings.FieldsFunc(m[i+len("claude-"):], func(r rune) bool { return r == '-' || r == '@' })
	if len(fields) == 0 || isDigits(fields[0]) {
		// claude-3-5-sonnet-..., claude-3-haiku-...: the old naming is all pre-4.5.
		return false
	}
	var ver []int
	for _, f := range fields[1:] {
		if !isDigits(f) || len(f) > 2 {
			break // a date snapshot or a suffix ends the version
		}
		ver = append(ver, atoi(f))
	}
	if len(ver) == 0 {
		return false
	}
	major, minor := ver[0], 0
	if len(ver) > 1 {
		minor = ver[1]
	}
	return major > 4 || (major == 4 && minor >= 5)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n
}

// defaultMaxTokens is used when the request does not set one. Claude 3
// Haiku/Opus/Sonnet cap output at 4096; everything later accepts 8192.
func defaultMaxTokens(model string) int {
	m := strings.ToLower(model)
	for _, p := range []string{"claude-3-haiku", "claude-3-opus", "claude-3-sonnet"} {
		if strings.Contains(m, p) {
			return 4096
		}
	}
	return 8192
}
