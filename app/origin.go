package app

import (
	"fmt"

	"github.com/agent-dev/agent/config"
)

// ValueError is the error for the value of the config key name when it is
// not one of allowed, a closed set config does not know (the themes, the
// providers): it names where the value was set, the last layer that set
// it (the flag, the agent profile, the environment variable, the project's
// or the user's config file at the key's line), so the user knows what to
// fix.
func (s Settings) ValueError(name, v string, allowed []string, getenv func(string) string) error {
	k, _ := config.Lookup(name)
	switch {
	case k.Flag != "" && k.IsSet(&s.Flags.Config):
		return &config.FlagValueError{Flag: k.Flag, Value: v, What: k.What, Allowed: allowed}
	case s.profile != nil && k.Profile && k.IsSet(&s.profile.Config):
		return &config.ValueError{Where: fmt.Sprintf("agent profile %s (%s)", s.profile.Name, s.profile.Path), Key: name, Value: v, What: k.What, Allowed: allowed}
	case k.Env != "" && getenv(k.Env) != "":
		return &config.EnvValueError{Var: k.Env, Value: v, What: k.What, Allowed: allowed}
	case k.EnvAlso != "" && getenv(k.EnvAlso) != "":
		return &config.EnvValueError{Var: k.EnvAlso, Value: v, What: k.What, Allowed: allowed}
	}
	files := []string{s.ConfigPath}
	if s.Trusted {
		files = []string{config.ProjectPath(s.Workdir), s.ConfigPath}
	}
	for _, path := range files {
		if c, err := config.Read(path, false); err == nil && c != nil && k.IsSet(c) {
			return &config.ValueError{Where: config.Locate(path, name), Key: name, Value: v, What: k.What, Allowed: allowed}
		}
	}
	return &config.ValueError{Where: "built-in default", Key: name, Value: v, What: k.What, Allowed: allowed}
}
