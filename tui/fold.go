package tui

import "slices"

// Cards fold together (ctrl+o with none selected) or on their own: alt+↑/↓
// select a card, and ctrl+o then folds or unfolds that card alone.

// ToggleExpanded folds or unfolds the selected card alone; with none
// selected, it shows every card and thinking whole, or folded.
func (c *chat) ToggleExpanded() {
	if it := c.sel; it != nil {
		if c.expandedFor(it) {
			it.open = -1
		} else {
			it.open = 1
		}
		it.version++
		c.clamp()
		return
	}
	c.expanded = !c.expanded
	for _, it := range c.items {
		if it.open != 0 {
			it.open = 0
			it.version++
		}
	}
	c.clamp()
}

// expandedFor tells whether it is shown whole: its own fold, else ctrl+o's.
func (c *chat) expandedFor(it *chatItem) bool {
	if it.open != 0 {
		return it.open > 0
	}
	return c.expanded
}

// SelectCard moves the selection to the previous (dir < 0) or next card
// among the items from index from on (inline mode: those not printed
// yet). With none selected, up selects the newest card; down past the
// newest selects none again.
func (c *chat) SelectCard(dir, from int) {
	var cards []*chatItem
	for _, it := range c.items[min(from, len(c.items)):] {
		if it.card != nil {
			cards = append(cards, it)
		}
	}
	i := slices.Index(cards, c.sel)
	switch {
	case i < 0 && dir < 0:
		i = len(cards) - 1
	case i < 0:
	case i+dir < 0:
		i = 0
	default:
		i += dir
	}
	next := (*chatItem)(nil)
	if i >= 0 && i < len(cards) {
		next = cards[i]
	}
	c.selectItem(next)
}

// selectItem makes it the selected card (nil: none), redrawing both.
func (c *chat) selectItem(it *chatItem) {
	if c.sel == it {
		return
	}
	if c.sel != nil {
		c.sel.version++
	}
	if it != nil {
		it.version++
	}
	c.sel = it
}
