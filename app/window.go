package app

// contextWindow is the model's context size (the capability table, with
// the config's "models" entries) for the --defer auto threshold; 128k
// for a model the table does not know.
func (s Settings) contextWindow(model string) int {
	t, err := s.ModelTable()
	if err == nil {
		if w := t.Lookup(s.Provider, model).ContextWindow; w > 0 {
			return w
		}
	}
	return 128_000
}
