//go:build !linux

package mcp

// Elsewhere than Linux the agent cannot read a process's start time
// without a new dependency, so it writes no pid file: a server left behind
// by a crash there is not ended at the next start.

func procStat(int) (stat, error) { return stat{}, errNoProcInfo }

func bootID() string { return "" }

func killPid(int) error { return errNoProcInfo }

func groupMembers(int) []int { return nil }

func hasEnv(int, string) bool { return false }
