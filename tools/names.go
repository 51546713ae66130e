package tools

// Names lists every name t answers to, once each.
func Names(t Tool) []string {
	out := []string{t.Name}
	add := func(n string) {
		for _, o := range out {
			if o == n {
				return
			}
		}
		out = append(out, n)
	}
	if t.Orig != "" {
		add(t.Orig)
		if t.Server != "" {
			add(t.Server + "__" + t.Orig)
		}
	}
	return out
}
