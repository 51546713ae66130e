package mcp

import "strconv"

// toolCount is n tools in words that agree: "1 tool", "6 tools".
func toolCount(n int) string {
	if n == 1 {
		return "1 tool"
	}
	return strconv.Itoa(n) + " tools"
}

// agrees picks the verb for toolCount(n): "1 tool leaves", "2 tools leave".
func agrees(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
